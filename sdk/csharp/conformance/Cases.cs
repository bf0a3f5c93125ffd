// The conformance cases (test/conformance/cases.json) for the C# SDK, defined once: the
// console runner (Program.cs) and the NUnit fixture (tests/ConformanceTests.cs) both run
// them against the conformance server (test/conformance/server.ts).
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Net.Http;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Manette;

namespace Manette.Conformance
{
    public sealed class CaseFailed : Exception
    {
        public CaseFailed(string message) : base(message) { }
    }

    public sealed class ConformanceSuite
    {
        const string Password = "motdepasse-solide";
        // X wins on the top row: X 0, O 3, X 1, O 4, X 2.
        static readonly int[] Moves = { 0, 3, 1, 4, 2 };

        readonly string control;
        readonly HttpClient http = new HttpClient();
        readonly List<ManetteClient> clients = new List<ManetteClient>();
        readonly Action<string> log;
        string baseUrl, keyDefault, keyAutres, tokenProvider;
        int tokenTtlS;
        int n;

        public ConformanceSuite(string controlUrl, Action<string> log = null)
        {
            control = controlUrl.TrimEnd('/');
            this.log = log ?? (_ => { });
        }

        /// <summary>The case ids this suite defines, in the order of cases.json.</summary>
        public IDictionary<string, Func<Task>> Cases()
        {
            return new Dictionary<string, Func<Task>>
            {
                { "auth_register", AuthRegister },
                { "auth_login", AuthLogin },
                { "auth_guest_link", AuthGuestLink },
                { "auth_restore", AuthRestore },
                { "auth_logout", AuthLogout },
                { "auth_token", AuthToken },
                { "auth_steam", AuthSteam },
                { "auth_discord", AuthDiscord },
                { "tables", TablesCase },
                { "files", FilesCase },
                { "leaderboards", LeaderboardsCase },
                { "economy", EconomyCase },
                { "matchmaking", MatchmakingCase },
                { "realtime_config", RealtimeConfigCase },
                { "realtime_room", RealtimeRoom },
                { "match_play", () => PlayWhole(null) },
                { "match_play_etat_aux_autres", () => PlayWhole(keyAutres) },
                { "match_turn_timeout", MatchTurnTimeout },
                { "recovery_realtime_restart", RecoveryRealtimeRestart },
                { "recovery_dropped_etat", RecoveryDroppedEtat },
                { "token_renewal", TokenRenewal },
                { "errors", ErrorsCase },
            };
        }

        /// <summary>Reads the server's config (GET /config); call once before the cases.</summary>
        public async Task Init()
        {
            var cfg = await Control("GET", "/config", null);
            baseUrl = JsonRead.Str(cfg, "baseUrl");
            var keys = JsonRead.Obj(cfg, "keys");
            keyDefault = JsonRead.Str(keys, "default");
            keyAutres = JsonRead.Str(keys, "etat_aux_autres");
            tokenTtlS = (int)JsonRead.Long(cfg, "tokenTtlS", 20);
            tokenProvider = JsonRead.Str(cfg, "tokenProvider") ?? "conformite-jwt";
            if (baseUrl == null || keyDefault == null || keyAutres == null) throw new CaseFailed("GET /config lacks baseUrl or keys");
        }

        /// <summary>Closes every client a case made (their realtime sockets).</summary>
        public void Cleanup()
        {
            lock (clients)
            {
                foreach (var c in clients) c.Dispose();
                clients.Clear();
            }
        }

        // ---- Helpers ----

        async Task<Dictionary<string, object>> Control(string method, string path, object body)
        {
            var msg = new HttpRequestMessage(new HttpMethod(method), control + path);
            if (body != null) msg.Content = new StringContent(Json.Serialize(body), Encoding.UTF8, "application/json");
            using (var res = await http.SendAsync(msg).ConfigureAwait(false))
            {
                string text = await res.Content.ReadAsStringAsync().ConfigureAwait(false);
                if (!res.IsSuccessStatusCode) throw new CaseFailed("control " + method + " " + path + ": HTTP " + (int)res.StatusCode + " " + text);
                return Json.ParseObject(text);
            }
        }

        static void Check(bool cond, string what) { if (!cond) throw new CaseFailed(what); }

        /// <summary>Equal as JSON values (object keys in any order).</summary>
        static void Same(object a, object b, string what)
        {
            string sa = Canonical(a), sb = Canonical(b);
            if (sa != sb) throw new CaseFailed(what + ": " + sa + " is not " + sb);
        }

