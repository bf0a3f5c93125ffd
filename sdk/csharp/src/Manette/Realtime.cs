// Supabase Realtime (a Phoenix socket, vsn 1.0.0 JSON) for the SDK: one socket per client,
// opened on the first subscription, with the player's token from GET /realtime/config
// renewed before it expires (docs/matches.md, "Tokens", "Joining a private room"); the
// socket reconnects with backoff and rejoins its channels; a channel the server closes
// (an expired token, a quota) is joined again with a fresh token.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Threading;
using System.Threading.Tasks;

namespace Manette
{
    internal sealed class RealtimeListener
    {
        public Dictionary<string, Action<Dictionary<string, object>>> Events = new Dictionary<string, Action<Dictionary<string, object>>>();
        /// <summary>Every (re)join of the channel (events may have been missed before it).</summary>
        public Action OnJoined;
        /// <summary>The channel cannot be joined any more after it was joined once.</summary>
        public Action<ManetteException> OnFatal;
    }

    internal sealed class ChannelHandle
    {
        readonly Func<Task> stop;
        public ChannelHandle(Func<Task> stop) { this.stop = stop; }
        public Task StopAsync() { return stop(); }
    }

    internal sealed class RealtimeHub
    {
        /// <summary>Renew this long before the token's expiry (or at half its life, if sooner).</summary>
        public static TimeSpan RenewBefore = TimeSpan.FromSeconds(60);
        public static TimeSpan HeartbeatEvery = TimeSpan.FromSeconds(25);
        public static TimeSpan JoinTimeout = TimeSpan.FromSeconds(15);
        const int MaxJoinErrors = 5;
        /// <summary>Waits before reconnecting the socket, as realtime-js's reconnectAfterMs.</summary>
        static readonly int[] ReconnectMs = { 1000, 2000, 5000, 10000 };
        const int RejoinMaxMs = 10000;

        sealed class Channel
        {
            public string Topic;        // without "realtime:"
            public bool Private;
            public string JoinRef;
            public bool Joined;
            public bool Closed;         // left by this client
            public bool First = true;   // not joined yet
            public int Errors, Closes;
            public readonly List<RealtimeListener> Listeners = new List<RealtimeListener>();
            public readonly TaskCompletionSource<bool> Ready = new TaskCompletionSource<bool>();
            public Timer JoinTimer, RetryTimer;
        }

        readonly Func<Task<RealtimeConfig>> fetchConfig;
        readonly Func<IWebSocketTransport> socketFactory;
        readonly string lang;
        readonly Action<string> log;
        readonly object gate = new object();
        readonly Dictionary<string, Channel> topics = new Dictionary<string, Channel>();
        readonly Dictionary<string, Action<Dictionary<string, object>>> replies = new Dictionary<string, Action<Dictionary<string, object>>>();

        Task<RealtimeConfig> opening;
        RealtimeConfig cfg;
        string token;
        IWebSocketTransport ws;
        bool connected;
        CancellationTokenSource life;
        Timer renewTimer;
        int users;
        long nextRef;

        public RealtimeHub(Func<Task<RealtimeConfig>> fetchConfig, Func<IWebSocketTransport> socketFactory, string lang, Action<string> log)
        {
            this.fetchConfig = fetchConfig;
            this.socketFactory = socketFactory;
            this.lang = lang;
            this.log = log ?? (_ => { });
        }

        string NextRef() { return Interlocked.Increment(ref nextRef).ToString(CultureInfo.InvariantCulture); }

        Task<RealtimeConfig> Open()
        {
            lock (gate)
            {
                if (opening != null && !opening.IsFaulted && !opening.IsCanceled) return opening;
                opening = OpenNow();
                return opening;
            }
        }

        async Task<RealtimeConfig> OpenNow()
        {
            var c = await fetchConfig().ConfigureAwait(false);
            lock (gate)
            {
                cfg = c;
                token = c.Token;
                life = new CancellationTokenSource();
                var cts = life;
                Task.Run(() => RunSocket(cts.Token));
            }
            ScheduleRenew(c);
            return c;
        }

