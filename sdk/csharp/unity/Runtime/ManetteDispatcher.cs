// Runs the SDK's queued events (OnAction, OnEtat, OnError, Auth.Changed) on Unity's main
// thread, once per frame. ManetteUnity.CreateClient makes the client and this component.
// Reviewed by reading only: Unity does not run on the machine this SDK is tested on.
using System;
using UnityEngine;

namespace Manette.Unity
{
    public sealed class ManetteDispatcher : MonoBehaviour
    {
        public ManetteClient Client;

        void Update()
        {
            if (Client != null) Client.Poll();
        }

        void OnDestroy()
        {
            if (Client != null) Client.Dispose();
        }
    }

    public static class ManetteUnity
    {
        /// <summary>
        /// A client for Unity, made on the main thread (Awake/Start): UnityWebRequest for HTTP,
        /// PlayerPrefs for the session, events queued and run by a ManetteDispatcher on `host`
        /// (a new GameObject kept across scenes when null). The WebSocket is .NET's
        /// ClientWebSocket (every platform but WebGL).
        /// </summary>
        public static ManetteClient CreateClient(string baseUrl, string apiKey, string lang = "fr", GameObject host = null)
        {
            var client = new ManetteClient(new ClientOptions
            {
                BaseUrl = baseUrl,
                ApiKey = apiKey,
                Lang = lang,
                Http = new UnityWebRequestTransport(),
                Storage = new PlayerPrefsSessionStore(),
                Delivery = EventDelivery.Queued,
            });
            client.HandlerFailed += err => Debug.LogException(err);
            if (host == null)
            {
                host = new GameObject("Manette");
                UnityEngine.Object.DontDestroyOnLoad(host);
            }
            host.AddComponent<ManetteDispatcher>().Client = client;
            return client;
        }
    }
}
