// Wire shapes (docs/api.md, docs/matches.md, docs/matchmaking.md), with the API's field
// names in PascalCase. Each keeps its whole JSON object in Raw (fields added by a newer
// server are there), and writes it back unchanged as JSON.
using System;
using System.Collections.Generic;
using System.Globalization;
using R = Manette.JsonRead;

namespace Manette
{
    public abstract class WireObject : IJsonValue
    {
        /// <summary>The object as the server sent it.</summary>
        public Dictionary<string, object> Raw { get; protected set; }
        public object ToJson() { return Raw; }
        public override string ToString() { return Json.Serialize(Raw); }
    }

    public sealed class Joueur : WireObject
    {
        public string Id, Pseudo, Email, Pays, AvatarUrl, CreeLe;
        public bool Invite;
        public Joueur(Dictionary<string, object> o)
        {
            Raw = o;
            Id = R.Str(o, "id"); Pseudo = R.Str(o, "pseudo"); Email = R.Str(o, "email"); Pays = R.Str(o, "pays");
            AvatarUrl = R.Str(o, "avatar_url"); CreeLe = R.Str(o, "cree_le"); Invite = R.Bool(o, "invite");
        }
    }

    public sealed class Row : WireObject
    {
        public string Id, JoueurId, CreeLe, MajLe;
        public Dictionary<string, object> Donnees;
        public Row(Dictionary<string, object> o)
        {
            Raw = o;
            Id = R.Str(o, "id"); JoueurId = R.Str(o, "joueur_id"); CreeLe = R.Str(o, "cree_le"); MajLe = R.Str(o, "maj_le");
            Donnees = R.Obj(o, "donnees") ?? new Dictionary<string, object>();
        }
    }

    public sealed class Fichier : WireObject
    {
        public string Nom, MimeType, CreeLe, MajLe;
        public long Taille;
        public Fichier(Dictionary<string, object> o)
        {
            Raw = o;
            Nom = R.Str(o, "nom"); MimeType = R.Str(o, "mime_type"); Taille = R.Long(o, "taille"); CreeLe = R.Str(o, "cree_le"); MajLe = R.Str(o, "maj_le");
        }
    }

    /// <summary>GET /storage/files/:nom: the file and its text content.</summary>
    public sealed class FichierContenu
    {
        public Fichier Fichier;
        public string Contenu;
    }

    public sealed class Classement : WireObject
    {
        public string Id, Nom, Ordre, Operateur, Reinitialisation, PeriodeDebut, PeriodeFin;
        public Classement(Dictionary<string, object> o)
        {
            Raw = o;
            Id = R.Str(o, "id"); Nom = R.Str(o, "nom"); Ordre = R.Str(o, "ordre"); Operateur = R.Str(o, "operateur");
            Reinitialisation = R.Str(o, "reinitialisation"); PeriodeDebut = R.Str(o, "periode_debut"); PeriodeFin = R.Str(o, "periode_fin");
        }
    }

    public sealed class Score : WireObject
    {
        public long Rang;
        public string JoueurId, Pseudo, MajLe;
        public double Valeur;
        public Score(Dictionary<string, object> o)
        {
            Raw = o;
            Rang = R.Long(o, "rang"); JoueurId = R.Str(o, "joueur_id"); Pseudo = R.Str(o, "pseudo"); Valeur = R.Double(o, "valeur"); MajLe = R.Str(o, "maj_le");
        }
    }

    public sealed class SubmitResult : WireObject
    {
        public double Valeur;
        public long Rang;
        public bool Ameliore;
        public SubmitResult(Dictionary<string, object> o)
        {
            Raw = o;
            Valeur = R.Double(o, "valeur"); Rang = R.Long(o, "rang"); Ameliore = R.Bool(o, "ameliore");
        }
    }

    /// <summary>One currency of the wallet.</summary>
    public sealed class Solde : WireObject
    {
        public string Code, Nom;
        public long Montant;
        public long? Max;
        public Solde(Dictionary<string, object> o)
        {
            Raw = o;
            Code = R.Str(o, "code"); Nom = R.Str(o, "nom"); Montant = R.Long(o, "solde"); Max = R.LongOrNull(o, "max");
        }
    }

    /// <summary>One object of the inventory.</summary>
    public sealed class ObjetPossede : WireObject
    {
        public string Code, Nom;
        public long Quantite;
        public bool Empilable;
        public long? Max;
        public ObjetPossede(Dictionary<string, object> o)
        {
            Raw = o;
            Code = R.Str(o, "code"); Nom = R.Str(o, "nom"); Quantite = R.Long(o, "quantite"); Empilable = R.Bool(o, "empilable"); Max = R.LongOrNull(o, "max");
        }
    }

    /// <summary>POST /shop/acheter's answer: the purchase, the new wallet and inventory.</summary>
    public sealed class Achat : WireObject
    {
        public Dictionary<string, object> Detail;
        public List<Solde> Portefeuille;
        public List<ObjetPossede> Inventaire;
        public Achat(Dictionary<string, object> o)
        {
            Raw = o;
            Detail = R.Obj(o, "achat");
            Portefeuille = R.ListOf(o, "portefeuille", d => new Solde(d));
            Inventaire = R.ListOf(o, "inventaire", d => new ObjetPossede(d));
        }
    }

    public sealed class Participant : WireObject
    {
        public string JoueurId, Pseudo;
        public long Equipe;
        public double? Elo;
        public Participant(Dictionary<string, object> o)
        {
            Raw = o;
            JoueurId = R.Str(o, "joueur_id"); Pseudo = R.Str(o, "pseudo"); Equipe = R.Long(o, "equipe"); Elo = R.DoubleOrNull(o, "elo");
        }
    }