        /// <summary>
        /// Joins the topic `topicOf` names, telling `listener` its events and every (re)join.
        /// Completes once joined the first time; throws (realtime_refused, realtime_unavailable)
        /// when refused or not joined in time. A topic joined twice by this client is one channel.
        /// </summary>
        public async Task<ChannelHandle> Join(Func<RealtimeConfig, Task<string>> topicOf, RealtimeListener listener, bool? isPrivate = null)
        {
            // Counted from the start: a channel left meanwhile (the last one) must not close
            // the socket this join is about to use.
            lock (gate) users++;
            RealtimeConfig c;
            string topic;
            try
            {
                c = await Open().ConfigureAwait(false);
                topic = await topicOf(c).ConfigureAwait(false);
            }
            catch (Exception)
            {
                Release();
                throw;
            }
            Channel ch;
            bool joinNow = false, alreadyJoined = false;
            lock (gate)
            {
                if (!topics.TryGetValue(topic, out ch))
                {
                    ch = new Channel { Topic = topic, Private = isPrivate ?? (topic.StartsWith("manette_joueur_", StringComparison.Ordinal) || c.Private) };
                    topics[topic] = ch;
                    var created = ch;
                    ch.JoinTimer = new Timer(_ =>
                    {
                        bool waiting;
                        lock (gate) waiting = created.First; // a timer disposed as the join answered may still fire
                        if (waiting) Fail(created, new ManetteException("realtime_unavailable", 0, Text("join")));
                    }, null, JoinTimeout, Timeout.InfiniteTimeSpan);
                    joinNow = connected;
                }
                else alreadyJoined = ch.Joined;
                ch.Listeners.Add(listener);
            }
            if (joinNow) await SendJoin(ch).ConfigureAwait(false);
            if (alreadyJoined && listener.OnJoined != null) ThreadPool.QueueUserWorkItem(_ => { lock (gate) { if (!ch.Listeners.Contains(listener)) return; } listener.OnJoined(); });
            bool left = false;
            Func<Task> stop = async () =>
            {
                bool close;
                lock (gate)
                {
                    if (left) return;
                    left = true;
                    ch.Listeners.Remove(listener);
                    close = ch.Listeners.Count == 0;
                }
                if (close) await CloseChannel(ch).ConfigureAwait(false);
                Release();
            };
            try
            {
                await ch.Ready.Task.ConfigureAwait(false);
            }
            catch (Exception)
            {
                await stop().ConfigureAwait(false);
                throw;
            }
            return new ChannelHandle(stop);
        }

        async Task CloseChannel(Channel ch)
        {
            string joinRef;
            bool wasJoined;
            lock (gate)
            {
                if (ch.Closed) return;
                ch.Closed = true;
                if (ch.JoinTimer != null) ch.JoinTimer.Dispose();
                if (ch.RetryTimer != null) ch.RetryTimer.Dispose();
                Channel current;
                if (topics.TryGetValue(ch.Topic, out current) && current == ch) topics.Remove(ch.Topic);
                joinRef = ch.JoinRef;
                wasJoined = ch.Joined;
                ch.Joined = false;
            }
            if (wasJoined) await Send("realtime:" + ch.Topic, "phx_leave", new Dictionary<string, object>(), NextRef(), joinRef).ConfigureAwait(false);
        }

        void Release()
        {
            CancellationTokenSource cts = null;
            IWebSocketTransport socket = null;
            lock (gate)
            {
                users--;
                if (users > 0 || opening == null) return;
                opening = null;
                cts = life;
                life = null;
                socket = ws;
                ws = null;
                connected = false;
                if (renewTimer != null) { renewTimer.Dispose(); renewTimer = null; }
            }
            if (cts != null) cts.Cancel();
            if (socket != null) Task.Run(async () => { await socket.CloseAsync().ConfigureAwait(false); socket.Dispose(); });
        }

        /// <summary>Closes the socket now (the client is disposed).</summary>
        public void Shutdown()
        {
            CancellationTokenSource cts;
            IWebSocketTransport socket;
            lock (gate)
            {
                cts = life; life = null; socket = ws; ws = null; connected = false; opening = null;
                if (renewTimer != null) { renewTimer.Dispose(); renewTimer = null; }
                foreach (var ch in topics.Values) { ch.Closed = true; if (ch.JoinTimer != null) ch.JoinTimer.Dispose(); if (ch.RetryTimer != null) ch.RetryTimer.Dispose(); }
                topics.Clear();
            }
            if (cts != null) cts.Cancel();
            if (socket != null) socket.Dispose();
        }

        // ---- The socket ----