        static string Canonical(object v)
        {
            var w = v as IJsonValue;
            if (w != null) v = w.ToJson();
            var d = v as IDictionary<string, object>;
            if (d != null)
            {
                var sorted = new SortedDictionary<string, object>(StringComparer.Ordinal);
                foreach (var kv in d) sorted[kv.Key] = Json.Parse(Canonical(kv.Value));
                return Json.Serialize(sorted);
            }
            var s = v as string;
            if (s == null && v is System.Collections.IEnumerable)
            {
                var items = new List<object>();
                foreach (var x in (System.Collections.IEnumerable)v) items.Add(Json.Parse(Canonical(x)));
                return Json.Serialize(items);
            }
            return Json.Serialize(v);
        }

        string Unique(string prefix)
        {
            n++;
            return prefix + (DateTime.UtcNow.Ticks / 10000 % 100000000).ToString("x") + n.ToString() + Guid.NewGuid().ToString("N").Substring(0, 4);
        }

        ManetteClient NewClient(string key = null, string lang = "en", ISessionStore storage = null)
        {
            var c = new ManetteClient(new ClientOptions
            {
                BaseUrl = baseUrl, ApiKey = key ?? keyDefault, Lang = lang, Storage = storage ?? new MemorySessionStore(),
                Delivery = EventDelivery.Queued, Log = line => log("  [sdk] " + line),
            });
            lock (clients) clients.Add(c);
            return c;
        }

        /// <summary>Runs the queued SDK events of every client (as a game's main loop does).</summary>
        void Pump()
        {
            List<ManetteClient> all;
            lock (clients) all = new List<ManetteClient>(clients);
            foreach (var c in all) c.DispatchEvents();
        }

        async Task WaitUntil(Func<bool> cond, string what, int ms = 30000)
        {
            var end = DateTime.UtcNow.AddMilliseconds(ms);
            for (;;)
            {
                Pump();
                if (cond()) return;
                if (DateTime.UtcNow > end) throw new CaseFailed("timed out waiting for " + what);
                await Task.Delay(50).ConfigureAwait(false);
            }
        }

        static async Task<ManetteException> Rejects(Func<Task> call)
        {
            try { await call().ConfigureAwait(false); }
            catch (ManetteException err) { return err; }
            throw new CaseFailed("expected an error, the call succeeded");
        }

        sealed class Registered { public ManetteClient Client; public Joueur Joueur; public string Pseudo; }

        async Task<Registered> Register(string key = null)
        {
            var client = NewClient(key);
            string pseudo = Unique("c");
            var j = await client.Auth.Register(pseudo, pseudo + "@exemple.fr", Password).ConfigureAwait(false);
            return new Registered { Client = client, Joueur = j, Pseudo = pseudo };
        }

        sealed class Seat
        {
            public ManetteClient Client;
            public string Id;
            public Partie Latest;
            public readonly List<long> Actions = new List<long>();
            public MatchSubscriptionHandle Sub;
            public readonly List<string> Errors = new List<string>();
        }

        sealed class Matched
        {
            public string Id;
            public List<Seat> Seats;
            public Func<int, Task> Play;
            public Func<string, Task<Partie>> Finished;
            public Func<Task> Close;
        }

