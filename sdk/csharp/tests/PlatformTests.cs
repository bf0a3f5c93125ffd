// Unit tests of the platform-login helpers that need no server: a Steam ticket's hex, the PKCE pair.
using System;
using System.Text;
using NUnit.Framework;

namespace Manette.Tests
{
    [TestFixture]
    public class PlatformTests
    {
        [Test]
        public void SteamTicketIsLowercaseHexOfItsBytes()
        {
            Assert.AreEqual("00ff10ab", SteamTicket.Hex(new byte[] { 0x00, 0xff, 0x10, 0xab }));
            // Steamworks.NET's buffer is larger than the ticket: only m_cubTicket bytes count.
            Assert.AreEqual("00ff", SteamTicket.Hex(new byte[] { 0x00, 0xff, 0x10, 0xab }, 2));
            Assert.AreEqual("", SteamTicket.Hex(new byte[0]));
            Assert.AreEqual("6d616e65747465", SteamTicket.Hex(Encoding.UTF8.GetBytes("manette")));
            Assert.Throws<ArgumentOutOfRangeException>(() => SteamTicket.Hex(new byte[2], 3));
            Assert.Throws<ArgumentNullException>(() => SteamTicket.Hex(null));
        }

        [Test]
        public void PkceChallengeIsRfc7636S256()
        {
            // RFC 7636, appendix B.
            Assert.AreEqual("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", Pkce.Challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"));
        }

        [Test]
        public void PkcePairIsFreshAndConsistent()
        {
            var a = ManetteClient.CreatePkcePair();
            var b = Pkce.Create();
            Assert.AreEqual(64, a.CodeVerifier.Length);
            StringAssert.IsMatch("^[A-Za-z0-9_-]{64}$", a.CodeVerifier);
            StringAssert.IsMatch("^[A-Za-z0-9_-]{43}$", a.CodeChallenge);
            Assert.AreEqual(Pkce.Challenge(a.CodeVerifier), a.CodeChallenge);
            Assert.AreNotEqual(a.CodeVerifier, b.CodeVerifier);
        }
    }
}

namespace Manette.Tests
{
    /// <summary>
    /// The platform logins against the conformance server (ignored without MANETTE_CONFORMANCE_URL),
    /// beyond the auth_token, auth_steam and auth_discord cases: a Discord code the stand-in never
    /// gave is refused with `invalid_credentials`, the route and the error's typing checked.
    /// </summary>
    [TestFixture]
    public class PlatformServerTests
    {
        string baseUrl, key, control;

        [TestFixtureSetUp]
        public void Start()
        {
            control = Environment.GetEnvironmentVariable("MANETTE_CONFORMANCE_URL");
            if (string.IsNullOrEmpty(control)) return;
            control = control.TrimEnd('/');
            using (var http = new System.Net.Http.HttpClient())
            {
                var cfg = Json.ParseObject(http.GetStringAsync(control + "/config").GetAwaiter().GetResult());
                baseUrl = JsonRead.Str(cfg, "baseUrl");
                key = JsonRead.Str(JsonRead.Obj(cfg, "keys"), "default");
            }
        }

        ManetteClient Client()
        {
            if (baseUrl == null) Assert.Ignore("MANETTE_CONFORMANCE_URL is not set: no conformance server to play against");
            return new ManetteClient(new ClientOptions { BaseUrl = baseUrl, ApiKey = key, Lang = "en", Delivery = EventDelivery.Queued });
        }

        static ManetteException Refused(Func<System.Threading.Tasks.Task> call)
        {
            try { call().GetAwaiter().GetResult(); }
            catch (ManetteException err) { return err; }
            Assert.Fail("expected a ManetteException");
            return null;
        }

        [Test]
        public void ADiscordCodeDiscordNeverGaveIsInvalidCredentials()
        {
            using (var c = Client())
            {
                var pkce = Pkce.Create();
                var err = Refused(() => c.Auth.LoginWithDiscord("code-de-test", pkce.CodeVerifier, "http://127.0.0.1:9/discord"));
                Assert.AreEqual("invalid_credentials", err.Error);
                Assert.AreEqual(401, err.Status);
                Assert.IsNull(c.Auth.Token);
                c.Auth.Guest(newGuest: true).GetAwaiter().GetResult();
                err = Refused(() => c.Auth.LinkWithDiscord("code-de-test"));
                Assert.AreEqual("invalid_credentials", err.Error);
                Assert.IsTrue(c.Auth.Player.Invite, "a refused link leaves the guest a guest");
            }
        }

        [Test]
        public void AnUndeclaredProviderIsFournisseurInconnuAndABadTokenInvalidCredentials()
        {
            using (var c = Client())
            {
                var err = Refused(() => c.Auth.LoginWithToken("inconnu", "a.b.c"));
                Assert.AreEqual("fournisseur_inconnu", err.Error);
                Assert.AreEqual(400, err.Status);
                err = Refused(() => c.Auth.LoginWithToken("conformite-jwt", "pas.un.jeton"));
                Assert.AreEqual("invalid_credentials", err.Error);
                Assert.AreEqual(401, err.Status);
                err = Refused(() => c.Auth.LoginWithSteam("zz"));
                Assert.AreEqual(400, err.Status, err.ToString());
                err = Refused(() => c.Auth.LoginWithSteam(new byte[] { 1, 2, 3, 4 }));
                Assert.AreEqual("invalid_credentials", err.Error, err.ToString());
                Assert.IsNull(c.Auth.Token);
            }
        }
    }
}
