// IHttpTransport on UnityWebRequest (WebGL included, where HttpClient is not available).
// UnityWebRequest must be used on Unity's main thread: the transport captures the main
// thread's SynchronizationContext when it is made (make it in Awake/Start) and starts every
// request there, whatever thread the SDK calls it from.
// Reviewed by reading only: Unity does not run on the machine this SDK is tested on.
using System;
using System.Collections.Generic;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using UnityEngine.Networking;

namespace Manette.Unity
{
    public sealed class UnityWebRequestTransport : IHttpTransport
    {
        readonly SynchronizationContext main;
        /// <summary>Seconds before a request is abandoned (reported as network_error).</summary>
        public int TimeoutSeconds = 30;

        public UnityWebRequestTransport()
        {
            main = SynchronizationContext.Current;
            if (main == null) throw new InvalidOperationException("Make UnityWebRequestTransport on Unity's main thread (in Awake or Start).");
        }

        public Task<HttpResponse> SendAsync(HttpRequest request, CancellationToken cancellationToken)
        {
            var done = new TaskCompletionSource<HttpResponse>();
            main.Post(_ =>
            {
                UnityWebRequest req;
                try
                {
                    req = new UnityWebRequest(request.Url, request.Method);
                    req.downloadHandler = new DownloadHandlerBuffer();
                    if (request.Body != null) req.uploadHandler = new UploadHandlerRaw(Encoding.UTF8.GetBytes(request.Body));
                    foreach (var h in request.Headers) req.SetRequestHeader(h.Key, h.Value);
                    req.timeout = TimeoutSeconds;
                }
                catch (Exception err) { done.TrySetException(err); return; }
                var registration = cancellationToken.Register(() => main.Post(__ => req.Abort(), null));
                var op = req.SendWebRequest();
                op.completed += __ =>
                {
                    registration.Dispose();
                    try
                    {
                        if (cancellationToken.IsCancellationRequested) { done.TrySetCanceled(); return; }
                        // No answer at all (DNS, refused, timeout): the SDK reports network_error.
                        if (req.result == UnityWebRequest.Result.ConnectionError) { done.TrySetException(new Exception(req.error)); return; }
                        var res = new HttpResponse { Status = (int)req.responseCode, Body = req.downloadHandler.text ?? "" };
                        var headers = req.GetResponseHeaders();
                        if (headers != null) foreach (var h in headers) res.Headers[h.Key.ToLowerInvariant()] = h.Value;
                        done.TrySetResult(res);
                    }
                    catch (Exception err) { done.TrySetException(err); }
                    finally { req.Dispose(); }
                };
            }, null);
            return done.Task;
        }
    }
}