    /// <summary>The matchmaking status: `idle`, `waiting` or `matched`.</summary>
    public sealed class MatchStatus : WireObject
    {
        public string Status, QueueId, PartieId, CodeSalon;
        public long? Position, Equipe;
        public List<Participant> Participants;
        public MatchStatus(Dictionary<string, object> o)
        {
            Raw = o;
            Status = R.Str(o, "status"); QueueId = R.Str(o, "queue_id"); PartieId = R.Str(o, "partie_id"); CodeSalon = R.Str(o, "code_salon");
            Position = R.LongOrNull(o, "position"); Equipe = R.LongOrNull(o, "equipe");
            Participants = R.ListOf(o, "participants", d => new Participant(d));
        }
    }

    /// <summary>A match (`partie`): the same object as GET /match/state and the `etat` event.</summary>
    public sealed class Partie : WireObject
    {
        public string Id, ModeJeu, Statut, TourJoueur, GagnantId, CodeSalon, CreeLe, MajLe, TermineLe, TourExpireLe;
        public long NumeroTour;
        public long? GagnantEquipe;
        public bool? Comptee;
        public Dictionary<string, object> EtatPlateau;
        public List<Participant> Participants;
        public Partie(Dictionary<string, object> o)
        {
            Raw = o;
            Id = R.Str(o, "id"); ModeJeu = R.Str(o, "mode_jeu"); Statut = R.Str(o, "statut"); TourJoueur = R.Str(o, "tour_joueur");
            GagnantId = R.Str(o, "gagnant_id"); CodeSalon = R.Str(o, "code_salon"); CreeLe = R.Str(o, "cree_le"); MajLe = R.Str(o, "maj_le");
            TermineLe = R.Str(o, "termine_le"); TourExpireLe = R.Str(o, "tour_expire_le");
            NumeroTour = R.Long(o, "numero_tour"); GagnantEquipe = R.LongOrNull(o, "gagnant_equipe"); Comptee = R.BoolOrNull(o, "comptee");
            EtatPlateau = R.Obj(o, "etat_plateau") ?? new Dictionary<string, object>();
            Participants = R.ListOf(o, "participants", d => new Participant(d));
        }

        /// <summary>`en_cours`: neither `terminee` nor `annulee`.</summary>
        public bool EnCours { get { return Statut == "en_cours"; } }

        internal DateTimeOffset MajLeTime
        {
            get
            {
                DateTimeOffset t;
                return MajLe != null && DateTimeOffset.TryParse(MajLe, CultureInfo.InvariantCulture, DateTimeStyles.AssumeUniversal, out t) ? t : DateTimeOffset.MinValue;
            }
        }
    }

    /// <summary>The room's `action` event (joueur_id null for the server's own actions, e.g. `delai_depasse`).</summary>
    public sealed class MatchActionEvent : WireObject
    {
        public string JoueurId, Action;
        public Dictionary<string, object> Donnees;
        public long NumeroTour;
        public MatchActionEvent(Dictionary<string, object> o)
        {
            Raw = o;
            JoueurId = R.Str(o, "joueur_id"); Action = R.Str(o, "action"); NumeroTour = R.Long(o, "numero_tour");
            Donnees = R.Obj(o, "donnees") ?? new Dictionary<string, object>();
        }
    }

    public sealed class HistoryAction : WireObject
    {
        public long Numero, NumeroTour;
        public string JoueurId, Action, CreeLe;
        public Dictionary<string, object> Donnees;
        public HistoryAction(Dictionary<string, object> o)
        {
            Raw = o;
            Numero = R.Long(o, "numero"); NumeroTour = R.Long(o, "numero_tour"); JoueurId = R.Str(o, "joueur_id"); Action = R.Str(o, "action");
            CreeLe = R.Str(o, "cree_le"); Donnees = R.Obj(o, "donnees") ?? new Dictionary<string, object>();
        }
    }

    /// <summary>A page of GET /match/history: `Suivant` is the `depuis` of the next page, null when none follows.</summary>
    public sealed class MatchHistory : WireObject
    {
        public string PartieId;
        public Partie EtatInitial;
        public List<HistoryAction> Actions;
        public long? Suivant;
        public bool? Comptee;
        public MatchHistory(Dictionary<string, object> o)
        {
            Raw = o;
            PartieId = R.Str(o, "partie_id");
            var init = R.Obj(o, "etat_initial");
            EtatInitial = init == null ? null : new Partie(init);
            Actions = R.ListOf(o, "actions", d => new HistoryAction(d));
            Suivant = R.LongOrNull(o, "suivant");
            Comptee = R.BoolOrNull(o, "comptee");
        }
    }

    /// <summary>GET /realtime/config.</summary>
    public sealed class RealtimeConfig : WireObject
    {
        public string Url, Key, ChannelPrefix, Token, TokenExpireLe;
        public bool Private;
        /// <summary>The game's realtime.evenements: `action_etat` (the default, also when absent), `etat` or `etat_aux_autres`.</summary>
        public string Evenements;
        public RealtimeConfig(Dictionary<string, object> o)
        {
            Raw = o;
            Url = R.Str(o, "url"); Key = R.Str(o, "key"); ChannelPrefix = R.Str(o, "channel_prefix"); Token = R.Str(o, "token");
            TokenExpireLe = R.Str(o, "token_expire_le"); Private = R.Bool(o, "private", true);
            Evenements = R.Str(o, "evenements") ?? "action_etat";
        }

        /// <summary>token_expire_le as a date, null when absent.</summary>
        public DateTimeOffset? TokenExpiry
        {
            get
            {
                DateTimeOffset t;
                if (TokenExpireLe != null && DateTimeOffset.TryParse(TokenExpireLe, CultureInfo.InvariantCulture, DateTimeStyles.AssumeUniversal, out t)) return t;
                return null;
            }
        }
    }
}
