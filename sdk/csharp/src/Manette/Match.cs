// Matches and matchmaking: the HTTP calls, and a match's room with the recovery rules of an
// at-most-once Realtime (docs/matches.md, "Realtime delivers at most once: clients re-read").
using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;

namespace Manette
{
    /// <summary>What a match subscription tells the game (raised where the client's events are: see EventDelivery).</summary>
    public sealed class MatchSubscription
    {
        /// <summary>Each action (the others' and this client's own), in every realtime.evenements setting.</summary>
        public Action<MatchActionEvent> OnAction;
        /// <summary>
        /// The match's state, never older than the last one: each `etat` event, and a fresh
        /// GET /match/state whenever an event may have been missed: after every (re)join, on a
        /// gap in `numero_tour`, when the `etat` of this client's own accepted action has not
        /// come within 2 s, and after PollMs without any event while the match is on.
        /// </summary>
        public Action<Partie> OnEtat;
        /// <summary>The room cannot be joined any more (e.g. refused after it was joined), or a re-read was refused.</summary>
        public Action<ManetteException> OnError;
        /// <summary>Re-read the state after this long without an event while the match is on. Default 15000 ms (at least 500).</summary>
        public int PollMs = ManetteClient.DefaultPollMs;
    }

    /// <summary>A joined match room; Unsubscribe leaves it.</summary>
    public sealed class MatchSubscriptionHandle : IDisposable
    {
        readonly Func<Task> stop;
        readonly Func<Partie> latest;
        internal MatchSubscriptionHandle(Func<Task> stop, Func<Partie> latest) { this.stop = stop; this.latest = latest; }
        /// <summary>The last state told to OnEtat (or about to be), null before the first.</summary>
        public Partie Latest { get { return latest(); } }
        public Task Unsubscribe() { return stop(); }
        public void Dispose() { var t = stop(); }
    }

    public sealed class MatchHandle
    {
        readonly ManetteClient c;
        public string Id { get; private set; }
        internal MatchHandle(ManetteClient client, string id) { c = client; Id = id; }

        public async Task<Partie> State()
        {
            var body = await c.Call("GET", "/match/state", null, new Dictionary<string, object> { { "partie_id", Id } }).ConfigureAwait(false);
            return new Partie(JsonRead.Obj(body, "partie"));
        }

        /// <summary>One page of the accepted actions (GET /match/history), with the initial state.</summary>
        public async Task<MatchHistory> History(long? depuis = null, int? limit = null)
        {
            var q = new Dictionary<string, object> { { "partie_id", Id }, { "depuis", depuis }, { "limit", limit } };
            return new MatchHistory(ManetteClient.Without(await c.Call("GET", "/match/history", null, q).ConfigureAwait(false), "ok"));
        }

        /// <summary>Plays an action (POST /match/action): the new state. `numeroTour`: the turn this client believes current.</summary>
        public async Task<Partie> Act(string action, Dictionary<string, object> donnees = null, long? numeroTour = null)
        {
            var sent = donnees ?? new Dictionary<string, object>();
            var body = new Dictionary<string, object> { { "partie_id", Id }, { "action", action }, { "donnees", sent } };
            if (numeroTour != null) body["numero_tour"] = numeroTour.Value;
            var res = await c.Call("POST", "/match/action", body).ConfigureAwait(false);
            var partie = new Partie(JsonRead.Obj(res, "partie"));
            foreach (var told in c.AcceptedWatchers(Id)) told(partie, action, sent, numeroTour);
            return partie;
        }

        /// <summary>Joins the match's room; completes once joined (throws realtime_refused when refused).</summary>
        public Task<MatchSubscriptionHandle> Subscribe(MatchSubscription handlers)
        {
            return new MatchFollower(c, this, handlers).Start();
        }
    }

    /// <summary>One subscription to a match: the events, and the re-reads that make up for lost ones.</summary>
    internal sealed class MatchFollower
    {
        readonly ManetteClient c;
        readonly MatchHandle handle;
        readonly MatchSubscription h;
        readonly object gate = new object();
        readonly int pollMs;
        readonly string me;
        Partie latest;
        bool stopped;
        DateTime lastHeard = DateTime.UtcNow;
        bool reading, again;
        string setting = "action_etat";
        bool ownChannel;
        Timer poll;
        readonly List<Timer> ownWaits = new List<Timer>();
        Action<Partie, string, Dictionary<string, object>, long?> expectOwn;
        ChannelHandle channel;