        /// <summary>Two players matched in `mode`, each subscribed to the room; Seats[0] plays first (X).</summary>
        async Task<Matched> MatchTwo(string key = null, string mode = "1v1", int pollMs = ManetteClient.DefaultPollMs, bool subscribe = true)
        {
            var a = await Register(key).ConfigureAwait(false);
            var b = await Register(key).ConfigureAwait(false);
            Check((await a.Client.Matchmaking.Join(mode, 1000).ConfigureAwait(false)).Status == "waiting", "the first player waits");
            var m = await b.Client.Matchmaking.Join(mode, 1000).ConfigureAwait(false);
            Check(m.Status == "matched", "the second player is matched (" + m.Status + ")");
            var byId = new Dictionary<string, ManetteClient> { { a.Joueur.Id, a.Client }, { b.Joueur.Id, b.Client } };
            var seats = m.Participants.Select(p => new Seat { Client = byId[p.JoueurId], Id = p.JoueurId }).ToList();
            string id = m.PartieId;
            if (subscribe)
            {
                foreach (var s in seats)
                {
                    var seat = s;
                    seat.Sub = await seat.Client.Match(id).Subscribe(new MatchSubscription
                    {
                        OnAction = e => seat.Actions.Add(e.NumeroTour),
                        OnEtat = p => seat.Latest = p,
                        OnError = e => seat.Errors.Add(e.ToString()),
                        PollMs = pollMs,
                    }).ConfigureAwait(false);
                }
            }
            var result = new Matched { Id = id, Seats = seats };
            result.Play = async k =>
            {
                var s = seats[k % 2];
                await WaitUntil(() => s.Latest != null && s.Latest.NumeroTour == k + 1 && s.Latest.TourJoueur == s.Id,
                    "player " + (k % 2 == 1 ? "O" : "X") + " knows turn " + (k + 1) + " is its own").ConfigureAwait(false);
                await s.Client.Match(id).Act("jouer", new Dictionary<string, object> { { "case", Moves[k] } }).ConfigureAwait(false);
            };
            result.Finished = async winner =>
            {
                winner = winner ?? seats[0].Id;
                foreach (var s in seats)
                {
                    var seat = s;
                    await WaitUntil(() => seat.Latest != null && seat.Latest.Statut == "terminee", "every client sees the end").ConfigureAwait(false);
                }
                var state = await seats[0].Client.Match(id).State().ConfigureAwait(false);
                Check(state.Statut == "terminee" && state.GagnantId == winner, "the match is over, won by " + winner + " (" + state + ")");
                foreach (var s in seats) Same(s.Latest, state, "a client's final view and GET /match/state");
                return state;
            };
            result.Close = async () => { foreach (var s in seats) if (s.Sub != null) await s.Sub.Unsubscribe().ConfigureAwait(false); };
            return result;
        }

        async Task PlayWhole(string key)
        {
            var m = await MatchTwo(key).ConfigureAwait(false);
            try
            {
                for (int k = 0; k < Moves.Length; k++) await m.Play(k).ConfigureAwait(false);
                var state = await m.Finished(null).ConfigureAwait(false);
                Same(state.NumeroTour, Moves.Length + 1, "numero_tour at the end");
                Pump();
                // Each player got the action events of the other's moves (each numbered by its turn),
                // and of its own (from the room, or from the HTTP answer on its own channel).
                for (int i = 0; i < m.Seats.Count; i++)
                {
                    var s = m.Seats[i];
                    for (int t = 1; t <= Moves.Length; t++)
                        Check(s.Actions.Contains(t), "seat " + i + " got the action event of turn " + t + " (got " + Json.Serialize(s.Actions) + ")");
                }
                var history = await m.Seats[1].Client.Match(m.Id).History().ConfigureAwait(false);
                Same(history.Actions.Select(a => JsonRead.Get(a.Donnees, "case")).ToList(), Moves.Select(x => (object)(long)x).ToList(), "the history's moves");
            }
            finally { await m.Close().ConfigureAwait(false); }
        }

        // ---- The cases ----

        async Task AuthRegister()
        {
            var client = NewClient();
            Joueur told = null;
            int changes = 0;
            client.Auth.Changed += p => { told = p; changes++; };
            string pseudo = Unique("r");
            var j = await client.Auth.Register(pseudo, pseudo + "@exemple.fr", Password);
            Same(j.Pseudo, pseudo, "the pseudo");
            // Events are queued (EventDelivery.Queued) until the game runs them.
            Check(changes == 0, "Auth.Changed waits for DispatchEvents");
            client.DispatchEvents();
            Check(changes == 1 && told != null && told.Id == j.Id, "Auth.Changed told the new player once DispatchEvents ran");
            Check(client.Auth.Token != null, "a session token is kept");
            Same(client.Auth.Player == null ? null : client.Auth.Player.Id, j.Id, "the kept player");
            var restored = await client.Auth.Restore();
            Same(restored == null ? null : restored.Id, j.Id, "the session is the new player's");
        }

        async Task AuthLogin()
        {
            var r = await Register();
            Same((await NewClient().Auth.Login(r.Pseudo, Password)).Id, r.Joueur.Id, "login by pseudo");
            Same((await NewClient().Auth.Login(r.Pseudo + "@exemple.fr", Password)).Id, r.Joueur.Id, "login by e-mail");
        }

