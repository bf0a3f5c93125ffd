// The conformance cases as NUnit tests, one per id of test/conformance/cases.json, running the
// same definitions as the console runner (conformance/Cases.cs). Ignored unless
// MANETTE_CONFORMANCE_URL names a running conformance server.
using System;
using System.Collections.Generic;
using System.IO;
using System.Threading.Tasks;
using Manette.Conformance;
using NUnit.Framework;

namespace Manette.Tests
{
    [TestFixture]
    public class ConformanceTests
    {
        ConformanceSuite suite;
        IDictionary<string, Func<Task>> cases;

        static string CasesFile()
        {
            string given = Environment.GetEnvironmentVariable("MANETTE_CONFORMANCE_CASES");
            if (!string.IsNullOrEmpty(given)) return given;
            // build/ is sdk/csharp/build: the repository root is three folders up.
            string dir = Path.GetDirectoryName(typeof(ConformanceTests).Assembly.Location);
            return Path.GetFullPath(Path.Combine(dir, "..", "..", "..", "test", "conformance", "cases.json"));
        }

        public static IEnumerable<string> CaseIds()
        {
            string file = CasesFile();
            return File.Exists(file) ? (IEnumerable<string>)Program.CaseList(file) : new[] { "cases.json not found at " + file };
        }

        [TestFixtureSetUp]
        public void Start()
        {
            string url = Environment.GetEnvironmentVariable("MANETTE_CONFORMANCE_URL");
            if (string.IsNullOrEmpty(url)) return;
            suite = new ConformanceSuite(url);
            suite.Init().GetAwaiter().GetResult();
            cases = suite.Cases();
        }

        [TestCaseSource("CaseIds")]
        public void Case(string id)
        {
            if (suite == null) Assert.Ignore("MANETTE_CONFORMANCE_URL is not set: no conformance server to play against");
            Func<Task> run;
            Assert.IsTrue(cases.TryGetValue(id, out run), "the C# suite defines the case " + id);
            try { run().GetAwaiter().GetResult(); }
            finally { suite.Cleanup(); }
        }
    }
}
