// Unit tests of the SDK's own JSON reader and writer, and of the parts that need no server.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Threading;
using NUnit.Framework;

namespace Manette.Tests
{
    [TestFixture]
    public class JsonTests
    {
        [Test]
        public void ReadsEveryKindOfValue()
        {
            var o = Json.ParseObject("{\"s\":\"a\",\"i\":42,\"n\":-7,\"f\":1.5,\"e\":1e3,\"t\":true,\"F\":false,\"z\":null,\"a\":[1,\"x\",[]],\"o\":{}}");
            Assert.AreEqual("a", o["s"]);
            Assert.AreEqual(42L, o["i"]);
            Assert.AreEqual(-7L, o["n"]);
            Assert.AreEqual(1.5, o["f"]);
            Assert.AreEqual(1000.0, o["e"]);
            Assert.AreEqual(true, o["t"]);
            Assert.AreEqual(false, o["F"]);
            Assert.IsNull(o["z"]);
            Assert.IsTrue(o.ContainsKey("z"));
            var a = (List<object>)o["a"];
            Assert.AreEqual(3, a.Count);
            Assert.AreEqual(1L, a[0]);
            Assert.AreEqual(0, ((List<object>)a[2]).Count);
            Assert.AreEqual(0, ((Dictionary<string, object>)o["o"]).Count);
        }

        [Test]
        public void ReadsEscapesAndUnicode()
        {
            Assert.AreEqual("\"\\/\b\f\n\r\t", Json.Parse("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\""));
            Assert.AreEqual("é", Json.Parse("\"\\u00e9\""));
            Assert.AreEqual("é", Json.Parse("\"\\u00E9\""));
            Assert.AreEqual("é — ✓", Json.Parse("\"é — ✓\""));
            // A surrogate pair as two escapes, and as the character itself.
            Assert.AreEqual("😀", Json.Parse("\"\\ud83d\\ude00\""));
            Assert.AreEqual("😀", Json.Parse("\"😀\""));
            Assert.AreEqual("a\u0000b", Json.Parse("\"a\\u0000b\""));
        }

        [Test]
        public void ReadsNumbersExactly()
        {
            Assert.AreEqual(9007199254740993L, Json.Parse("9007199254740993"));
            Assert.AreEqual(long.MaxValue, Json.Parse("9223372036854775807"));
            Assert.AreEqual(9223372036854775808.0, Json.Parse("9223372036854775808")); // past long: a double
            Assert.AreEqual(0L, Json.Parse("0"));
            Assert.AreEqual(0L, Json.Parse("-0"));
            Assert.AreEqual(-0.25, Json.Parse("-2.5E-1"));
            Assert.AreEqual(1e300, Json.Parse("1e300"));
            Assert.AreEqual(0.1, Json.Parse("0.1"));
        }

        [Test]
        public void NumbersDoNotDependOnTheCulture()
        {
            var before = Thread.CurrentThread.CurrentCulture;
            try
            {
                Thread.CurrentThread.CurrentCulture = new CultureInfo("fr-FR");
                Assert.AreEqual(1.5, Json.Parse("1.5"));
                Assert.AreEqual("[1.5,-0.001,2]", Json.Serialize(new object[] { 1.5, -0.001, 2.0 }));
            }
            finally { Thread.CurrentThread.CurrentCulture = before; }
        }

        [TestCase("")]
        [TestCase("   ")]
        [TestCase("{")]
        [TestCase("{\"a\":1,}")]
        [TestCase("[1,]")]
        [TestCase("[1 2]")]
        [TestCase("{\"a\" 1}")]
        [TestCase("{a:1}")]
        [TestCase("'a'")]
        [TestCase("01")]
        [TestCase("1.")]
        [TestCase(".5")]
        [TestCase("1e")]
        [TestCase("+1")]
        [TestCase("-")]
        [TestCase("NaN")]
        [TestCase("Infinity")]
        [TestCase("1e999")]
        [TestCase("tru")]
        [TestCase("nul")]
        [TestCase("\"abc")]
        [TestCase("\"a\nb\"")]
        [TestCase("\"\\x\"")]
        [TestCase("\"\\u12\"")]
        [TestCase("\"\\u12g4\"")]
        [TestCase("{} {}")]
        [TestCase("[] x")]
        public void RefusesWhatIsNotJson(string text)
        {
            Assert.Throws<JsonException>(() => Json.Parse(text));
        }

        [Test]
        public void RefusesDeepNesting()
        {
            Assert.Throws<JsonException>(() => Json.Parse(new string('[', 200) + new string(']', 200)));
            Assert.DoesNotThrow(() => Json.Parse(new string('[', 100) + new string(']', 100)));
        }

        [Test]
        public void WritesCompactJson()
        {
            var o = new Dictionary<string, object>
            {
                { "s", "a\"b\\c\nd\u0001" }, { "i", 3 }, { "l", 12345678901234L }, { "d", 0.5 }, { "b", true }, { "z", null },
                { "a", new List<object> { 1, "x" } }, { "o", new Dictionary<string, object>() },
            };
            Assert.AreEqual("{\"s\":\"a\\\"b\\\\c\\nd\\u0001\",\"i\":3,\"l\":12345678901234,\"d\":0.5,\"b\":true,\"z\":null,\"a\":[1,\"x\"],\"o\":{}}", Json.Serialize(o));
        }

