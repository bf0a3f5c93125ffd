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