        async Task AuthGuestLink()
        {
            // The SDK's own device id (kept in the client's storage), then the game's own one.
            var storage = new MemorySessionStore();
            var first = NewClient(storage: storage);
            var guest = await first.Auth.Guest();
            Check(guest.Invite, "a guest");
            Same((await NewClient(storage: storage).Auth.Guest()).Id, guest.Id, "the same device (kept id) gets the same guest");
            string device = Unique("appareil-").PadRight(20, 'x');
            var other = await NewClient().Auth.Guest(device);
            Same((await NewClient().Auth.Guest(device)).Id, other.Id, "the same device (given id) gets the same guest");
            Check(other.Id != guest.Id, "another device, another guest");
            string pseudo = Unique("g");
            var linked = await first.Auth.Link(pseudo + "@exemple.fr", Password, pseudo);
            Same(new object[] { linked.Id, linked.Invite, linked.Pseudo }, new object[] { guest.Id, false, pseudo }, "the linked account keeps the id");
            Same((await NewClient().Auth.Login(pseudo, Password)).Id, guest.Id, "the linked account logs in");
        }

        async Task AuthRestore()
        {
            string path = Path.Combine(Path.GetTempPath(), "manette-conformance-" + Guid.NewGuid().ToString("N") + ".json");
            try
            {
                var first = NewClient(storage: new FileSessionStore(path));
                string pseudo = Unique("s");
                var j = await first.Auth.Register(pseudo, pseudo + "@exemple.fr", Password);
                // The client "restarts": a new instance over the same persisted storage, no login.
                var restarted = NewClient(storage: new FileSessionStore(path));
                Same(restarted.Auth.Player == null ? null : restarted.Auth.Player.Id, j.Id, "the kept player before any call");
                var restored = await restarted.Auth.Restore();
                Same(restored == null ? null : restored.Id, j.Id, "the restored player");
                var or = (await restarted.Economy.Wallet()).FirstOrDefault(s => s.Code == "or");
                Same(or == null ? (object)null : or.Montant, 100L, "an authenticated call of the restored session");
            }
            finally { if (File.Exists(path)) File.Delete(path); }
        }

        async Task AuthLogout()
        {
            var storage = new MemorySessionStore();
            var c = NewClient(storage: storage);
            string pseudo = Unique("l");
            await c.Auth.Register(pseudo, pseudo + "@exemple.fr", Password);
            // A copy of the kept session as it was before the logout (another device's copy).
            var copy = new MemorySessionStore();
            foreach (var k in new[] { "manette.session.", "manette.appareil." })
            {
                string key = k + ShortHashOf(keyDefault);
                string v = storage.Get(key);
                if (v != null) copy.Set(key, v);
            }
            await c.Auth.Logout();
            Check(c.Auth.Token == null && c.Auth.Player == null, "the session is cleared");
            Same(await NewClient(storage: storage).Auth.Restore(), null, "restore after logout");
            // The old token: refused with invalid_token (401), and the stale copy is cleared.
            var stale = NewClient(storage: copy);
            Check(stale.Auth.Token != null, "the copy holds the old token");
            var err = await Rejects(() => stale.Call("GET", "/players/me"));
            Same(new object[] { err.Status, err.Error }, new object[] { 401, "invalid_token" }, "the old token");
            Check(stale.Auth.Token == null, "a refused token ends the session");
            Same(await stale.Auth.Restore(), null, "restore with the old token");
        }

        /// <summary>A fresh identity token of the conformance provider for `sub` (POST /identity-token).</summary>
        async Task<string> IdentityToken(string sub)
        {
            string jeton = JsonRead.Str(await Control("POST", "/identity-token", new Dictionary<string, object> { { "sub", sub } }), "jeton");
            Check(!string.IsNullOrEmpty(jeton), "POST /identity-token gives a jeton");
            return jeton;
        }

        /// <summary>A test ticket of the Steam stand-in: the hex of `manette-test-ticket:<SteamID64>:<unique>`.</summary>
        string SteamTestTicket(string steamId)
        {
            return SteamTicket.Hex(Encoding.UTF8.GetBytes("manette-test-ticket:" + steamId + ":" + Unique("t")));
        }

        static readonly Random SteamIds = new Random();
        static string NewSteamId()
        {
            lock (SteamIds) return "7656119" + SteamIds.Next(0, 100000).ToString("D5") + SteamIds.Next(0, 100000).ToString("D5");
        }

