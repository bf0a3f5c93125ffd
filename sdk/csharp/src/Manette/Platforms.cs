// Helpers for the platform logins: a Steam ticket's hex, a PKCE pair for Discord's OAuth2.
using System;
using System.Security.Cryptography;
using System.Text;

namespace Manette
{
    /// <summary>A Steam ticket as Manette takes it: the lowercase hex of its bytes.</summary>
    public static class SteamTicket
    {
        /// <summary>
        /// The hex of the first `length` bytes of `ticket` (all of them when null): for Steamworks.NET,
        /// `SteamTicket.Hex(response.m_rgubTicket, response.m_cubTicket)` in the
        /// GetTicketForWebApiResponse_t callback.
        /// </summary>
        public static string Hex(byte[] ticket, int? length = null)
        {
            if (ticket == null) throw new ArgumentNullException("ticket");
            int n = length ?? ticket.Length;
            if (n < 0 || n > ticket.Length) throw new ArgumentOutOfRangeException("length");
            const string digits = "0123456789abcdef";
            var sb = new StringBuilder(n * 2);
            for (int i = 0; i < n; i++) sb.Append(digits[ticket[i] >> 4]).Append(digits[ticket[i] & 15]);
            return sb.ToString();
        }
    }

    /// <summary>A PKCE pair (RFC 7636, method S256) for an OAuth2 authorization such as Discord's.</summary>
    public sealed class PkcePair
    {
        /// <summary>The secret kept until the code comes back; then given to LoginWithDiscord / LinkWithDiscord.</summary>
        public string CodeVerifier { get; private set; }
        /// <summary>`code_challenge` of the authorization URL (with `code_challenge_method=S256`).</summary>
        public string CodeChallenge { get; private set; }
        internal PkcePair(string verifier, string challenge) { CodeVerifier = verifier; CodeChallenge = challenge; }
    }

    public static class Pkce
    {
        /// <summary>A new pair: a verifier of 64 characters (48 random bytes, base64url) and its S256 challenge.</summary>
        public static PkcePair Create()
        {
            var bytes = new byte[48];
            using (var rng = RandomNumberGenerator.Create()) rng.GetBytes(bytes);
            string verifier = Base64Url(bytes);
            return new PkcePair(verifier, Challenge(verifier));
        }

        /// <summary>The S256 challenge of a verifier: base64url(SHA-256(ASCII(verifier))), no padding.</summary>
        public static string Challenge(string codeVerifier)
        {
            using (var sha = SHA256.Create()) return Base64Url(sha.ComputeHash(Encoding.ASCII.GetBytes(codeVerifier)));
        }

        static string Base64Url(byte[] bytes)
        {
            return Convert.ToBase64String(bytes).TrimEnd('=').Replace('+', '-').Replace('/', '_');
        }
    }

    public sealed partial class ManetteClient
    {
        /// <summary>A PKCE pair (as the browser SDK's Manette.createPkcePair()).</summary>
        public static PkcePair CreatePkcePair() { return Pkce.Create(); }
    }
}
