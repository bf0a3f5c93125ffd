// ManetteClient: the SDK's whole surface, mirroring the browser SDK (sdk/src/client.ts).
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

[assembly: System.Runtime.CompilerServices.InternalsVisibleTo("Manette.Tests")]

namespace Manette
{
    public sealed class ClientOptions
    {
        /// <summary>The server (`http://localhost:3000`) or the API base (`.../api/public/v1`).</summary>
        public string BaseUrl;
        /// <summary>The game's API key (public, shipped in the game).</summary>
        public string ApiKey;
        /// <summary>Language of the server's messages: `fr` (default) or `en` (sent as Accept-Language).</summary>
        public string Lang = "fr";
        /// <summary>Where the session is kept. Default: memory only.</summary>
        public ISessionStore Storage;
        /// <summary>The HTTP transport. Default: HttpClientTransport.</summary>
        public IHttpTransport Http;
        /// <summary>Makes one WebSocket connection. Default: ClientWebSocketTransport.</summary>
        public Func<IWebSocketTransport> WebSocketFactory;
        /// <summary>Where events are raised (see EventDelivery). Default Auto.</summary>
        public EventDelivery Delivery = EventDelivery.Auto;
        /// <summary>The context events are posted to (Auto); default SynchronizationContext.Current at creation.</summary>
        public SynchronizationContext Context;
        /// <summary>Diagnostics of the SDK's realtime connection (none by default).</summary>
        public Action<string> Log;
    }

    public sealed partial class ManetteClient : IDisposable
    {
        public const string BasePath = "/api/public/v1";
        /// <summary>How long the `etat` of the client's own accepted action may take before the state is re-read.</summary>
        public static readonly TimeSpan OwnEtatWait = TimeSpan.FromSeconds(2);
        public const int DefaultPollMs = 15000;
        static readonly int[] RetryMs = { 300, 1000, 3000 };

        readonly IHttpTransport http;
        readonly Session session;
        readonly Dispatcher dispatcher;
        readonly RealtimeHub hub;
        readonly Action<string> log;

        public string BaseUrl { get; private set; }
        public string ApiKey { get; private set; }
        public string Lang { get; private set; }

        public AuthApi Auth { get; private set; }
        public FilesApi Files { get; private set; }
        public EconomyApi Economy { get; private set; }
        public ShopApi Shop { get; private set; }
        public MatchmakingApi Matchmaking { get; private set; }
        public RealtimeApi Realtime { get; private set; }

        /// <summary>A handler of an SDK event threw (it is caught, never fatal to the SDK).</summary>
        public event Action<Exception> HandlerFailed
        {
            add { dispatcher.HandlerFailed += value; }
            remove { dispatcher.HandlerFailed -= value; }
        }

        public ManetteClient(ClientOptions options)
        {
            if (options == null || string.IsNullOrEmpty(options.ApiKey)) throw new ArgumentException("ManetteClient: ApiKey is required");
            if (string.IsNullOrEmpty(options.BaseUrl)) throw new ArgumentException("ManetteClient: BaseUrl is required");
            BaseUrl = ApiBase(options.BaseUrl);
            ApiKey = options.ApiKey;
            Lang = options.Lang == "en" ? "en" : "fr";
            log = options.Log ?? (_ => { });
            http = options.Http ?? new HttpClientTransport();
            session = new Session(ApiKey, options.Storage ?? new MemorySessionStore());
            dispatcher = new Dispatcher(options.Delivery, options.Context);
            var factory = options.WebSocketFactory ?? (() => new ClientWebSocketTransport());
            hub = new RealtimeHub(() => Realtime.Config(), factory, Lang, log);
            Auth = new AuthApi(this);
            Files = new FilesApi(this);
            Economy = new EconomyApi(this);
            Shop = new ShopApi(this);
            Matchmaking = new MatchmakingApi(this);
            Realtime = new RealtimeApi(this);
            session.Changed += j => dispatcher.Post(() => { var h = Auth.ChangedHandlers; if (h != null) h(j); });
        }