        Uri SocketUri(RealtimeConfig c)
        {
            string url = c.Url ?? "";
            if (url.StartsWith("http://", StringComparison.OrdinalIgnoreCase)) url = "ws://" + url.Substring(7);
            else if (url.StartsWith("https://", StringComparison.OrdinalIgnoreCase)) url = "wss://" + url.Substring(8);
            url = url.TrimEnd('/');
            return new Uri(url + "/websocket?apikey=" + Uri.EscapeDataString(c.Key ?? "") + "&vsn=1.0.0");
        }

        async Task RunSocket(CancellationToken stop)
        {
            int attempt = 0;
            while (!stop.IsCancellationRequested)
            {
                IWebSocketTransport socket = null;
                try
                {
                    RealtimeConfig c;
                    lock (gate) c = cfg;
                    socket = socketFactory();
                    using (var connectTimeout = CancellationTokenSource.CreateLinkedTokenSource(stop))
                    {
                        connectTimeout.CancelAfter(TimeSpan.FromSeconds(10));
                        await socket.ConnectAsync(SocketUri(c), connectTimeout.Token).ConfigureAwait(false);
                    }
                    List<Channel> toJoin;
                    lock (gate)
                    {
                        if (stop.IsCancellationRequested) { socket.Dispose(); return; }
                        ws = socket;
                        connected = true;
                        toJoin = new List<Channel>(topics.Values);
                    }
                    log("realtime: connected");
                    if (attempt > 0)
                    {
                        // A reconnection: the token may have expired meanwhile.
                        await RenewNow(false).ConfigureAwait(false);
                    }
                    attempt = 0;
                    foreach (var ch in toJoin) await SendJoin(ch).ConfigureAwait(false);
                    using (var beat = CancellationTokenSource.CreateLinkedTokenSource(stop))
                    {
                        var heartbeat = Heartbeat(socket, beat.Token);
                        try
                        {
                            for (;;)
                            {
                                string text = await socket.ReceiveAsync(stop).ConfigureAwait(false);
                                if (text == null) break;
                                Receive(text);
                            }
                        }
                        finally { beat.Cancel(); }
                    }
                }
                catch (Exception err)
                {
                    if (!stop.IsCancellationRequested) log("realtime: socket failed: " + err.Message);
                }
                Disconnected(socket);
                if (socket != null) socket.Dispose();
                if (stop.IsCancellationRequested) return;
                int wait = ReconnectMs[Math.Min(attempt, ReconnectMs.Length - 1)];
                attempt++;
                try { await Task.Delay(wait, stop).ConfigureAwait(false); } catch (OperationCanceledException) { return; }
            }
        }

        void Disconnected(IWebSocketTransport socket)
        {
            List<Action<Dictionary<string, object>>> pending;
            lock (gate)
            {
                if (ws == socket) { ws = null; connected = false; }
                foreach (var ch in topics.Values) ch.Joined = false;
                pending = new List<Action<Dictionary<string, object>>>(replies.Values);
                replies.Clear();
            }
            // Replies that will never come: told as a lost connection (not a refusal).
            foreach (var p in pending) p(null);
        }

        async Task Heartbeat(IWebSocketTransport socket, CancellationToken stop)
        {
            string waiting = null;
            bool answered = true;
            try
            {
                for (;;)
                {
                    await Task.Delay(HeartbeatEvery, stop).ConfigureAwait(false);
                    if (!answered)
                    {
                        // No answer to the last heartbeat: the connection is dead; the receive loop ends.
                        log("realtime: heartbeat timeout");
                        socket.Dispose();
                        return;
                    }
                    answered = false;
                    waiting = NextRef();
                    lock (gate) replies[waiting] = _ => { answered = true; };
                    await SendOn(socket, "phoenix", "heartbeat", new Dictionary<string, object>(), waiting, null).ConfigureAwait(false);
                }
            }
            catch (Exception) { /* stopped, or the socket is gone */ }
        }

        Task Send(string topic, string evt, Dictionary<string, object> payload, string reference, string joinRef)
        {
            IWebSocketTransport socket;
            lock (gate) socket = connected ? ws : null;
            if (socket == null) return Task.FromResult(false);
            return SendOn(socket, topic, evt, payload, reference, joinRef);
        }

        async Task SendOn(IWebSocketTransport socket, string topic, string evt, Dictionary<string, object> payload, string reference, string joinRef)
        {
            var msg = new Dictionary<string, object> { { "topic", topic }, { "event", evt }, { "payload", payload }, { "ref", reference } };
            if (joinRef != null) msg["join_ref"] = joinRef;
            try { await socket.SendAsync(Json.Serialize(msg), CancellationToken.None).ConfigureAwait(false); }
            catch (Exception err) { log("realtime: send failed: " + err.Message); }
        }