        [Test]
        public void WritesUnicodeAsIsAndLoneSurrogatesEscaped()
        {
            Assert.AreEqual("\"é😀\"", Json.Serialize("é😀"));
            Assert.AreEqual("\"a\\ud800b\"", Json.Serialize("a\ud800b"));
            Assert.AreEqual("\"\\udc00\"", Json.Serialize("\udc00"));
            Assert.AreEqual("\"\\u2028\"", Json.Serialize("\u2028"));
        }

        [Test]
        public void WritesNumbersAsJavaScriptDoes()
        {
            Assert.AreEqual("1", Json.Serialize(1.0));
            Assert.AreEqual("-3", Json.Serialize(-3.0));
            Assert.AreEqual("0.1", Json.Serialize(0.1));
            Assert.AreEqual("1E+300", Json.Serialize(1e300).ToUpperInvariant());
            Assert.Throws<ArgumentException>(() => Json.Serialize(double.NaN));
            Assert.Throws<ArgumentException>(() => Json.Serialize(double.PositiveInfinity));
        }

        [Test]
        public void RoundTrips()
        {
            string text = "{\"partie\":{\"id\":\"p1\",\"numero_tour\":3,\"etat_plateau\":{\"cases\":[\"X\",null,\"O\"]},\"valeur\":12.75,\"texte\":\"é\\\"\\\\ ✓ 😀\"}}";
            Assert.AreEqual(text, Json.Serialize(Json.Parse(text)));
        }

        [Test]
        public void ARepeatedKeyKeepsTheLast()
        {
            Assert.AreEqual(2L, Json.ParseObject("{\"a\":1,\"a\":2}")["a"]);
        }

        [Test]
        public void TypedWireObjectsReadTheirFields()
        {
            var p = new Partie(Json.ParseObject("{\"id\":\"m\",\"statut\":\"en_cours\",\"numero_tour\":4,\"tour_joueur\":\"j1\",\"gagnant_equipe\":null,\"maj_le\":\"2026-11-25T16:07:30.279Z\",\"participants\":[{\"joueur_id\":\"j1\",\"pseudo\":\"a\",\"equipe\":1,\"elo\":1500}],\"etat_plateau\":{\"cases\":[]}}"));
            Assert.AreEqual("m", p.Id);
            Assert.AreEqual(4L, p.NumeroTour);
            Assert.IsTrue(p.EnCours);
            Assert.IsNull(p.GagnantEquipe);
            Assert.AreEqual("j1", p.Participants[0].JoueurId);
            Assert.AreEqual(1500.0, p.Participants[0].Elo);
            Assert.AreEqual("{\"cases\":[]}", Json.Serialize(p.EtatPlateau));
            Assert.AreEqual(Json.Serialize(p.Raw), Json.Serialize(p));
        }
    }

    [TestFixture]
    public class OfflineTests
    {
        [Test]
        public void ApiBaseAddsTheVersionedPathOnlyToAnOrigin()
        {
            Assert.AreEqual("http://h:3000/api/public/v1", ManetteClient.ApiBase("http://h:3000"));
            Assert.AreEqual("http://h:3000/api/public/v1", ManetteClient.ApiBase("http://h:3000/"));
            Assert.AreEqual("https://x.supabase.co/functions/v1/manette", ManetteClient.ApiBase("https://x.supabase.co/functions/v1/manette/"));
        }

        [Test]
        public void FileSessionStoreKeepsValuesAcrossInstances()
        {
            string path = Path.Combine(Path.GetTempPath(), "manette-test-" + Guid.NewGuid().ToString("N") + ".json");
            try
            {
                new FileSessionStore(path).Set("k", "v é");
                Assert.AreEqual("v é", new FileSessionStore(path).Get("k"));
                new FileSessionStore(path).Remove("k");
                Assert.IsNull(new FileSessionStore(path).Get("k"));
            }
            finally { if (File.Exists(path)) File.Delete(path); }
        }

        /// <summary>
        /// A transport answering what a proxy in front of the server may answer (an HTML error
        /// page). Manette's own answers are checked against the real server (the conformance cases).
        /// </summary>
        sealed class Canned : IHttpTransport
        {
            public HttpRequest Last;
            readonly HttpResponse answer;
            public Canned(HttpResponse answer) { this.answer = answer; }
            public System.Threading.Tasks.Task<HttpResponse> SendAsync(HttpRequest request, CancellationToken cancellationToken)
            {
                Last = request;
                return System.Threading.Tasks.Task.FromResult(answer);
            }
        }

        [Test]
        public void AnAnswerThatIsNotJsonIsANetworkError()
        {
            var c = new ManetteClient(new ClientOptions { BaseUrl = "http://h", ApiKey = "k", Http = new Canned(new HttpResponse { Status = 502, Body = "<html>Bad gateway</html>" }) });
            var err = Assert.Throws<ManetteException>(() => c.Leaderboards().GetAwaiter().GetResult());
            Assert.AreEqual("network_error", err.Error);
            Assert.AreEqual("Le serveur est injoignable.", err.Message);
        }
    }
}