        /// <summary>`http://host` or `http://host/` → `http://host/api/public/v1`; a URL with a path is kept as given.</summary>
        public static string ApiBase(string baseUrl)
        {
            var uri = new Uri(baseUrl);
            string path = uri.AbsolutePath.TrimEnd('/');
            return uri.GetLeftPart(UriPartial.Authority) + (path == "" ? BasePath : path);
        }

        /// <summary>
        /// Runs the queued events (OnAction, OnEtat, OnError, Auth.Changed) on the calling thread,
        /// when the client has no SynchronizationContext: call it every frame (Unity's Update;
        /// ManetteDispatcher does) or in a console program's loop. Answers how many ran.
        /// </summary>
        public int DispatchEvents() { return dispatcher.Drain(); }
        /// <summary>The same as DispatchEvents.</summary>
        public int Poll() { return dispatcher.Drain(); }

        public TableApi Table(string nom) { return new TableApi(this, nom); }

        /// <summary>The game's leaderboards (GET /leaderboards).</summary>
        public async Task<List<Classement>> Leaderboards()
        {
            var body = await Call("GET", "/leaderboards").ConfigureAwait(false);
            return JsonRead.ListOf(body, "data", d => new Classement(d));
        }

        public LeaderboardApi Leaderboard(string id) { return new LeaderboardApi(this, id); }

        public MatchHandle Match(string partieId) { return new MatchHandle(this, partieId); }

        public void Dispose()
        {
            // Closes the realtime socket; the HTTP transport given in the options is the caller's to dispose.
            hub.Shutdown();
        }

        // ---- HTTP ----

        /// <summary>
        /// One call to the API with the session token: the whole JSON answer of a success
        /// (`{ok: true, ...}`); a ManetteException otherwise. An `invalid_token` answer ends the session.
        /// For endpoints the SDK does not wrap.
        /// </summary>
        public async Task<Dictionary<string, object>> Call(string method, string path, object body = null,
            IDictionary<string, object> query = null, string idempotencyKey = null, bool withToken = true,
            CancellationToken cancellationToken = default(CancellationToken))
        {
            string token = withToken ? session.Token : null;
            try
            {
                return await Request(method, path, body, query, token, idempotencyKey, cancellationToken).ConfigureAwait(false);
            }
            catch (ManetteException err)
            {
                if (err.Error == "invalid_token" && token != null) session.ClearIf(token);
                throw;
            }
        }

