// Replay (docs/matches.md#replay-in-the-sdk): every state of a match rebuilt from its
// history (GET /match/history), the initial state then the `partie` after each accepted
// action, exactly as the server computed them (timestamps included). The shipped rule sets
// are written again here from their SQL (manette.regles_*); a game with its own rule set
// passes a function with the same signature as its SQL one.
import type { HistoryAction, MatchHistory, Partie } from './types.js';

/**
 * What a rule function returns, as the SQL one does: only the fields it changes. The server
 * (and the replay) keep every field left out.
 */
export interface RulesResult {
  etat_plateau?: Record<string, unknown>;
  tour_joueur?: string | null;
  numero_tour?: number;
  statut?: 'en_cours' | 'terminee';
  gagnant_id?: string | null;
  gagnant_equipe?: number | null;
}

/**
 * A rule set, the same signature as a game's SQL function
 * `schema.fonction(partie jsonb, joueur_id uuid, action text, donnees jsonb) returns jsonb`:
 * the state before the action, who played it, the action and its data; returns the fields
 * it changes. It is only given accepted actions (`abandonner` never reaches it: the server
 * applies it for every rule set) and must not change its arguments.
 */
export type Rules = (partie: Partie, joueur_id: string | null, action: string, donnees: Record<string, unknown>) => RulesResult;

/** The names of the shipped rule sets (a mode's `regles`). */
export type ShippedRules = 'libre' | 'tour_par_tour' | 'morpion';

/** The state of a match the server wrote (statuses and fields other slices of the API may add). */
type State = Omit<Partie, 'statut'> & { statut: string; tour_expire_le?: string | null };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The seat after `player`'s, wrapping; the first seat when `player` has none (manette.partie_next_player). */
function nextPlayer(partie: Partie, player: string | null): string | null {
  const seats = partie.participants;
  if (seats.length === 0) return null;
  const i = seats.findIndex((p) => p.joueur_id === player);
  return seats[i < 0 ? 0 : (i + 1) % seats.length]!.joueur_id;
}

/**
 * `abandonner` (manette.regles_abandon), for every rule set: the match ends; when exactly one
 * other team remains it wins (`gagnant_id` only when that team has one player), else a draw.
 */
export function abandon(partie: Partie, joueur_id: string | null): RulesResult {
  const mine = partie.participants.find((p) => p.joueur_id === joueur_id)?.equipe ?? null;
  const others = [...new Set(partie.participants.map((p) => p.equipe).filter((e) => e !== mine))];
  const ended = { statut: 'terminee', tour_joueur: null, numero_tour: partie.numero_tour + 1 } as const;
  if (others.length !== 1) return { ...ended, gagnant_id: null, gagnant_equipe: null };
  const winners = partie.participants.filter((p) => p.equipe === others[0]);
  return { ...ended, gagnant_id: winners.length === 1 ? winners[0]!.joueur_id : null, gagnant_equipe: others[0]! };
}

const LINES = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]] as const;

/** The shipped rule sets (manette.regles_libre, regles_tour_par_tour, regles_morpion). */
export const shippedRules: Record<ShippedRules, Rules> = {
  // Any object merged into the state (top-level keys), the turn number + 1.
  libre(partie, _joueur, _action, donnees) {
    const board = isObject(partie.etat_plateau) ? { ...partie.etat_plateau, ...donnees } : donnees;
    return { etat_plateau: board, numero_tour: partie.numero_tour + 1 };
  },
  // `libre`, and the turn passes to the next seat.
  tour_par_tour(partie, joueur_id, action, donnees) {
    return { ...shippedRules.libre(partie, joueur_id, action, donnees), tour_joueur: nextPlayer(partie, joueur_id) };
  },
  // `jouer` {case: 0-8}: the first seat plays X, the other O; three in a row win (`ligne`), a full board is a draw.
  morpion(partie, joueur_id, action, donnees) {
    const cell = donnees.case;
    if (action !== 'jouer' || typeof cell !== 'number') throw new Error(`replay: morpion cannot apply "${action}" ${JSON.stringify(donnees)}`);
    const mark = partie.participants[0]?.joueur_id === joueur_id ? 'X' : 'O';
    const cases = [...(partie.etat_plateau.cases as (string | null)[])];
    cases[cell] = mark;
    const line = LINES.find((l) => l.every((i) => cases[i] === mark));
    const numero_tour = partie.numero_tour + 1;
    if (line) {
      return { numero_tour, etat_plateau: { ...partie.etat_plateau, cases, ligne: [...line] }, statut: 'terminee', tour_joueur: null,
        gagnant_id: joueur_id, gagnant_equipe: partie.participants.find((p) => p.joueur_id === joueur_id)?.equipe ?? null };
    }
    if (cases.every((c) => c !== null)) {
      return { numero_tour, etat_plateau: { ...partie.etat_plateau, cases }, statut: 'terminee', tour_joueur: null, gagnant_id: null, gagnant_equipe: null };
    }
    return { numero_tour, etat_plateau: { ...partie.etat_plateau, cases }, tour_joueur: nextPlayer(partie, joueur_id) };
  },
};