        async Task SendJoin(Channel ch)
        {
            string reference = NextRef();
            string t;
            lock (gate)
            {
                if (ch.Closed || !connected) return;
                ch.JoinRef = reference;
                t = token;
                replies[reference] = reply => OnJoinReply(ch, reference, reply);
            }
            var payload = new Dictionary<string, object>
            {
                { "config", new Dictionary<string, object> {
                    { "broadcast", new Dictionary<string, object> { { "self", false } } },
                    { "presence", new Dictionary<string, object> { { "enabled", false } } },
                    { "private", ch.Private } } },
            };
            if (t != null) payload["access_token"] = t;
            await Send("realtime:" + ch.Topic, "phx_join", payload, reference, reference).ConfigureAwait(false);
        }

        void OnJoinReply(Channel ch, string reference, Dictionary<string, object> reply)
        {
            if (reply == null) return; // the socket dropped: rejoined on reconnect
            string status = JsonRead.Str(reply, "status");
            List<RealtimeListener> told;
            lock (gate)
            {
                if (ch.Closed || ch.JoinRef != reference) return;
                if (status == "ok")
                {
                    ch.Joined = true;
                    ch.Errors = 0;
                    ch.Closes = 0;
                    if (ch.First)
                    {
                        ch.First = false;
                        if (ch.JoinTimer != null) ch.JoinTimer.Dispose();
                    }
                    told = new List<RealtimeListener>(ch.Listeners);
                }
                else told = null;
            }
            if (told != null)
            {
                log("realtime: joined " + ch.Topic);
                ch.Ready.TrySetResult(true);
                foreach (var l in told) if (l.OnJoined != null) l.OnJoined();
                return;
            }
            // Refused (not a participant, an expired token): a fresh token may be what it needs.
            string reason = JsonRead.Str(JsonRead.Obj(reply, "response"), "reason");
            log("realtime: join refused on " + ch.Topic + ": " + reason);
            int errors;
            bool first;
            lock (gate) { errors = ++ch.Errors; first = ch.First; }
            if (errors >= (first ? 2 : MaxJoinErrors))
            {
                Fail(ch, new ManetteException("realtime_refused", 0, reason ?? Text("refused")));
                return;
            }
            ScheduleRejoin(ch, 1000);
        }

        void ScheduleRejoin(Channel ch, int delayMs)
        {
            lock (gate)
            {
                if (ch.Closed) return;
                if (ch.RetryTimer != null) ch.RetryTimer.Dispose();
                ch.RetryTimer = new Timer(_ =>
                {
                    Task.Run(async () =>
                    {
                        await RenewNow(false).ConfigureAwait(false);
                        bool again;
                        lock (gate) again = !ch.Closed && !ch.Joined;
                        if (again) await SendJoin(ch).ConfigureAwait(false);
                    });
                }, null, delayMs, Timeout.Infinite);
            }
        }

        void Fail(Channel ch, ManetteException err)
        {
            List<RealtimeListener> told;
            bool first;
            lock (gate)
            {
                if (ch.Closed) return;
                first = ch.First;
                ch.First = false;
                told = new List<RealtimeListener>(ch.Listeners);
            }
            var _ = CloseChannel(ch);
            if (first) ch.Ready.TrySetException(err);
            else foreach (var l in told) if (l.OnFatal != null) l.OnFatal(err);
        }