        async Task AuthToken()
        {
            string sub = Unique("sujet-");
            string first = await IdentityToken(sub);
            var a = NewClient();
            var j = await a.Auth.LoginWithToken(tokenProvider, first);
            Check(j != null && !string.IsNullOrEmpty(j.Id) && !j.Invite, "a token of a new subject gives a player (" + j + ")");
            Check(a.Auth.Token != null && a.Auth.Player != null && a.Auth.Player.Id == j.Id, "the session is kept");
            Same((await a.Auth.Restore()).Id, j.Id, "the session is the token's player");
            var b = NewClient();
            Same((await b.Auth.LoginWithToken(tokenProvider, await IdentityToken(sub))).Id, j.Id, "a second token of the same subject: the same player");
            var again = NewClient();
            var used = await Rejects(() => again.Auth.LoginWithToken(tokenProvider, first));
            Same(new object[] { used.Error, used.Status }, new object[] { "invalid_credentials", 401 }, "the first token again");
            Check(again.Auth.Token == null, "no session after a refused token");
            // A guest links a token of another new subject: the same id, no longer a guest.
            var g = NewClient();
            var guest = await g.Auth.Guest(newGuest: true);
            Check(guest.Invite, "a guest");
            string other = Unique("sujet-");
            var linked = await g.Auth.LinkWithToken(tokenProvider, await IdentityToken(other));
            Same(new object[] { linked.Id, linked.Invite }, new object[] { guest.Id, false }, "the linked guest keeps its id");
            Same(g.Auth.Player.Invite, false, "the kept player is linked");
            Same((await NewClient().Auth.LoginWithToken(tokenProvider, await IdentityToken(other))).Id, guest.Id, "the linked identity opens the former guest");
            var unknown = await Rejects(() => NewClient().Auth.LoginWithToken("inconnu", first));
            Same(new object[] { unknown.Error, unknown.Status }, new object[] { "fournisseur_inconnu", 400 }, "an undeclared provider");
            var h = NewClient();
            await h.Auth.Guest(newGuest: true);
            string ofSub = await IdentityToken(sub);
            var conflict = await Rejects(() => h.Auth.LinkWithToken(tokenProvider, ofSub));
            Same(new object[] { conflict.Error, conflict.Status }, new object[] { "identity_taken", 409 }, "linking an identity that is a player");
        }

        async Task AuthSteam()
        {
            string steamId = NewSteamId();
            string first = SteamTestTicket(steamId);
            var a = NewClient();
            var j = await a.Auth.LoginWithSteam(first);
            Check(j != null && !string.IsNullOrEmpty(j.Id), "a ticket of a new SteamID gives a player");
            Check(a.Auth.Token != null && a.Auth.Player != null && a.Auth.Player.Id == j.Id, "the session is kept");
            Same((await a.Auth.Restore()).Id, j.Id, "the session is the ticket's player");
            // Another ticket of that SteamID, as bytes (the SDK hex-encodes them), and through LoginWithToken("steam", ...).
            var bytes = Encoding.UTF8.GetBytes("manette-test-ticket:" + steamId + ":" + Unique("b"));
            Same((await NewClient().Auth.LoginWithSteam(bytes)).Id, j.Id, "another ticket of the same SteamID: the same player");
            Same((await NewClient().Auth.LoginWithToken("steam", SteamTestTicket(steamId))).Id, j.Id, "LoginWithToken(\"steam\", ticket)");
            var again = NewClient();
            var used = await Rejects(() => again.Auth.LoginWithSteam(first));
            Same(new object[] { used.Error, used.Status }, new object[] { "invalid_credentials", 401 }, "the first ticket again");
            Check(again.Auth.Token == null, "no session after a refused ticket");
            // A guest links a Steam account.
            var g = NewClient();
            var guest = await g.Auth.Guest(newGuest: true);
            string other = NewSteamId();
            var linked = await g.Auth.LinkWithSteam(SteamTestTicket(other));
            Same(new object[] { linked.Id, linked.Invite }, new object[] { guest.Id, false }, "the linked guest keeps its id");
            Same((await NewClient().Auth.LoginWithSteam(SteamTestTicket(other))).Id, guest.Id, "the linked Steam account opens the former guest");
            var h = NewClient();
            await h.Auth.Guest(newGuest: true);
            var conflict = await Rejects(() => h.Auth.LinkWithSteam(SteamTestTicket(steamId)));
            Same(new object[] { conflict.Error, conflict.Status }, new object[] { "identity_taken", 409 }, "linking a Steam account that is a player");
        }

