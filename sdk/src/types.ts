// Wire shapes (docs/api.md, docs/matchmaking.md; names as the API spells them).
/** `invite`: a guest (POST /players/invite, no e-mail nor password) until it is linked. */
export interface Joueur { id: string; pseudo: string; email: string | null; pays: string | null; avatar_url: string | null; cree_le: string; invite: boolean }

/**
 * GET /players/me/export's `data`: every datum Manette holds about the player (profile,
 * sessions without their tokens, rows, files with their content, avatar, scores, ratings,
 * matches, economy). docs/accounts.md lists its keys.
 */
export type AccountExport = Record<string, unknown>;

/** What proves a deletion: the password, a fresh Google ID token, or nothing for a guest. */
/** What confirms an account's deletion: its password, a fresh Google ID token, or a fresh identity token of one of its identities. */
export type DeletionProof = { password: string } | { idToken: string } | { fournisseur: string; jeton: string }
  | { fournisseur: 'discord'; code: string; codeVerifier?: string; redirectUri?: string };
/** How a guest becomes an account (POST /players/lier): an e-mail and password, a Google ID
 *  token, or an identity token of a provider the game file declares in `connexions`. */
export type LinkWith =
  | { pseudo?: string; email: string; password: string }
  | { idToken: string }
  | { fournisseur: string; jeton: string }
  /** A Discord OAuth2 code, as auth.loginWithDiscord takes it. */
  | { fournisseur: 'discord'; code: string; codeVerifier?: string; redirectUri?: string };

export interface Row<D = Record<string, unknown>> {
  id: string;
  joueur_id: string | null;
  donnees: D;
  cree_le: string;
  maj_le: string;
  /** Present and true while the write waits in the offline queue (the id is then local). */
  en_attente?: true;
}

export interface Fichier { nom: string; mime_type: string; taille: number; cree_le: string; maj_le: string }
export interface Score { rang: number; joueur_id: string; pseudo: string; valeur: number; maj_le: string }
/** A leaderboard of the game (GET /leaderboards): its id, order, operator and current period. */
export interface Classement {
  id: string; nom: string | null; ordre: 'desc' | 'asc'; operateur: 'meilleur' | 'dernier' | 'somme';
  reinitialisation: 'aucune' | 'quotidienne' | 'hebdomadaire' | 'mensuelle';
  periode_debut: string | null; periode_fin: string | null;
}
export interface SubmitResult { valeur: number; rang: number; ameliore: boolean }
export interface Article {
  id: string; code: string; nom: string; description: string | null; prix: number; devise: string;
  /** The devise's name in the player's language when it is a currency of the game (`monnaies`), else null. */
  devise_nom?: string | null;
  image_url: string | null; metadonnees: Record<string, unknown> | null;
  /** What one purchase grants (the file's `contenu`), null for an article without one. */
  contenu?: Contenu | null;
  /** Whether POST /shop/acheter can sell it (its `devise` is a declared currency and it has a `contenu`). */
  achetable?: boolean;
}
/** Currencies and objects granted, by code: `{monnaies: {or: 500}, objets: {epee: 1}}`. */
export interface Contenu { monnaies?: Record<string, number>; objets?: Record<string, number> }
/** One currency of the player's wallet (GET /economie/portefeuille): `max` null when uncapped. */
export interface Solde { code: string; nom: string; solde: number; max: number | null }
/** One object the player holds (GET /economie/inventaire), quantity > 0. */
export interface ObjetPossede { code: string; nom: string; quantite: number; empilable: boolean; max: number | null }
/** POST /shop/acheter's answer: the purchase, then the new wallet and inventory. */
export interface Achat {
  achat: { article: string; quantite: number; prix_total: number; devise: string };
  portefeuille: Solde[];
  inventaire: ObjetPossede[];
}
/** One row of the player's ledger (GET /economie/historique). */
export interface Mouvement {
  id: number; type: 'monnaie' | 'objet'; code: string; delta: number; apres: number;
  raison: 'depart' | 'achat' | 'utilisation' | 'recompense' | 'support' | 'regles'; ref: Record<string, unknown>; cree_le: string;
}
/** A page of the ledger, newest first: `suivant` is the `avant` of the next page, null at the end. */
export interface Historique { mouvements: Mouvement[]; suivant: number | null }
export interface PanelConfig { theme: Record<string, string | null>; textes: Record<string, string>; [k: string]: unknown }

/** `elo`: the player's rating at the start of the match (the server's in an `"elo": "serveur"` mode, the `elo_actuel` sent otherwise). */
export interface Participant { joueur_id: string; pseudo: string; equipe: number; elo: number | null }
/** One mode's server-side rating (GET /players/me's `elo`, by mode code): unrounded; `parties` rated matches played. */
export interface EloMode { valeur: number; parties: number }
export interface MatchStatus {
  status: 'idle' | 'waiting' | 'matched';
  queue_id?: string;
  position?: number;
  partie_id?: string;
  code_salon?: string;
  equipe?: number;
  participants?: Participant[];
  [k: string]: unknown;
}
export interface Partie {
  id: string; mode_jeu: string; statut: 'en_cours' | 'terminee' | 'annulee'; tour_joueur: string | null; numero_tour: number;
  etat_plateau: Record<string, unknown>; participants: Participant[]; gagnant_id: string | null;
  gagnant_equipe: number | null; code_salon: string; cree_le: string; maj_le: string; termine_le: string | null;
  /** When the turn of `tour_joueur` expires (`maj_le` + the mode's `delai_tour_s`); null without a timer or once over. */
  tour_expire_le: string | null;
  /**
   * Whether the match's end counted (paid the mode's `recompenses`, moved the server's Elo,
   * credited `classement_victoires`): false when it ended before the mode's `actions_min`
   * actions were played, or was cancelled; null while `en_cours`. Optional: older servers omit it.
   */
  comptee?: boolean | null;
}
/** One accepted action of GET /match/history: `numero` 1, 2, 3, ... in the order the server accepted them. */
export interface HistoryAction {
  numero: number; joueur_id: string | null; action: string; donnees: Record<string, unknown>; numero_tour: number; cree_le: string;
}
/** A page of GET /match/history: `suivant` is the `depuis` of the next page, null when none follows (yet). */
export interface MatchHistory {
  partie_id: string;
  /** The match as it was created (null only for an old match of a game's own rule set; see docs/matches.md). */
  etat_initial: Partie | null;
  actions: HistoryAction[];
  suivant: number | null;
  /** The match's `partie.comptee` (null while `en_cours`): a replay gives it to the state that ends the match. */
  comptee?: boolean | null;
}
/** The room's `action` event; `joueur_id` null for an action of the server (`delai_depasse`: a turn expired; `fin_admin`, `annulation_admin`: an operator ended or cancelled the match). */
export interface MatchActionEvent { joueur_id: string | null; action: string; donnees: Record<string, unknown>; numero_tour: number }

export interface RealtimeConfig {
  url: string; key: string; channel_prefix: string; private: boolean; token: string | null; token_expire_le: string | null;
  /**
   * The game file's realtime.evenements when not the default (absent: `action_etat`, an
   * `action` then an `etat` on the match room): `etat` (one `etat` carrying `action`, on the
   * room) or `etat_aux_autres` (that `etat` on the other participants' own channels). The SDK
   * follows it by itself (docs/matches.md, "Events per action").
   */
  evenements?: 'action_etat' | 'etat' | 'etat_aux_autres';
}

/** Where the session is kept; `localStorage` by default. */
export interface SessionStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}
