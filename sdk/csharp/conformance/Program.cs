// The C# SDK's conformance runner: runs every case of test/conformance/cases.json, in order,
// against the conformance server whose control URL is MANETTE_CONFORMANCE_URL, writes the
// report to MANETTE_CONFORMANCE_REPORT and prints "N passed, M failed" as its last line.
// Usage: mono Conformance.exe --cases <cases.json> [case ids...]   (-v: the SDK's realtime log)
using System;
using System.Collections.Generic;
using System.IO;
using System.Text;
using System.Threading.Tasks;

namespace Manette.Conformance
{
    public static class Program
    {
        public static int Main(string[] args)
        {
            string casesPath = null;
            bool verbose = Environment.GetEnvironmentVariable("MANETTE_CONFORMANCE_VERBOSE") == "1";
            var only = new List<string>();
            for (int i = 0; i < args.Length; i++)
            {
                if (args[i] == "--cases" && i + 1 < args.Length) casesPath = args[++i];
                else if (args[i] == "-v") verbose = true;
                else only.Add(args[i]);
            }
            string url = Environment.GetEnvironmentVariable("MANETTE_CONFORMANCE_URL");
            string report = Environment.GetEnvironmentVariable("MANETTE_CONFORMANCE_REPORT");
            if (string.IsNullOrEmpty(url) || casesPath == null)
            {
                Console.Error.WriteLine("Set MANETTE_CONFORMANCE_URL (and MANETTE_CONFORMANCE_REPORT) and pass --cases <test/conformance/cases.json>.");
                return 2;
            }
            var ids = CaseList(casesPath);
            var results = Run(url, ids, only, verbose ? (Action<string>)(line => Console.WriteLine(DateTime.UtcNow.ToString("HH:mm:ss.fff") + line)) : null)
                .GetAwaiter().GetResult();
            int passed = 0, failed = 0;
            var list = new List<object>();
            foreach (var r in results)
            {
                var entry = new Dictionary<string, object> { { "case", r.Key }, { "ok", r.Value == null } };
                if (r.Value == null) passed++;
                else { failed++; entry["message"] = r.Value; }
                list.Add(entry);
            }
            if (!string.IsNullOrEmpty(report))
            {
                File.WriteAllText(report, Json.Serialize(new Dictionary<string, object> { { "sdk", "csharp" }, { "results", list } }) + "\n", new UTF8Encoding(false));
            }
            Console.WriteLine(passed + " passed, " + failed + " failed");
            return failed == 0 ? 0 : 1;
        }

        /// <summary>The case ids of cases.json, in order.</summary>
        public static List<string> CaseList(string path)
        {
            var doc = Json.ParseObject(File.ReadAllText(path, Encoding.UTF8));
            var ids = new List<string>();
            foreach (var c in JsonRead.ListOf(doc, "cases", d => JsonRead.Str(d, "id"))) if (c != null) ids.Add(c);
            return ids;
        }

        /// <summary>Each case id with null (passed) or its failure's message.</summary>
        public static async Task<List<KeyValuePair<string, string>>> Run(string controlUrl, List<string> ids, List<string> only, Action<string> log)
        {
            var results = new List<KeyValuePair<string, string>>();
            var suite = new ConformanceSuite(controlUrl, log);
            string initError = null;
            try { await suite.Init().ConfigureAwait(false); }
            catch (Exception err) { initError = "the conformance server's config could not be read: " + err.Message; }
            var cases = suite.Cases();
            foreach (var id in ids)
            {
                if (only.Count > 0 && !only.Contains(id)) continue;
                string failure = initError;
                if (failure == null)
                {
                    Func<Task> run;
                    if (!cases.TryGetValue(id, out run)) failure = "this case is not implemented by the C# runner";
                    else
                    {
                        try { await run().ConfigureAwait(false); }
                        catch (Exception err) { failure = Describe(err); }
                        finally { suite.Cleanup(); }
                    }
                }
                results.Add(new KeyValuePair<string, string>(id, failure));
                Console.WriteLine((failure == null ? "ok " : "FAIL ") + id + (failure == null ? "" : ": " + failure));
            }
            return results;
        }

        static string Describe(Exception err)
        {
            var agg = err as AggregateException;
            if (agg != null && agg.InnerExceptions.Count == 1) err = agg.InnerExceptions[0];
            if (err is CaseFailed) return err.Message;
            return err.GetType().Name + ": " + err.Message + (err is ManetteException ? " (" + err + ")" : "") + (Environment.GetEnvironmentVariable("MANETTE_CONFORMANCE_VERBOSE") == "1" ? "\n" + err.StackTrace : "");
        }
    }
}
