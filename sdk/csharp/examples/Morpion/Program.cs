// A console player of Manette's morpion (tic-tac-toe) through the C# SDK: logs in (or
// registers), joins a queue, plays the match to its end, reads the leaderboard.
//
//   mono Morpion.exe --url <base url> --key <api key> --pseudo <p> --password <pw>
//                    [--register --email <e>] [--mode 1v1] [--moves 4,0,8] [--lang en|fr]
//                    [--session <file>] [--poll-ms 15000] [--auto]
//
// Prints one JSON line per event ({"event": "...", ...}), then as its last line
// {"final": <partie>, "history": <GET /match/history>}. Its moves: the squares of --moves in
// order (a taken one is skipped), else the first free square. Exit code 0 when the match
// ended, 1 on an error (printed as {"event": "error", ...}).
using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Manette;

public static class MorpionProgram
{
    static readonly object Out = new object();

    static void Print(Dictionary<string, object> line)
    {
        lock (Out) { Console.WriteLine(Json.Serialize(line)); Console.Out.Flush(); }
    }

    static void Event(string name, params object[] kv)
    {
        var d = new Dictionary<string, object> { { "event", name } };
        for (int i = 0; i + 1 < kv.Length; i += 2) d[(string)kv[i]] = kv[i + 1];
        Print(d);
    }

    public static int Main(string[] args)
    {
        var a = new Dictionary<string, string>();
        for (int i = 0; i < args.Length; i++)
        {
            if (!args[i].StartsWith("--")) continue;
            string name = args[i].Substring(2);
            // Flags without a value: --register, and --auto (accepted for the cross-play tests'
            // common command line: this program always plays by itself).
            if (name == "register" || name == "auto") { a[name] = "1"; continue; }
            if (i + 1 < args.Length) a[name] = args[++i];
        }
        string url, key, pseudo, password;
        if (!a.TryGetValue("url", out url) || !a.TryGetValue("key", out key) || !a.TryGetValue("pseudo", out pseudo) || !a.TryGetValue("password", out password))
        {
            Console.Error.WriteLine("usage: mono Morpion.exe --url <base url> --key <api key> --pseudo <p> --password <pw> [--register --email <e>] [--mode 1v1] [--moves 4,0,8] [--lang en|fr] [--session <file>]");
            return 2;
        }
        try
        {
            return Run(a, url, key, pseudo, password).GetAwaiter().GetResult();
        }
        catch (ManetteException err)
        {
            Event("error", "error", err.Error, "reason", err.Reason, "status", err.Status, "message", err.Message);
            return 1;
        }
    }

    static string Get(Dictionary<string, string> a, string k, string def) { string v; return a.TryGetValue(k, out v) ? v : def; }

    static async Task<int> Run(Dictionary<string, string> a, string url, string key, string pseudo, string password)
    {
        string session = Get(a, "session", null);
        var client = new ManetteClient(new ClientOptions
        {
            BaseUrl = url, ApiKey = key, Lang = Get(a, "lang", "en"),
            Storage = session != null ? (ISessionStore)new FileSessionStore(session) : new MemorySessionStore(),
            Delivery = EventDelivery.Queued, // this program's loop below runs the events (client.DispatchEvents)
        });
        var moves = new List<int>();
        foreach (var m in Get(a, "moves", "").Split(new[] { ',' }, StringSplitOptions.RemoveEmptyEntries)) moves.Add(int.Parse(m.Trim()));
        string mode = Get(a, "mode", "1v1");

        Joueur me = await client.Auth.Restore();
        if (me == null || !string.Equals(me.Pseudo, pseudo, StringComparison.OrdinalIgnoreCase))
        {
            me = a.ContainsKey("register")
                ? await client.Auth.Register(pseudo, Get(a, "email", pseudo + "@example.com"), password)
                : await client.Auth.Login(pseudo, password);
        }
        Event("login", "joueur", me);

        var status = await client.Matchmaking.Join(mode, 1000);
        Event("queue", "status", status);
        if (status.Status != "matched") status = await client.Matchmaking.WaitForMatch(1000);
        Event("matched", "status", status);
        var match = client.Match(status.PartieId);

        Partie latest = null;
        bool failed = false;
        var sub = await match.Subscribe(new MatchSubscription
        {
            OnAction = e => Event("action", "action", e),
            OnEtat = p => { latest = p; Event("etat", "partie", p); },
            OnError = e => { failed = true; Event("error", "error", e.Error, "reason", e.Reason, "status", e.Status, "message", e.Message); },
            PollMs = int.Parse(Get(a, "poll-ms", "15000")),
        });
        long played = 0;
        while (!failed)
        {
            client.DispatchEvents(); // the SDK's events run here, on this thread
            if (latest != null && !latest.EnCours) break;
            if (latest != null && latest.TourJoueur == me.Id && latest.NumeroTour > played)
            {
                played = latest.NumeroTour;
                int square = Choose(latest, moves);
                try
                {
                    await match.Act("jouer", new Dictionary<string, object> { { "case", square } }, latest.NumeroTour);
                }
                catch (ManetteException err) when (err.Error == "action_refusee")
                {
                    // The state moved meanwhile (tour_perime, the turn expired): the next state tells.
                    Event("refused", "reason", err.Reason, "message", err.Message);
                }
            }
            await Task.Delay(50);
        }
        await sub.Unsubscribe();
        client.DispatchEvents();

        var boards = await client.Leaderboards();
        if (boards.Count > 0)
        {
            var scores = await client.Leaderboard(boards[0].Id).Scores(10);
            Event("leaderboard", "id", boards[0].Id, "scores", scores);
        }
        var final = await match.State();
        var history = await match.History();
        Print(new Dictionary<string, object> { { "final", final }, { "history", history } });
        client.Dispose();
        return final.EnCours ? 1 : 0;
    }

    /// <summary>The first square of `moves` still free, else the first free square.</summary>
    static int Choose(Partie p, List<int> moves)
    {
        var cases = p.EtatPlateau.ContainsKey("cases") ? p.EtatPlateau["cases"] as List<object> : null;
        Func<int, bool> free = i => cases == null || (i >= 0 && i < cases.Count && cases[i] == null);
        foreach (int m in moves) if (free(m)) return m;
        for (int i = 0; i < 9; i++) if (free(i)) return i;
        return 0;
    }
}