/** The rule function for a mode's `regles`: a shipped name, or the game's own function. */
function rulesOf(regles: ShippedRules | Rules): Rules {
  if (typeof regles === 'function') return regles;
  const rules = Object.hasOwn(shippedRules, regles) ? shippedRules[regles] : undefined;
  if (!rules) throw new Error(`replay: "${String(regles)}" is not a shipped rule set (libre, tour_par_tour, morpion): pass the game's rule function`);
  return rules;
}

/**
 * What an action changes: the server's own actions (`joueur_id` null: an expired turn, an
 * administrator's end or cancel), `abandonner`, or the rule set's answer.
 */
function changes(partie: Partie, a: HistoryAction, rules: Rules): Omit<RulesResult, 'statut'> & { statut?: string } {
  if (a.joueur_id === null) {
    const d = a.donnees;
    if (a.action === 'delai_depasse') {
      const late = typeof d.joueur_id === 'string' ? d.joueur_id : null;
      return d.sur_delai === 'abandon' ? abandon(partie, late) : { tour_joueur: nextPlayer(partie, late), numero_tour: partie.numero_tour + 1 };
    }
    if (a.action === 'fin_admin') {
      return { statut: 'terminee', gagnant_id: (d.gagnant_id as string | null | undefined) ?? null, gagnant_equipe: (d.gagnant_equipe as number | null | undefined) ?? null };
    }
    if (a.action === 'annulation_admin') return { statut: 'annulee', gagnant_id: null, gagnant_equipe: null };
  }
  if (a.action === 'abandonner') return abandon(partie, a.joueur_id);
  return rules(partie, a.joueur_id, a.action, a.donnees);
}

const FIELDS = ['etat_plateau', 'tour_joueur', 'numero_tour', 'statut', 'gagnant_id', 'gagnant_equipe'] as const;

/**
 * The state after one action, as manette.match_play writes it: the fields the rules return,
 * `maj_le` the action's `cree_le`, `termine_le` set when the match ends, and, when the server
 * sends `tour_expire_le`, `maj_le` + the mode's turn delay (`delayMs`, null without one)
 * while the match is on with a player on turn.
 */
export function applyAction(partie: Partie, action: HistoryAction, regles: ShippedRules | Rules, delayMs: number | null = null): Partie {
  const r = changes(partie, action, rulesOf(regles)) as Record<string, unknown>;
  const next: State = { ...(partie as State) };
  for (const k of FIELDS) if (r[k] !== undefined) (next as Record<string, unknown>)[k] = r[k];
  next.maj_le = action.cree_le;
  if (next.statut !== 'en_cours') next.termine_le = partie.termine_le ?? action.cree_le;
  if ('tour_expire_le' in partie) {
    next.tour_expire_le = next.statut === 'en_cours' && next.tour_joueur !== null && delayMs !== null
      ? new Date(Date.parse(next.maj_le) + delayMs).toISOString() : null;
  }
  return next as Partie;
}

/** The mode's turn delay, from the initial state: `tour_expire_le - maj_le`, or null. */
export function turnDelayMs(etat_initial: Partie): number | null {
  const expires = (etat_initial as State).tour_expire_le;
  return expires ? Date.parse(expires) - Date.parse(etat_initial.maj_le) : null;
}

/**
 * Every state of a match, in order: `etat_initial`, then the `partie` after each action
 * (`states[i]` is the state after `actions[i - 1]`). `history` holds all the actions (every
 * page: `match(id).replay()` reads them); `regles` is the mode's rule set: a shipped name or
 * the game's own function. Throws when `etat_initial` is null (see docs/matches.md).
 */
export function replayStates(history: Pick<MatchHistory, 'etat_initial' | 'actions' | 'comptee'>, regles: ShippedRules | Rules): Partie[] {
  const initial = history.etat_initial;
  if (!initial) throw new Error('replay: this match has no etat_initial (an old match of a game\'s own rule set)');
  const rules = rulesOf(regles);
  const delay = turnDelayMs(initial);
  const states = [initial];
  for (const a of history.actions) states.push(applyAction(states.at(-1)!, a, rules, delay));
  // `comptee` is not the rules' to say (it depends on the mode's actions_min): the state that
  // ends the match takes the history's, the ones before it keep the initial null.
  const last = states.at(-1)!;
  if (states.length > 1 && 'comptee' in initial && last.statut !== 'en_cours') last.comptee = history.comptee ?? null;
  return states;
}

/** What `match(id).replay()` resolves with: every action (all pages) and every state. */
export interface Replay {
  partie_id: string;
  actions: HistoryAction[];
  /** `etats[0]` is the initial state, `etats[i]` the state after `actions[i - 1]`. */
  etats: Partie[];
}