        public MatchFollower(ManetteClient client, MatchHandle handle, MatchSubscription handlers)
        {
            c = client;
            this.handle = handle;
            h = handlers ?? new MatchSubscription();
            pollMs = Math.Max(500, h.PollMs);
            var p = c.SessionState.Player;
            me = p == null ? null : p.Id;
        }

        Partie Latest { get { lock (gate) return latest; } }

        /// <summary>Events and re-reads may cross: never go back to an older state (terminee and annulee are final).</summary>
        void Deliver(Partie p)
        {
            lock (gate)
            {
                if (stopped || p == null) return;
                if (latest != null && (p.NumeroTour < latest.NumeroTour
                    || (p.NumeroTour == latest.NumeroTour && p.MajLeTime < latest.MajLeTime)
                    || (!latest.EnCours && p.EnCours))) return;
                latest = p;
                var onEtat = h.OnEtat;
                if (onEtat != null) c.Events.Post(() => onEtat(p));
            }
        }

        void TellAction(MatchActionEvent e)
        {
            lock (gate)
            {
                if (stopped) return;
                var onAction = h.OnAction;
                if (onAction != null) c.Events.Post(() => onAction(e));
            }
        }

        void TellError(ManetteException err)
        {
            lock (gate)
            {
                if (stopped) return;
                var onError = h.OnError;
                if (onError != null) c.Events.Post(() => onError(err));
            }
        }

        /// <summary>One read at a time; a request made meanwhile runs once it ends.</summary>
        void Reread()
        {
            lock (gate)
            {
                if (stopped) return;
                if (reading) { again = true; return; }
                reading = true;
            }
            Task.Run(async () =>
            {
                for (;;)
                {
                    try
                    {
                        var p = await handle.State().ConfigureAwait(false);
                        lock (gate) lastHeard = DateTime.UtcNow;
                        Deliver(p);
                    }
                    catch (ManetteException err)
                    {
                        if (err.Error != "network_error") TellError(err);
                    }
                    catch (Exception err) { c.Logger("match: re-read failed: " + err.Message); }
                    lock (gate)
                    {
                        if (!again || stopped) { reading = false; return; }
                        again = false;
                    }
                }
            });
        }

        /// <summary>A `numero_tour` beyond the expected one means an event was missed.</summary>
        bool Gap(long numeroTour, long ahead)
        {
            lock (gate) return latest != null && numeroTour > latest.NumeroTour + ahead;
        }

        void Played(MatchActionEvent e)
        {
            // Played in a turn after the last state known: an `etat` was missed.
            if (Gap(e.NumeroTour, 0)) Reread();
            TellAction(e);
        }

        void OnActionEvent(Dictionary<string, object> payload)
        {
            lock (gate) lastHeard = DateTime.UtcNow;
            Played(new MatchActionEvent(payload));
        }

        void OnEtatEvent(Dictionary<string, object> payload)
        {
            // A player's own channel carries the events of all its matches.
            if (JsonRead.Str(payload, "id") != handle.Id) return;
            lock (gate) lastHeard = DateTime.UtcNow;
            var action = JsonRead.Obj(payload, "action");
            string s;
            lock (gate) s = setting;
            if (s != "action_etat" && action != null)
            {
                // One event per action: the action it carries, then the state (as `etat` always was).
                Played(new MatchActionEvent(action));
                var partie = new Partie(ManetteClient.Without(payload, "action"));
                if (Gap(partie.NumeroTour, 1)) Reread();
                Deliver(partie);
                return;
            }
            var p = new Partie(payload);
            if (Gap(p.NumeroTour, 1)) Reread();
            Deliver(p);
        }

