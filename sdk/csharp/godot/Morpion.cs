// Manette sample for Godot 4 .NET: a Node that logs in, joins the 1v1 queue and plays the
// first free square whenever it is its turn. Godot's main thread has a
// SynchronizationContext: the client captures it (EventDelivery.Auto), so OnAction/OnEtat run
// on the main thread and may touch nodes. Attach it to a Node; set the exported fields.
// Reviewed by reading only: Godot does not run on the machine this SDK is tested on.
using System.Collections.Generic;
using Godot;
using Manette;

public partial class Morpion : Node
{
    [Export] public string Server = "http://localhost:3000";
    [Export] public string ApiKey = "";
    [Export] public string Pseudo = "joueur1";
    [Export] public string Password = "motdepasse-solide";
    [Export] public bool Register = false;

    ManetteClient _client;
    MatchHandle _match;
    MatchSubscriptionHandle _subscription;
    string _me;

    public override async void _Ready()
    {
        // Made on the main thread: events are posted to Godot's SynchronizationContext.
        _client = new ManetteClient(new ClientOptions
        {
            BaseUrl = Server,
            ApiKey = ApiKey,
            Lang = "en",
            Storage = new FileSessionStore(ProjectSettings.GlobalizePath("user://manette-session.json")),
        });
        try
        {
            Joueur me = await _client.Auth.Restore();
            if (me == null)
                me = Register ? await _client.Auth.Register(Pseudo, Pseudo + "@example.com", Password)
                              : await _client.Auth.Login(Pseudo, Password);
            _me = me.Id;
            GD.Print($"Logged in as {me.Pseudo}");
            var queued = await _client.Matchmaking.Join("1v1", 1000);
            if (queued.Status != "matched") queued = await _client.Matchmaking.WaitForMatch();
            _match = _client.Match(queued.PartieId);
            _subscription = await _match.Subscribe(new MatchSubscription
            {
                OnAction = e => GD.Print($"action {e.Action} {Json.Serialize(e.Donnees)} (turn {e.NumeroTour})"),
                OnEtat = OnEtat,
                OnError = e => GD.PushError($"{e.Error}: {e.Message}"),
            });
        }
        catch (ManetteException e)
        {
            GD.PushError($"{e.Error} ({e.Status}): {e.Message}");
        }
    }

    async void OnEtat(Partie p)
    {
        GD.Print($"turn {p.NumeroTour}, {p.Statut}, board {Json.Serialize(p.EtatPlateau)}");
        if (!p.EnCours)
        {
            GD.Print(p.GagnantId == null ? "Draw." : p.GagnantId == _me ? "You won!" : "You lost.");
            return;
        }
        if (p.TourJoueur != _me) return;
        var cases = p.EtatPlateau["cases"] as List<object>;
        int square = cases.FindIndex(c => c == null);
        try
        {
            await _match.Act("jouer", new Dictionary<string, object> { { "case", square } }, p.NumeroTour);
        }
        catch (ManetteException e) when (e.Error == "action_refusee")
        {
            GD.Print($"refused: {e.Reason}"); // e.g. tour_perime: a newer state is on its way
        }
    }

    public override void _ExitTree()
    {
        _subscription?.Dispose();
        _client?.Dispose();
    }
}