        async Task<Dictionary<string, object>> Request(string method, string path, object body, IDictionary<string, object> query,
            string token, string idempotencyKey, CancellationToken cancellationToken)
        {
            var req = new HttpRequest { Method = method, Url = BaseUrl + path };
            req.Headers["x-api-key"] = ApiKey;
            req.Headers["Accept-Language"] = Lang;
            if (token != null) req.Headers["x-player-token"] = token;
            if (idempotencyKey != null) req.Headers["Idempotency-Key"] = idempotencyKey;
            if (body != null)
            {
                req.Body = Json.Serialize(body);
                req.Headers["Content-Type"] = "application/json";
            }
            if (query != null)
            {
                var qs = new StringBuilder();
                foreach (var kv in query)
                {
                    if (kv.Value == null) continue;
                    qs.Append(qs.Length == 0 ? '?' : '&');
                    string v = kv.Value is bool ? ((bool)kv.Value ? "true" : "false") : Convert.ToString(kv.Value, CultureInfo.InvariantCulture);
                    qs.Append(Uri.EscapeDataString(kv.Key)).Append('=').Append(Uri.EscapeDataString(v));
                }
                req.Url += qs.ToString();
            }
            HttpResponse res;
            try
            {
                res = await http.SendAsync(req, cancellationToken).ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
            {
                throw ManetteException.Aborted(Lang);
            }
            catch (Exception err)
            {
                throw ManetteException.Network(err, Lang);
            }
            string requestId;
            res.Headers.TryGetValue("x-request-id", out requestId);
            Dictionary<string, object> json = null;
            try { json = Json.Parse(res.Body ?? "") as Dictionary<string, object>; }
            catch (Exception err)
            {
                // An answer cut off or not JSON (a proxy's page): the request may or may not have run.
                if ((res.Status >= 200 && res.Status < 300) || res.Status >= 500 || res.Status == 0) throw ManetteException.Network(err, Lang);
            }
            if (res.Status >= 200 && res.Status < 300 && json != null && JsonRead.Get(json, "ok") is bool && (bool)JsonRead.Get(json, "ok")) return json;
            List<FieldIssue> details = null;
            var list = JsonRead.List(json, "details");
            if (list != null)
            {
                details = new List<FieldIssue>();
                foreach (var item in list)
                {
                    var d = item as Dictionary<string, object>;
                    if (d != null) details.Add(new FieldIssue(JsonRead.Str(d, "champ"), JsonRead.Str(d, "message")));
                }
            }
            string code = JsonRead.Str(json, "error") ?? (res.Status >= 500 ? "internal_error" : "http_error");
            string message = JsonRead.Str(json, "message") ?? (string.IsNullOrEmpty(res.ReasonPhrase) ? "HTTP " + res.Status : res.ReasonPhrase);
            throw new ManetteException(code, res.Status, message, JsonRead.Str(json, "reason"), details, requestId, JsonRead.Str(json, "jusqu_a"));
        }

        /// <summary>
        /// A POST that must not happen twice: one Idempotency-Key for the call, the same on every
        /// retry after no answer (or 429/502/503/504), so a lost answer never does it twice.
        /// </summary>
        internal async Task<Dictionary<string, object>> Retried(string method, string path, object body)
        {
            string key = Util.RandomId();
            for (int attempt = 0; ; attempt++)
            {
                try
                {
                    return await Call(method, path, body, null, key).ConfigureAwait(false);
                }
                catch (ManetteException err)
                {
                    bool again = err.Error == "network_error" || err.Status == 429 || err.Status == 502 || err.Status == 503 || err.Status == 504;
                    if (!again || attempt >= RetryMs.Length) throw;
                }
                await Task.Delay(RetryMs[attempt]).ConfigureAwait(false);
            }
        }

        internal static Dictionary<string, object> Without(Dictionary<string, object> body, string key)
        {
            var copy = new Dictionary<string, object>(body);
            copy.Remove(key);
            return copy;
        }

        internal static string Esc(string s) { return Uri.EscapeDataString(s); }

        internal Session SessionState { get { return session; } }
        internal Dispatcher Events { get { return dispatcher; } }
        internal RealtimeHub Hub { get { return hub; } }
        internal Action<string> Logger { get { return log; } }

        // ---- Parts ----

        public sealed class AuthApi
        {
            readonly ManetteClient c;
            internal AuthApi(ManetteClient client) { c = client; }

            /// <summary>The session's player, or null when logged out.</summary>
            public Joueur Player { get { return c.session.Player; } }
            /// <summary>The session token (for calls the SDK does not wrap); null when logged out.</summary>
            public string Token { get { return c.session.Token; } }
            /// <summary>The player changed (login, logout, a refused token), raised like the other events.</summary>
            public event Action<Joueur> Changed;
            internal Action<Joueur> ChangedHandlers { get { return Changed; } }

            async Task<Joueur> SignedIn(Dictionary<string, object> body)
            {
                var j = new Joueur(JsonRead.Obj(JsonRead.Obj(body, "data"), "joueur"));
                c.session.Set(JsonRead.Str(body, "token"), j);
                return await Task.FromResult(j).ConfigureAwait(false);
            }

            public async Task<Joueur> Register(string pseudo, string email, string password, string pays = null)
            {
                var body = new Dictionary<string, object> { { "pseudo", pseudo }, { "email", email }, { "password", password } };
                if (pays != null) body["pays"] = pays;
                return await SignedIn(await c.Call("POST", "/players/register", body, withToken: false).ConfigureAwait(false)).ConfigureAwait(false);
            }

            /// <summary>Logs in with a pseudo or an e-mail.</summary>
            public async Task<Joueur> Login(string identifiant, string password)
            {
                var body = new Dictionary<string, object> { { "identifiant", identifiant }, { "password", password } };
                return await SignedIn(await c.Call("POST", "/players/login", body, withToken: false).ConfigureAwait(false)).ConfigureAwait(false);
            }

            public async Task<Joueur> LoginWithGoogle(string idToken)
            {
                var body = new Dictionary<string, object> { { "id_token", idToken } };
                return await SignedIn(await c.Call("POST", "/players/google", body, withToken: false).ConfigureAwait(false)).ConfigureAwait(false);
            }

            /// <summary>
            /// Signs in with an identity token (POST /players/login/jeton): `fournisseur` is a provider
            /// of the game file's `connexions` (docs/accounts.md), `jeton` its signed token (a JWT),
            /// each token used once. `fournisseur` "steam" goes to Steam's endpoint with `jeton` as the
            /// ticket (as LoginWithSteam). Session kept. Errors: `fournisseur_inconnu` (400),
            /// `invalid_credentials` (401), `compte_suspendu` (403).
            /// </summary>
            public async Task<Joueur> LoginWithToken(string fournisseur, string jeton)
            {
                if (fournisseur == "steam") return await LoginWithSteam(jeton).ConfigureAwait(false);
                var body = new Dictionary<string, object> { { "fournisseur", fournisseur }, { "jeton", jeton } };
                return await SignedIn(await c.Call("POST", "/players/login/jeton", body, withToken: false).ConfigureAwait(false)).ConfigureAwait(false);
            }

            /// <summary>
            /// Signs in with a Steam ticket (POST /players/login/steam): the hex of the bytes of
            /// `GetAuthTicketForWebApi(identity)` (the game file's `connexions.steam.identite`) or
            /// `GetAuthSessionTicket`. Each ticket signs in once. Session kept. Errors:
            /// `invalid_credentials` (401), `compte_steam_banni` (403, Reason `vac` or `editeur`),
            /// `fournisseur_inconnu` (400), `fournisseur_non_configure` (503, Reason `steam`), `unavailable` (503).
            /// </summary>
            public async Task<Joueur> LoginWithSteam(string ticket)
            {
                var body = new Dictionary<string, object> { { "ticket", ticket } };
                return await SignedIn(await c.Call("POST", "/players/login/steam", body, withToken: false).ConfigureAwait(false)).ConfigureAwait(false);
            }

            /// <summary>The same with the ticket's bytes (the first `length` of them; all when null), hex-encoded by the SDK.</summary>
            public Task<Joueur> LoginWithSteam(byte[] ticket, int? length = null)
            {
                return LoginWithSteam(SteamTicket.Hex(ticket, length));
            }

            /// <summary>
            /// Signs in with a Discord OAuth2 authorization code (POST /players/login/discord): with the
            /// PKCE verifier and the redirect URI of the authorization (Pkce.Create makes the pair), or
            /// the code alone from a Discord Activity's `authorize`. Session kept. Errors:
            /// `invalid_credentials` (401), `fournisseur_inconnu` (400), `fournisseur_non_configure` (503, Reason `discord`).
            /// </summary>
            public async Task<Joueur> LoginWithDiscord(string code, string codeVerifier = null, string redirectUri = null)
            {
                return await SignedIn(await c.Call("POST", "/players/login/discord", DiscordBody(code, codeVerifier, redirectUri), withToken: false).ConfigureAwait(false)).ConfigureAwait(false);
            }

            static Dictionary<string, object> DiscordBody(string code, string codeVerifier, string redirectUri)
            {
                var body = new Dictionary<string, object> { { "code", code } };
                if (codeVerifier != null) body["code_verifier"] = codeVerifier;
                if (redirectUri != null) body["redirect_uri"] = redirectUri;
                return body;
            }

            /// <summary>
            /// Plays without an account (POST /players/invite). The SDK sends this device's
            /// `appareil_id` (made on the first call, kept in the session store), so the same guest
            /// comes back; `appareilId`: the game's own id instead; `newGuest`: none (a new guest).
            /// </summary>
            public async Task<Joueur> Guest(string appareilId = null, bool newGuest = false)
            {
                var body = new Dictionary<string, object>();
                if (!newGuest) body["appareil_id"] = appareilId ?? c.session.DeviceId();
                return await SignedIn(await c.Call("POST", "/players/invite", body, withToken: false).ConfigureAwait(false)).ConfigureAwait(false);
            }

            /// <summary>Turns the signed-in guest into a full account (POST /players/lier), keeping its id and data.</summary>
            public async Task<Joueur> Link(string email, string password, string pseudo = null)
            {
                var body = new Dictionary<string, object>();
                if (pseudo != null) body["pseudo"] = pseudo;
                body["email"] = email;
                body["password"] = password;
                return await Linked(body).ConfigureAwait(false);
            }

            /// <summary>
            /// Links the signed-in guest to an identity token (POST /players/lier {fournisseur, jeton}),
            /// checked as LoginWithToken checks it; `fournisseur` "steam" with a Steam ticket as `jeton`.
            /// The same id, data and session; later logins with that provider open this player.
            /// Errors: `identity_taken` (409: that identity already is a player of the game),
            /// `already_linked` (409), `invalid_credentials` (401), `fournisseur_inconnu` (400).
            /// </summary>
            public async Task<Joueur> LinkWithToken(string fournisseur, string jeton)
            {
                return await Linked(new Dictionary<string, object> { { "fournisseur", fournisseur }, { "jeton", jeton } }).ConfigureAwait(false);
            }

            /// <summary>Links the signed-in guest to a Steam account (a ticket's hex, as LoginWithSteam).</summary>
            public Task<Joueur> LinkWithSteam(string ticket) { return LinkWithToken("steam", ticket); }

            /// <summary>The same with the ticket's bytes, hex-encoded by the SDK.</summary>
            public Task<Joueur> LinkWithSteam(byte[] ticket, int? length = null) { return LinkWithToken("steam", SteamTicket.Hex(ticket, length)); }

            /// <summary>Links the signed-in guest to a Discord account (a code, as LoginWithDiscord).</summary>
            public async Task<Joueur> LinkWithDiscord(string code, string codeVerifier = null, string redirectUri = null)
            {
                var body = DiscordBody(code, codeVerifier, redirectUri);
                body["fournisseur"] = "discord";
                return await Linked(body).ConfigureAwait(false);
            }

            /// <summary>Links the signed-in guest to a Google account (POST /players/lier {id_token}).</summary>
            public async Task<Joueur> LinkWithGoogle(string idToken)
            {
                return await Linked(new Dictionary<string, object> { { "id_token", idToken } }).ConfigureAwait(false);
            }

            async Task<Joueur> Linked(Dictionary<string, object> body)
            {
                var res = await c.Call("POST", "/players/lier", body).ConfigureAwait(false);
                var j = new Joueur(JsonRead.Obj(JsonRead.Obj(res, "data"), "joueur"));
                // The server forgot the device (a return by appareil_id makes a new guest now): so does the SDK.
                c.session.ForgetDevice();
                c.session.SetPlayer(j);
                return j;
            }

            /// <summary>The kept session's player (GET /players/me), or null when there is none or it was revoked.</summary>
            public async Task<Joueur> Restore()
            {
                if (c.session.Token == null) return null;
                try
                {
                    var body = await c.Call("GET", "/players/me").ConfigureAwait(false);
                    var j = new Joueur(JsonRead.Obj(JsonRead.Obj(body, "data"), "joueur"));
                    c.session.SetPlayer(j);
                    return j;
                }
                catch (ManetteException err) when (err.Error == "invalid_token" || err.Error == "missing_player")
                {
                    return null;
                }
            }

            /// <summary>Ends the session on the server (POST /players/logout) and here.</summary>
            public async Task Logout()
            {
                if (c.session.Token == null) return;
                try
                {
                    await c.Call("POST", "/players/logout").ConfigureAwait(false);
                }
                catch (ManetteException err)
                {
                    c.session.Clear();
                    if (err.Error == "invalid_token" || err.Error == "network_error") return;
                    throw;
                }
                c.session.Clear();
            }
        }

        public sealed class ListOptions
        {
            public int? Limit, Offset;
            public string OrderBy, OrderDir;
            /// <summary>Column filters (`where`), sent as query parameters.</summary>
            public Dictionary<string, object> Where;
        }

        public sealed class TableApi
        {
            readonly ManetteClient c;
            readonly string path;
            public string Nom { get; private set; }
            internal TableApi(ManetteClient client, string nom) { c = client; Nom = nom; path = "/tables/" + Esc(nom); }

            public async Task<List<Row>> List(ListOptions opts = null)
            {
                var q = new Dictionary<string, object>();
                if (opts != null)
                {
                    q["limit"] = opts.Limit; q["offset"] = opts.Offset; q["order_by"] = opts.OrderBy; q["order_dir"] = opts.OrderDir;
                    if (opts.Where != null) foreach (var kv in opts.Where) q[kv.Key] = kv.Value;
                }
                var body = await c.Call("GET", path, null, q).ConfigureAwait(false);
                return JsonRead.ListOf(body, "data", d => new Row(d));
            }

            public async Task<Row> Get(string id)
            {
                return new Row(JsonRead.Obj(await c.Call("GET", path + "/" + Esc(id)).ConfigureAwait(false), "data"));
            }

            /// <summary>Inserts a row; with an Idempotency-Key, retried after a lost answer (never two rows).</summary>
            public async Task<Row> Insert(Dictionary<string, object> donnees)
            {
                return new Row(JsonRead.Obj(await c.Retried("POST", path, new Dictionary<string, object> { { "donnees", donnees } }).ConfigureAwait(false), "data"));
            }

            public async Task<Row> Update(string id, Dictionary<string, object> donnees)
            {
                return new Row(JsonRead.Obj(await c.Call("PATCH", path + "/" + Esc(id), new Dictionary<string, object> { { "donnees", donnees } }).ConfigureAwait(false), "data"));
            }

            public async Task<Row> Remove(string id)
            {
                return new Row(JsonRead.Obj(await c.Call("DELETE", path + "/" + Esc(id)).ConfigureAwait(false), "data"));
            }
        }

        public sealed class FilesApi
        {
            readonly ManetteClient c;
            internal FilesApi(ManetteClient client) { c = client; }

            public async Task<Fichier> Upload(string nom, string contenu, string mimeType = "text/plain", bool ecraser = false)
            {
                var body = new Dictionary<string, object> { { "nom", nom }, { "contenu", contenu }, { "mime_type", mimeType } };
                if (ecraser) body["ecraser"] = true;
                var res = await c.Call("POST", "/storage/upload", body).ConfigureAwait(false);
                return new Fichier(JsonRead.Obj(JsonRead.Obj(res, "data"), "fichier"));
            }

            public async Task<List<Fichier>> List()
            {
                return JsonRead.ListOf(await c.Call("GET", "/storage/files").ConfigureAwait(false), "data", d => new Fichier(d));
            }

            public async Task<FichierContenu> Get(string nom)
            {
                var data = JsonRead.Obj(await c.Call("GET", "/storage/files/" + Esc(nom)).ConfigureAwait(false), "data");
                return new FichierContenu { Fichier = new Fichier(JsonRead.Obj(data, "fichier")), Contenu = JsonRead.Str(data, "contenu") };
            }

            public async Task<Fichier> Remove(string nom)
            {
                var res = await c.Call("DELETE", "/storage/files/" + Esc(nom)).ConfigureAwait(false);
                return new Fichier(JsonRead.Obj(JsonRead.Obj(res, "data"), "fichier"));
            }
        }

        public sealed class LeaderboardApi
        {
            readonly ManetteClient c;
            readonly string path;
            public string Id { get; private set; }
            internal LeaderboardApi(ManetteClient client, string id) { c = client; Id = id; path = "/leaderboards/" + Esc(id); }

            public async Task<SubmitResult> Submit(double valeur)
            {
                var res = await c.Call("POST", path + "/submit", new Dictionary<string, object> { { "valeur", valeur } }).ConfigureAwait(false);
                return new SubmitResult(JsonRead.Obj(res, "data"));
            }

            /// <summary>`autour`: "moi" for the window centred on the player.</summary>
            public async Task<List<Score>> Scores(int? limit = null, int? offset = null, string autour = null)
            {
                var q = new Dictionary<string, object> { { "limit", limit }, { "offset", offset }, { "autour", autour } };
                return JsonRead.ListOf(await c.Call("GET", path + "/scores", null, q).ConfigureAwait(false), "data", d => new Score(d));
            }
        }

        public sealed class ShopApi
        {
            readonly ManetteClient c;
            internal ShopApi(ManetteClient client) { c = client; }
            /// <summary>The shop's articles (GET /shop/articles), as the server sends them.</summary>
            public async Task<List<Dictionary<string, object>>> Articles()
            {
                return JsonRead.ListOf(await c.Call("GET", "/shop/articles").ConfigureAwait(false), "data", d => d);
            }
        }

        public sealed class EconomyApi
        {
            readonly ManetteClient c;
            internal EconomyApi(ManetteClient client) { c = client; }

            public async Task<List<Solde>> Wallet()
            {
                return JsonRead.ListOf(await c.Call("GET", "/economie/portefeuille").ConfigureAwait(false), "data", d => new Solde(d));
            }

            public async Task<List<ObjetPossede>> Inventory()
            {
                return JsonRead.ListOf(await c.Call("GET", "/economie/inventaire").ConfigureAwait(false), "data", d => new ObjetPossede(d));
            }

            /// <summary>
            /// Buys `quantite` of the article `code` (POST /shop/acheter) with an Idempotency-Key the
            /// SDK makes, sent again on its own retries, so a lost answer never buys twice.
            /// `idempotencyKey`: the game's own key instead (e.g. kept across a restart).
            /// </summary>
            public async Task<Achat> Buy(string code, int? quantite = null, string idempotencyKey = null)
            {
                var body = new Dictionary<string, object> { { "code", code } };
                if (quantite != null) body["quantite"] = quantite.Value;
                Dictionary<string, object> res = idempotencyKey == null
                    ? await c.Retried("POST", "/shop/acheter", body).ConfigureAwait(false)
                    : await c.Call("POST", "/shop/acheter", body, null, idempotencyKey).ConfigureAwait(false);
                return new Achat(JsonRead.Obj(res, "data"));
            }

            /// <summary>Consumes `quantite` of an object (POST /economie/utiliser): the new inventory.</summary>
            public async Task<List<ObjetPossede>> Use(string objet, int quantite = 1)
            {
                var res = await c.Retried("POST", "/economie/utiliser", new Dictionary<string, object> { { "objet", objet }, { "quantite", quantite } }).ConfigureAwait(false);
                return JsonRead.ListOf(JsonRead.Obj(res, "data"), "inventaire", d => new ObjetPossede(d));
            }
        }

        public sealed class RealtimeApi
        {
            readonly ManetteClient c;
            internal RealtimeApi(ManetteClient client) { c = client; }
            /// <summary>GET /realtime/config: the socket's URL and key, the channel prefix, the player's token and its expiry.</summary>
            public async Task<RealtimeConfig> Config()
            {
                return new RealtimeConfig(Without(await c.Call("GET", "/realtime/config").ConfigureAwait(false), "ok"));
            }
        }
    }
}