        /// <summary>
        /// This client's own accepted action. On its own channel (etat_aux_autres) nothing comes
        /// back: the HTTP answer is told as the room would have, the action then its state.
        /// Elsewhere its `etat` should follow at once; re-read if it has not within 2 s.
        /// </summary>
        void ExpectOwn(Partie partie, string action, Dictionary<string, object> donnees, long? numeroTour)
        {
            bool own;
            lock (gate)
            {
                if (stopped) return;
                own = ownChannel;
            }
            if (own)
            {
                MatchActionEvent told = null;
                lock (gate)
                {
                    lastHeard = DateTime.UtcNow;
                    long turn = numeroTour ?? (latest != null && latest.NumeroTour <= partie.NumeroTour ? latest.NumeroTour : partie.NumeroTour);
                    if (latest == null || partie.NumeroTour > latest.NumeroTour || partie.MajLeTime > latest.MajLeTime)
                    {
                        told = new MatchActionEvent(new Dictionary<string, object> {
                            { "joueur_id", me }, { "action", action }, { "donnees", donnees }, { "numero_tour", turn } });
                    }
                }
                if (told != null) TellAction(told);
                Deliver(partie);
                return;
            }
            long expected = partie.NumeroTour;
            lock (gate)
            {
                if (latest != null && latest.NumeroTour >= expected) return;
                Timer t = null;
                t = new Timer(_ =>
                {
                    bool late;
                    lock (gate)
                    {
                        ownWaits.Remove(t);
                        late = latest == null || latest.NumeroTour < expected;
                    }
                    t.Dispose();
                    if (late) Reread();
                }, null, Timeout.Infinite, Timeout.Infinite);
                ownWaits.Add(t);
                t.Change(ManetteClient.OwnEtatWait, Timeout.InfiniteTimeSpan);
            }
        }

        void PollTick()
        {
            bool due;
            lock (gate)
            {
                due = !stopped && (latest == null || latest.EnCours) && (DateTime.UtcNow - lastHeard).TotalMilliseconds >= pollMs;
                if (due) lastHeard = DateTime.UtcNow;
            }
            if (due) Reread();
        }

        void End()
        {
            lock (gate)
            {
                stopped = true;
                if (poll != null) poll.Dispose();
                foreach (var t in ownWaits) t.Dispose();
                ownWaits.Clear();
            }
            c.RemoveAcceptedWatcher(handle.Id, expectOwn);
        }

        /// <summary>The topic to join, after the game's realtime.evenements (GET /realtime/config).</summary>
        async Task<string> TopicOf(RealtimeConfig cfg)
        {
            string room = cfg.ChannelPrefix + handle.Id;
            SetSetting(cfg.Evenements ?? "action_etat");
            if (cfg.Evenements != "etat_aux_autres" || me == null) return room;
            // etat_aux_autres: a participant hears the others' actions on its own channel; a
            // spectator on the room. Which one is this client: the state says.
            Partie p = Latest;
            if (p == null) p = await handle.State().ConfigureAwait(false);
            Deliver(p);
            return SetOwnChannel(p) ? "manette_joueur_" + me : room;
        }

        void SetSetting(string s) { lock (gate) setting = s; }

        bool SetOwnChannel(Partie p)
        {
            bool participant = false;
            foreach (var x in p.Participants) if (x.JoueurId == me) participant = true;
            lock (gate) ownChannel = participant;
            return participant;
        }

        public async Task<MatchSubscriptionHandle> Start()
        {
            expectOwn = ExpectOwn;
            c.AddAcceptedWatcher(handle.Id, expectOwn);
            int every = Math.Max(250, pollMs / 4);
            poll = new Timer(_ => PollTick(), null, every, every);
            var listener = new RealtimeListener();
            listener.Events["action"] = OnActionEvent;
            listener.Events["etat"] = OnEtatEvent;
            // Every (re)join follows a gap in which events may have been missed.
            listener.OnJoined = Reread;
            listener.OnFatal = TellError;
            try
            {
                channel = await c.Hub.Join(TopicOf, listener).ConfigureAwait(false);
            }
            catch (Exception)
            {
                End();
                throw;
            }
            var joined = channel;
            bool left = false;
            return new MatchSubscriptionHandle(async () =>
            {
                lock (gate) { if (left) return; left = true; }
                End();
                await joined.StopAsync().ConfigureAwait(false);
            }, () => Latest);
        }
    }

    public sealed partial class ManetteClient
    {
        readonly Dictionary<string, List<Action<Partie, string, Dictionary<string, object>, long?>>> accepted =
            new Dictionary<string, List<Action<Partie, string, Dictionary<string, object>, long?>>>();