        void Receive(string text)
        {
            Dictionary<string, object> msg;
            try { msg = Json.ParseObject(text); }
            catch (Exception) { log("realtime: unreadable frame"); return; }
            string topic = JsonRead.Str(msg, "topic");
            string evt = JsonRead.Str(msg, "event");
            var payload = JsonRead.Obj(msg, "payload");
            object refObj = JsonRead.Get(msg, "ref");
            string reference = refObj == null ? null : Convert.ToString(refObj, CultureInfo.InvariantCulture);
            if (evt == "phx_reply")
            {
                Action<Dictionary<string, object>> handler = null;
                lock (gate)
                {
                    if (reference != null && replies.TryGetValue(reference, out handler)) replies.Remove(reference);
                }
                if (handler != null) handler(payload ?? new Dictionary<string, object>());
                return;
            }
            if (topic == null || !topic.StartsWith("realtime:", StringComparison.Ordinal)) return;
            Channel ch;
            lock (gate) { if (!topics.TryGetValue(topic.Substring(9), out ch)) return; }
            if (evt == "broadcast")
            {
                string name = JsonRead.Str(payload, "event");
                var inner = JsonRead.Obj(payload, "payload");
                if (name == null || inner == null) return;
                List<RealtimeListener> listeners;
                lock (gate) listeners = new List<RealtimeListener>(ch.Listeners);
                foreach (var l in listeners)
                {
                    Action<Dictionary<string, object>> h;
                    if (l.Events.TryGetValue(name, out h))
                    {
                        try { h(inner); } catch (Exception err) { log("realtime: listener failed: " + err); }
                    }
                }
                return;
            }
            if (evt == "system")
            {
                if (JsonRead.Str(payload, "status") == "error") log("realtime: channel " + ch.Topic + " error: " + JsonRead.Str(payload, "message"));
                return;
            }
            if (evt == "phx_close" || evt == "phx_error")
            {
                // The server closed the channel (an expired token, a quota): join it again after
                // 1 s, 2 s, 4 s... (at most 10 s) with a fresh token.
                object jr = JsonRead.Get(msg, "join_ref") ?? refObj;
                string joinRef = jr == null ? null : Convert.ToString(jr, CultureInfo.InvariantCulture);
                int closes;
                lock (gate)
                {
                    if (ch.Closed || (joinRef != null && joinRef != ch.JoinRef)) return;
                    ch.Joined = false;
                    closes = ch.Closes++;
                }
                log("realtime: channel " + ch.Topic + " closed by the server");
                ScheduleRejoin(ch, Math.Min(RejoinMaxMs, 1000 << Math.Min(closes, 10)));
            }
        }

        // ---- Token renewal ----

        /// <summary>False: tokens are not renewed before expiry (tests of the server closing a channel).</summary>
        internal bool RenewBeforeExpiry = true;

        void ScheduleRenew(RealtimeConfig c)
        {
            var expiry = c.TokenExpiry;
            lock (gate)
            {
                if (renewTimer != null) { renewTimer.Dispose(); renewTimer = null; }
                if (expiry == null || opening == null || !RenewBeforeExpiry) return;
                double left = (expiry.Value - DateTimeOffset.UtcNow).TotalMilliseconds;
                // min(expiry - 60 s, half the time left) (about every five minutes with ten-minute
                // tokens); a token shorter than that margin is renewed at half its life.
                double early = left - RenewBefore.TotalMilliseconds;
                double delay = Math.Max(1000, early > 0 ? Math.Min(early, left / 2) : left / 2);
                renewTimer = new Timer(_ => { var t = RenewNow(true); }, null, (long)delay, Timeout.Infinite);
            }
        }

        /// <summary>A fresh token, sent on every joined channel (`access_token`); retried every 5 s on failure when `reschedule`.</summary>
        public async Task RenewNow(bool reschedule)
        {
            lock (gate) { if (opening == null) return; }
            try
            {
                var c = await fetchConfig().ConfigureAwait(false);
                List<Channel> joined;
                lock (gate)
                {
                    if (opening == null) return;
                    cfg = c;
                    token = c.Token;
                    joined = new List<Channel>();
                    foreach (var ch in topics.Values) if (ch.Joined) joined.Add(ch);
                }
                if (c.Token != null)
                {
                    foreach (var ch in joined)
                        await Send("realtime:" + ch.Topic, "access_token", new Dictionary<string, object> { { "access_token", c.Token } }, NextRef(), ch.JoinRef).ConfigureAwait(false);
                }
                log("realtime: token renewed until " + c.TokenExpireLe);
                ScheduleRenew(c);
            }
            catch (ManetteException err) when (err.Error == "invalid_token" || err.Error == "missing_player")
            {
                // A revoked session: no new token; the channels close at expiry.
            }
            catch (Exception err)
            {
                log("realtime: renewal failed: " + err.Message);
                if (!reschedule) return;
                lock (gate)
                {
                    if (opening == null) return;
                    if (renewTimer != null) renewTimer.Dispose();
                    renewTimer = new Timer(_ => { var t = RenewNow(true); }, null, 5000, Timeout.Infinite);
                }
            }
        }

        string Text(string what)
        {
            if (lang == "en") return what == "join" ? "Realtime could not be joined." : "Realtime refused the subscription.";
            return what == "join" ? "Le temps réel est injoignable." : "Le temps réel a refusé l’abonnement.";
        }
    }
}
