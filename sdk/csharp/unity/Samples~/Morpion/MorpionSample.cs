// Manette sample: log in (or register), join the 1v1 queue, play tic-tac-toe with buttons.
// Put it on an empty GameObject, fill in the server, the API key, a pseudo and a password.
// Reviewed by reading only: Unity does not run on the machine this SDK is tested on.
using System;
using System.Collections.Generic;
using Manette;
using Manette.Unity;
using UnityEngine;

public sealed class MorpionSample : MonoBehaviour
{
    public string server = "http://localhost:3000";
    public string apiKey = "";
    public string pseudo = "joueur1";
    public string password = "motdepasse-solide";
    public bool register = false;

    ManetteClient client;
    MatchHandle match;
    MatchSubscriptionHandle subscription;
    Partie partie;
    string status = "…";

    async void Start()
    {
        client = ManetteUnity.CreateClient(server, apiKey, "en", gameObject);
        try
        {
            // A kept session (PlayerPrefs) comes back without a login.
            Joueur me = await client.Auth.Restore();
            if (me == null)
                me = register ? await client.Auth.Register(pseudo, pseudo + "@example.com", password)
                              : await client.Auth.Login(pseudo, password);
            status = "Logged in as " + me.Pseudo + ", waiting for an opponent…";
            var queued = await client.Matchmaking.Join("1v1", 1000);
            if (queued.Status != "matched") queued = await client.Matchmaking.WaitForMatch();
            match = client.Match(queued.PartieId);
            // The handlers run in ManetteDispatcher.Update, on the main thread.
            subscription = await match.Subscribe(new MatchSubscription
            {
                OnAction = e => Debug.Log("action " + e.Action + " " + Json.Serialize(e.Donnees)),
                OnEtat = p => { partie = p; status = Describe(p, me.Id); },
                OnError = e => status = "Error: " + e.Message,
            });
        }
        catch (ManetteException e)
        {
            status = e.Error + ": " + e.Message; // e.Message is in the client's language
        }
    }

    static string Describe(Partie p, string me)
    {
        if (p.Statut == "terminee") return p.GagnantId == null ? "Draw." : p.GagnantId == me ? "You won!" : "You lost.";
        if (p.Statut == "annulee") return "Cancelled.";
        return p.TourJoueur == me ? "Your turn." : "Their turn.";
    }

    async void Play(int square)
    {
        try
        {
            await match.Act("jouer", new Dictionary<string, object> { { "case", square } }, partie.NumeroTour);
        }
        catch (ManetteException e) when (e.Error == "action_refusee")
        {
            status = e.Message + " (" + e.Reason + ")";
        }
    }

    void OnGUI()
    {
        GUILayout.Label(status);
        if (partie == null) return;
        var cases = partie.EtatPlateau.ContainsKey("cases") ? partie.EtatPlateau["cases"] as List<object> : null;
        if (cases == null) return;
        for (int row = 0; row < 3; row++)
        {
            GUILayout.BeginHorizontal();
            for (int col = 0; col < 3; col++)
            {
                int i = row * 3 + col;
                string mark = cases[i] as string ?? " ";
                if (GUILayout.Button(mark, GUILayout.Width(60), GUILayout.Height(60)) && cases[i] == null && partie.EnCours) Play(i);
            }
            GUILayout.EndHorizontal();
        }
    }

    async void OnDestroy()
    {
        if (subscription != null) await subscription.Unsubscribe();
    }
}
