// The realtime paths the conformance cases do not force, against the conformance server
// (ignored without MANETTE_CONFORMANCE_URL): a channel the server closes when its token
// expires is joined again with a fresh token, and events keep coming.
using System;
using System.Collections.Generic;
using System.Net.Http;
using System.Threading.Tasks;
using NUnit.Framework;

namespace Manette.Tests
{
    [TestFixture]
    public class RealtimeTests
    {
        string baseUrl, key;
        int ttl;

        [TestFixtureSetUp]
        public void Start()
        {
            string url = Environment.GetEnvironmentVariable("MANETTE_CONFORMANCE_URL");
            if (string.IsNullOrEmpty(url)) return;
            using (var http = new HttpClient())
            {
                var cfg = Json.ParseObject(http.GetStringAsync(url.TrimEnd('/') + "/config").GetAwaiter().GetResult());
                baseUrl = JsonRead.Str(cfg, "baseUrl");
                key = JsonRead.Str(JsonRead.Obj(cfg, "keys"), "default");
                ttl = (int)JsonRead.Long(cfg, "tokenTtlS", 20);
            }
        }

        static async Task Until(Func<bool> cond, ManetteClient c, string what, int ms)
        {
            var end = DateTime.UtcNow.AddMilliseconds(ms);
            while (true)
            {
                c.DispatchEvents();
                if (cond()) return;
                if (DateTime.UtcNow > end) Assert.Fail("timed out waiting for " + what);
                await Task.Delay(50);
            }
        }

        [Test]
        public void AChannelClosedAtTokenExpiryIsJoinedAgainWithAFreshToken()
        {
            if (baseUrl == null) Assert.Ignore("MANETTE_CONFORMANCE_URL is not set: no conformance server to play against");
            Run().GetAwaiter().GetResult();
        }

        async Task Run()
        {
            var log = new List<string>();
            Func<ManetteClient> make = () => new ManetteClient(new ClientOptions
            {
                BaseUrl = baseUrl, ApiKey = key, Lang = "en", Delivery = EventDelivery.Queued,
                Log = line => { lock (log) log.Add(line); },
            });
            var a = make();
            var b = make();
            string s = Guid.NewGuid().ToString("N").Substring(0, 10);
            var ja = await a.Auth.Register("ta" + s, "ta" + s + "@exemple.fr", "motdepasse-solide");
            await b.Auth.Register("tb" + s, "tb" + s + "@exemple.fr", "motdepasse-solide");
            await a.Matchmaking.Join("1v1", 1000);
            var m = await b.Matchmaking.Join("1v1", 1000);
            Assert.AreEqual("matched", m.Status);
            bool aFirst = m.Participants[0].JoueurId == ja.Id;
            var first = aFirst ? a : b;
            var second = aFirst ? b : a;
            // The listener never renews its token: the server closes its channel at expiry.
            second.Hub.RenewBeforeExpiry = false;
            var actions = new List<long>();
            Partie latest = null;
            var sub = await second.Match(m.PartieId).Subscribe(new MatchSubscription
            {
                OnAction = e => actions.Add(e.NumeroTour), OnEtat = p => latest = p, PollMs = 600000,
            });
            try
            {
                await Until(() => latest != null, second, "the state after the join", 10000);
                await Until(() => { lock (log) return log.Exists(l => l.Contains("closed by the server")); }, second,
                    "the server closing the channel at the token's expiry", (ttl + 15) * 1000);
                await Until(() =>
                {
                    lock (log) return log.FindLastIndex(l => l.StartsWith("realtime: joined")) > log.FindLastIndex(l => l.Contains("closed by the server"));
                }, second, "the channel joined again", 20000);
                // Joined again: an action played now reaches it as an event (the poll is 10 minutes away).
                await first.Match(m.PartieId).Act("jouer", new Dictionary<string, object> { { "case", 0 } });
                await Until(() => actions.Contains(1), second, "the action event after the rejoin", 10000);
            }
            finally
            {
                await sub.Unsubscribe();
                a.Dispose();
                b.Dispose();
            }
        }
    }
}