        /// <summary>What Discord gives when the user `userId` approves the game's application (POST /discord-code).</summary>
        async Task<string> DiscordCode(string userId, string codeChallenge, string redirectUri = null)
        {
            var body = new Dictionary<string, object> { { "user_id", userId }, { "username", "u" + userId }, { "code_challenge", codeChallenge } };
            if (redirectUri != null) body["redirect_uri"] = redirectUri;
            string code = JsonRead.Str(await Control("POST", "/discord-code", body), "code");
            Check(!string.IsNullOrEmpty(code), "POST /discord-code gives a code");
            return code;
        }

        /// <summary>A new Discord user id (a snowflake: digits).</summary>
        static string NewDiscordUserId()
        {
            lock (SteamIds) return "1" + SteamIds.Next(0, 1000000000).ToString("D9") + SteamIds.Next(0, 100000000).ToString("D8");
        }

        async Task AuthDiscord()
        {
            string userId = NewDiscordUserId();
            const string redirectUri = "https://conformite.manette.test/discord";
            var pair = Pkce.Create();
            string first = await DiscordCode(userId, pair.CodeChallenge, redirectUri);
            var a = NewClient();
            var j = await a.Auth.LoginWithDiscord(first, pair.CodeVerifier, redirectUri);
            Check(j != null && !string.IsNullOrEmpty(j.Id) && !j.Invite, "a code of a new Discord user gives a player");
            Check(a.Auth.Token != null && a.Auth.Player != null && a.Auth.Player.Id == j.Id, "the session is kept");
            Same((await a.Auth.Restore()).Id, j.Id, "the session is the code's player");
            var again = Pkce.Create();
            string second = await DiscordCode(userId, again.CodeChallenge);
            Same((await NewClient().Auth.LoginWithDiscord(second, again.CodeVerifier)).Id, j.Id, "another code of the same Discord user: the same player");
            var b = NewClient();
            var used = await Rejects(() => b.Auth.LoginWithDiscord(first, pair.CodeVerifier, redirectUri));
            Same(new object[] { used.Error, used.Status }, new object[] { "invalid_credentials", 401 }, "the first code again");
            Check(b.Auth.Token == null, "no session after a refused code");
            // A guest links a Discord account.
            var g = NewClient();
            var guest = await g.Auth.Guest(newGuest: true);
            Check(guest.Invite, "a guest");
            var other = Pkce.Create();
            var linked = await g.Auth.LinkWithDiscord(await DiscordCode(NewDiscordUserId(), other.CodeChallenge), other.CodeVerifier);
            Same(new object[] { linked.Id, linked.Invite }, new object[] { guest.Id, false }, "the linked guest keeps its id");
            Same(g.Auth.Player.Invite, false, "the kept player is linked");
            var h = NewClient();
            await h.Auth.Guest(newGuest: true);
            var taken = Pkce.Create();
            string ofUser = await DiscordCode(userId, taken.CodeChallenge);
            var conflict = await Rejects(() => h.Auth.LinkWithDiscord(ofUser, taken.CodeVerifier));
            Same(new object[] { conflict.Error, conflict.Status }, new object[] { "identity_taken", 409 }, "linking a Discord account that is a player");
            Same(h.Auth.Player.Invite, true, "a refused link leaves the guest a guest");
        }

        /// <summary>The key the SDK stores a game's session under (FNV-1a of the API key, base 36).</summary>
        static string ShortHashOf(string s)
        {
            uint h = 0x811c9dc5;
            foreach (char ch in s) { h ^= ch; unchecked { h *= 0x01000193; } }
            const string digits = "0123456789abcdefghijklmnopqrstuvwxyz";
            var sb = new StringBuilder();
            do { sb.Insert(0, digits[(int)(h % 36)]); h /= 36; } while (h > 0);
            return sb.ToString();
        }

        async Task TablesCase()
        {
            var r = await Register();
            var notes = r.Client.Table("notes");
            var row = await notes.Insert(new Dictionary<string, object> { { "texte", "bonjour" }, { "points", 3 } });
            Same((await notes.Get(row.Id)).Donnees, new Dictionary<string, object> { { "texte", "bonjour" }, { "points", 3 } }, "get");
            Check((await notes.List()).Any(x => x.Id == row.Id), "list has the row");
            Same((await notes.Update(row.Id, new Dictionary<string, object> { { "points", 7 } })).Donnees,
                new Dictionary<string, object> { { "texte", "bonjour" }, { "points", 7 } }, "update");
            await notes.Remove(row.Id);
            Same((await Rejects(() => notes.Get(row.Id))).Error, "row_not_found", "the removed row");
        }

