// The two transports, as interfaces (an engine may bring its own: Unity's UnityWebRequest),
// with default implementations on HttpClient and ClientWebSocket.
using System;
using System.Collections.Generic;
using System.IO;
using System.Net.Http;
using System.Net.WebSockets;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

namespace Manette
{
    public sealed class HttpRequest
    {
        public string Method;
        public string Url;
        public Dictionary<string, string> Headers = new Dictionary<string, string>();
        /// <summary>The JSON body, or null for none.</summary>
        public string Body;
    }

    public sealed class HttpResponse
    {
        public int Status;
        public string ReasonPhrase;
        public string Body;
        /// <summary>Response headers, names in lower case.</summary>
        public Dictionary<string, string> Headers = new Dictionary<string, string>();
    }

    /// <summary>Sends one HTTP request. Throws (any exception) when no answer came: the SDK reports it as `network_error`.</summary>
    public interface IHttpTransport
    {
        Task<HttpResponse> SendAsync(HttpRequest request, CancellationToken cancellationToken);
    }

    /// <summary>The default HTTP transport, on System.Net.Http.HttpClient.</summary>
    public sealed class HttpClientTransport : IHttpTransport, IDisposable
    {
        readonly HttpClient http;

        public HttpClientTransport() : this(new HttpClient { Timeout = TimeSpan.FromSeconds(30) }) { }
        public HttpClientTransport(HttpClient client) { http = client; }

        public async Task<HttpResponse> SendAsync(HttpRequest request, CancellationToken cancellationToken)
        {
            using (var msg = new HttpRequestMessage(new HttpMethod(request.Method), request.Url))
            {
                string contentType = null;
                foreach (var h in request.Headers)
                {
                    if (string.Equals(h.Key, "Content-Type", StringComparison.OrdinalIgnoreCase)) { contentType = h.Value; continue; }
                    msg.Headers.TryAddWithoutValidation(h.Key, h.Value);
                }
                if (request.Body != null)
                {
                    msg.Content = new ByteArrayContent(Encoding.UTF8.GetBytes(request.Body));
                    msg.Content.Headers.TryAddWithoutValidation("Content-Type", contentType ?? "application/json");
                }
                using (var res = await http.SendAsync(msg, cancellationToken).ConfigureAwait(false))
                {
                    var bytes = await res.Content.ReadAsByteArrayAsync().ConfigureAwait(false);
                    var answer = new HttpResponse { Status = (int)res.StatusCode, ReasonPhrase = res.ReasonPhrase, Body = Encoding.UTF8.GetString(bytes) };
                    foreach (var h in res.Headers) answer.Headers[h.Key.ToLowerInvariant()] = string.Join(",", h.Value);
                    foreach (var h in res.Content.Headers) answer.Headers[h.Key.ToLowerInvariant()] = string.Join(",", h.Value);
                    return answer;
                }
            }
        }

        public void Dispose() { http.Dispose(); }
    }

    /// <summary>
    /// One WebSocket connection carrying text frames. ReceiveAsync returns one whole message,
    /// or null once the connection is closed; any method may throw when the connection fails.
    /// </summary>
    public interface IWebSocketTransport : IDisposable
    {
        Task ConnectAsync(Uri uri, CancellationToken cancellationToken);
        Task SendAsync(string text, CancellationToken cancellationToken);
        Task<string> ReceiveAsync(CancellationToken cancellationToken);
        Task CloseAsync();
    }

    /// <summary>The default WebSocket transport, on System.Net.WebSockets.ClientWebSocket.</summary>
    public sealed class ClientWebSocketTransport : IWebSocketTransport
    {
        readonly ClientWebSocket ws = new ClientWebSocket();
        readonly SemaphoreSlim sending = new SemaphoreSlim(1, 1);

        public Task ConnectAsync(Uri uri, CancellationToken cancellationToken)
        {
            return ws.ConnectAsync(uri, cancellationToken);
        }

        public async Task SendAsync(string text, CancellationToken cancellationToken)
        {
            var bytes = Encoding.UTF8.GetBytes(text);
            await sending.WaitAsync(cancellationToken).ConfigureAwait(false);
            try
            {
                await ws.SendAsync(new ArraySegment<byte>(bytes), WebSocketMessageType.Text, true, cancellationToken).ConfigureAwait(false);
            }
            finally { sending.Release(); }
        }

        public async Task<string> ReceiveAsync(CancellationToken cancellationToken)
        {
            var buffer = new byte[16 * 1024];
            using (var whole = new MemoryStream())
            {
                for (;;)
                {
                    var r = await ws.ReceiveAsync(new ArraySegment<byte>(buffer), cancellationToken).ConfigureAwait(false);
                    if (r.MessageType == WebSocketMessageType.Close) return null;
                    whole.Write(buffer, 0, r.Count);
                    if (r.EndOfMessage)
                    {
                        // Binary frames (vsn 2.0.0) are not asked for: only text is decoded.
                        if (r.MessageType != WebSocketMessageType.Text) { whole.SetLength(0); continue; }
                        return Encoding.UTF8.GetString(whole.GetBuffer(), 0, (int)whole.Length);
                    }
                }
            }
        }

        public async Task CloseAsync()
        {
            try
            {
                if (ws.State == WebSocketState.Open || ws.State == WebSocketState.CloseReceived)
                {
                    using (var cts = new CancellationTokenSource(TimeSpan.FromSeconds(2)))
                        await ws.CloseOutputAsync(WebSocketCloseStatus.NormalClosure, "", cts.Token).ConfigureAwait(false);
                }
            }
            catch (Exception) { /* already gone */ }
        }

        public void Dispose()
        {
            try { ws.Abort(); } catch (Exception) { }
            ws.Dispose();
        }
    }
}