        internal void AddAcceptedWatcher(string partieId, Action<Partie, string, Dictionary<string, object>, long?> w)
        {
            lock (accepted)
            {
                List<Action<Partie, string, Dictionary<string, object>, long?>> list;
                if (!accepted.TryGetValue(partieId, out list)) accepted[partieId] = list = new List<Action<Partie, string, Dictionary<string, object>, long?>>();
                list.Add(w);
            }
        }

        internal void RemoveAcceptedWatcher(string partieId, Action<Partie, string, Dictionary<string, object>, long?> w)
        {
            lock (accepted)
            {
                List<Action<Partie, string, Dictionary<string, object>, long?>> list;
                if (!accepted.TryGetValue(partieId, out list)) return;
                list.Remove(w);
                if (list.Count == 0) accepted.Remove(partieId);
            }
        }

        internal List<Action<Partie, string, Dictionary<string, object>, long?>> AcceptedWatchers(string partieId)
        {
            lock (accepted)
            {
                List<Action<Partie, string, Dictionary<string, object>, long?>> list;
                return accepted.TryGetValue(partieId, out list) ? new List<Action<Partie, string, Dictionary<string, object>, long?>>(list) : new List<Action<Partie, string, Dictionary<string, object>, long?>>();
            }
        }

        public sealed class MatchmakingApi
        {
            readonly ManetteClient c;
            internal MatchmakingApi(ManetteClient client) { c = client; }

            public async Task<MatchStatus> Join(string modeJeu, double eloActuel = 1000)
            {
                var body = new Dictionary<string, object> { { "mode_jeu", modeJeu }, { "elo_actuel", eloActuel } };
                return new MatchStatus(Without(await c.Call("POST", "/matchmaking/join", body).ConfigureAwait(false), "ok"));
            }

            public async Task<MatchStatus> Status()
            {
                return new MatchStatus(Without(await c.Call("GET", "/matchmaking/status").ConfigureAwait(false), "ok"));
            }

            public async Task<MatchStatus> Leave()
            {
                return new MatchStatus(Without(await c.Call("POST", "/matchmaking/leave").ConfigureAwait(false), "ok"));
            }

            /// <summary>
            /// Completes with the matched status: the player channel's `matched` event, with polling
            /// (every `pollMs`, the queue's heartbeat) as the fallback. Throws `not_queued` when the
            /// player is not in the queue, `aborted` when cancelled.
            /// </summary>
            public async Task<MatchStatus> WaitForMatch(int pollMs = 2000, CancellationToken cancellationToken = default(CancellationToken))
            {
                pollMs = Math.Max(500, pollMs);
                var first = await Status().ConfigureAwait(false);
                if (first.Status == "matched") return first;
                var done = new TaskCompletionSource<MatchStatus>();
                ChannelHandle channel = null;
                var player = c.SessionState.Player;
                if (player != null)
                {
                    var listener = new RealtimeListener();
                    listener.Events["matched"] = payload => done.TrySetResult(new MatchStatus(payload));
                    var _ = c.Hub.Join(cfg => Task.FromResult("manette_joueur_" + player.Id), listener, true).ContinueWith(t =>
                    {
                        if (t.Status != TaskStatus.RanToCompletion) return; // realtime unavailable: polling alone
                        if (done.Task.IsCompleted) { var s = t.Result.StopAsync(); } else channel = t.Result;
                    });
                }
                try
                {
                    while (!done.Task.IsCompleted)
                    {
                        var delay = Task.Delay(pollMs, cancellationToken);
                        await Task.WhenAny(delay, done.Task).ConfigureAwait(false);
                        if (cancellationToken.IsCancellationRequested) throw ManetteException.Aborted(c.Lang);
                        if (done.Task.IsCompleted) break;
                        try
                        {
                            var s = await Status().ConfigureAwait(false);
                            if (s.Status == "matched") done.TrySetResult(s);
                            else if (s.Status == "idle")
                                throw new ManetteException("not_queued", 0, c.Lang == "en" ? "Not in the matchmaking queue." : "Pas dans la file d’attente.");
                        }
                        catch (ManetteException err) when (err.Error == "network_error") { }
                    }
                    return await done.Task.ConfigureAwait(false);
                }
                finally
                {
                    done.TrySetCanceled();
                    if (channel != null) { var s = channel.StopAsync(); }
                }
            }
        }
    }
}