        async Task FilesCase()
        {
            var r = await Register();
            string contenu = "sauvegarde: niveau 3 — é ✓ \"guillemets\" \\ 😀";
            var f = await r.Client.Files.Upload("sauvegarde.txt", contenu, "text/plain");
            Same(f.Nom, "sauvegarde.txt", "uploaded");
            Check((await r.Client.Files.List()).Any(x => x.Nom == "sauvegarde.txt"), "listed");
            Same((await r.Client.Files.Get("sauvegarde.txt")).Contenu, contenu, "the same content");
            await r.Client.Files.Remove("sauvegarde.txt");
            Same((await Rejects(() => r.Client.Files.Get("sauvegarde.txt"))).Error, "file_not_found", "removed");
        }

        async Task LeaderboardsCase()
        {
            var r = await Register();
            Check((await r.Client.Leaderboards()).Any(b => b.Id == "meilleur-score"), "the board is listed");
            var s = await r.Client.Leaderboard("meilleur-score").Submit(4242);
            Same(s.Valeur, 4242.0, "submitted");
            var scores = await r.Client.Leaderboard("meilleur-score").Scores(autour: "moi");
            var mine = scores.FirstOrDefault(x => x.JoueurId == r.Joueur.Id);
            Same(mine == null ? (object)null : mine.Valeur, 4242.0, "the player's entry");
        }

        async Task EconomyCase()
        {
            var r = await Register();
            Func<List<Solde>, object> or = w => { var s = w.FirstOrDefault(x => x.Code == "or"); return s == null ? (object)null : s.Montant; };
            Same(or(await r.Client.Economy.Wallet()), 100L, "the starting balance");
            string key = Unique("achat-");
            var bought = await r.Client.Economy.Buy("potion", idempotencyKey: key);
            Same(or(bought.Portefeuille), 70L, "the balance after the purchase");
            await r.Client.Economy.Buy("potion", idempotencyKey: key);
            Same(or(await r.Client.Economy.Wallet()), 70L, "a repeat of the same key buys nothing");
            var potion = (await r.Client.Economy.Inventory()).FirstOrDefault(o => o.Code == "potion");
            Same(potion == null ? (object)null : potion.Quantite, 1L, "one potion");
            // The SDK's own key (one per call): a second purchase is another purchase.
            var again = await r.Client.Economy.Buy("potion");
            Same(or(again.Portefeuille), 40L, "a purchase with the SDK's key");
        }

        async Task MatchmakingCase()
        {
            var a = await Register();
            var b = await Register();
            Same((await a.Client.Matchmaking.Join("1v1", 1000)).Status, "waiting", "join");
            Same((await a.Client.Matchmaking.Status()).Status, "waiting", "status");
            Same((await a.Client.Matchmaking.Leave()).Status, "idle", "leave");
            Same((await a.Client.Matchmaking.Status()).Status, "idle", "not in the queue any more");
            await a.Client.Matchmaking.Join("1v1", 1000);
            var wait = a.Client.Matchmaking.WaitForMatch(500);
            var m = await b.Client.Matchmaking.Join("1v1", 1000);
            Same(m.Status, "matched", "two players matched");
            Check(!string.IsNullOrEmpty(m.PartieId), "a match id");
            var told = await wait;
            Same(told.PartieId, m.PartieId, "the first player learns its match (WaitForMatch)");
            Same((await a.Client.Matchmaking.Status()).PartieId, m.PartieId, "the first player's status");
        }

        async Task RealtimeConfigCase()
        {
            var r = await Register();
            var c = await r.Client.Realtime.Config();
            Check(c.Url != null && c.Url.StartsWith("ws"), "a ws url");
            Check(!string.IsNullOrEmpty(c.Key) && !string.IsNullOrEmpty(c.ChannelPrefix) && c.Private && !string.IsNullOrEmpty(c.Token), "key, channel_prefix, private, token");
            Check(c.TokenExpiry != null && c.TokenExpiry.Value > DateTimeOffset.UtcNow, "the token expires in the future");
        }

        async Task RealtimeRoom()
        {
            var m = await MatchTwo(subscribe: false);
            var seat = m.Seats[0];
            Partie seen = null;
            var sub = await seat.Client.Match(m.Id).Subscribe(new MatchSubscription { OnEtat = p => seen = p });
            // The join's re-read tells the state.
            await WaitUntil(() => seen != null, "the state after the join");
            Same(seen.Id, m.Id, "the room's match");
            await sub.Unsubscribe();
            var outsider = await Register();
            var err = await Rejects(() => outsider.Client.Match(m.Id).Subscribe(new MatchSubscription()));
            Check(err.Error == "realtime_refused" && err.Status == 0 && !string.IsNullOrEmpty(err.Message), "a typed error (" + err + ")");
        }

        async Task MatchTurnTimeout()
        {
            var m = await MatchTwo(mode: "chrono", pollMs: 2000);
            try { await m.Finished(m.Seats[1].Id); }
            finally { await m.Close(); }
        }

        async Task RecoveryRealtimeRestart()
        {
            var m = await MatchTwo(pollMs: 2000);
            try
            {
                await m.Play(0);
                await m.Play(1);
                await Control("POST", "/realtime/stop", null);
                try { await m.Play(2); } // committed while Realtime is down: its events are lost
                finally { await Control("POST", "/realtime/start", null); }
                await m.Play(3);
                await m.Play(4);
                await m.Finished(null);
            }
            finally { await m.Close(); }
        }

        async Task RecoveryDroppedEtat()
        {
            var m = await MatchTwo(pollMs: 2000);
            try
            {
                long before = JsonRead.Long(await Control("GET", "/realtime/dropped", null), "dropped");
                await m.Play(0);
                await Control("POST", "/realtime/drop", new Dictionary<string, object> { { "event", "etat" }, { "count", 1 }, { "topic", "manette_partie_" + m.Id } });
                await m.Play(1);
                await m.Play(2);
                await m.Play(3);
                await m.Play(4);
                await m.Finished(null);
                Check(JsonRead.Long(await Control("GET", "/realtime/dropped", null), "dropped") > before, "an etat was dropped");
            }
            finally { await m.Close(); }
        }

        async Task TokenRenewal()
        {
            var m = await MatchTwo();
            try
            {
                // Longer than two lifetimes of the realtime token: the SDK renews it meanwhile.
                var end = DateTime.UtcNow.AddSeconds(tokenTtlS * 2 + 5);
                while (DateTime.UtcNow < end) { Pump(); await Task.Delay(200); }
                Pump();
                var after = m.Seats.Select(s => s.Actions.Count).ToList();
                for (int k = 0; k < Moves.Length; k++) await m.Play(k);
                await m.Finished(null);
                for (int i = 0; i < m.Seats.Count; i++) Check(m.Seats[i].Actions.Count > after[i], "seat " + i + " still receives action events");
            }
            finally { await m.Close(); }
        }

        async Task ErrorsCase()
        {
            var r = await Register();
            var en = await Rejects(() => NewClient(lang: "en").Auth.Login(r.Pseudo, "mauvais-mot-de-passe"));
            Same(new object[] { en.Error, en.Status, en.Message }, new object[] { "invalid_credentials", 401, "Wrong login or password." }, "in English");
            var fr = await Rejects(() => NewClient(lang: "fr").Auth.Login(r.Pseudo, "mauvais-mot-de-passe"));
            Same(new object[] { fr.Error, fr.Status, fr.Message }, new object[] { "invalid_credentials", 401, "Identifiant ou mot de passe incorrect." }, "in French");
            Check(!string.IsNullOrEmpty(en.RequestId), "the error carries the answer's x-request-id");
            var m = await MatchTwo(subscribe: false);
            var refused = await Rejects(() => m.Seats[1].Client.Match(m.Id).Act("jouer", new Dictionary<string, object> { { "case", 4 } }));
            Check(refused.Error == "action_refusee" && refused.Status == 409 && !string.IsNullOrEmpty(refused.Reason) && !string.IsNullOrEmpty(refused.Message),
                "a refused move has its reason (" + refused + ")");
            var invalid = await Rejects(() => r.Client.Table("notes").Insert(new Dictionary<string, object> { { "points", "pas un nombre" } }));
            Check(invalid.Error == "validation_failed" && invalid.Status == 400 && invalid.Details != null && invalid.Details.Count > 0,
                "validation_failed carries details (" + invalid + ")");
        }
    }
}
