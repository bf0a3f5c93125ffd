// Wire schemas of the match endpoints: `partie` beside `ok` (docs/matches.md).
import { z } from 'zod';
import { Participant } from '../matchmaking/schemas.js';

export const Partie = z.object({
  id: z.uuid(),
  mode_jeu: z.string(),
  statut: z.enum(['en_cours', 'terminee', 'annulee']).meta({
    description: '`en_cours`, then `terminee` (by the rules, an abandon, a turn timer’s `abandon`, or the operator: `manette match end`) or `annulee` '
      + '(the operator cancelled it: `manette match cancel`, no winner, no win counted). Both are final.',
  }),
  tour_joueur: z.uuid().nullable().meta({ description: 'The player whose turn it is (null once the rules end the match; an operator’s end or cancel leaves it as it was).' }),
  numero_tour: z.number().int().min(1)
    .meta({ description: '1 at the start; +1 for each accepted action (libre, tour_par_tour, morpion, abandonner) and each expired turn (`delai_depasse`); an operator’s end or cancel leaves it.' }),
  etat_plateau: z.unknown().meta({ description: 'The game state kept by the rules, for example `{"cases": [...]}` for morpion (tic-tac-toe).' }),
  participants: z.array(Participant).meta({ description: 'In seat order: team 1 first.' }),
  gagnant_id: z.uuid().nullable(),
  gagnant_equipe: z.number().int().nullable(),
  code_salon: z.string(),
  cree_le: z.string(),
  maj_le: z.string(),
  termine_le: z.string().nullable(),
  comptee: z.boolean().nullable().meta({
    description: 'Whether the match’s end counted: true when it ended `terminee` with at least the mode’s `actions_min` actions '
      + 'played before its end (`abandonner` and the server’s own actions not counted), so it paid the mode’s `recompenses`, '
      + 'moved the server’s Elo and credited `classement_victoires`; false when it ended below that minimum (its result stands, '
      + 'nothing was paid, rated or credited) and for an `annulee` match; null while `en_cours`, and for a match that ended '
      + 'before Manette kept it.',
  }),
  tour_expire_le: z.string().nullable().meta({
    description: 'When the turn of `tour_joueur` expires: `maj_le` + the mode’s `delai_tour_s`, while the match is '
      + '`en_cours` with a player on turn; null in a mode without `delai_tour_s` and once the match is over. At that '
      + 'instant the server applies `delai_depasse` (the mode’s `sur_delai`: `abandon` or `passe`). Every accepted '
      + 'action restarts it.',
  }),
});

export const PartieResult = z.object({ partie: Partie });

export const HistoryAction = z.object({
  numero: z.number().int().min(1).meta({ description: 'The action’s number in this match: 1, 2, 3, ... without gaps.' }),
  joueur_id: z.uuid().nullable().meta({ description: 'Who played it; null for an action of the server (`delai_depasse`: a turn expired; `fin_admin`, `annulation_admin`: an operator ended or cancelled the match) '
    + 'or if that player has since been deleted.' }),
  action: z.string(),
  donnees: z.unknown().meta({ description: 'The `donnees` as sent (`{}` when the request had none).' }),
  numero_tour: z.number().int().min(1).meta({ description: 'The turn it was played in (what the client would send as `numero_tour`).' }),
  cree_le: z.string(),
});

export const HistoryResult = z.object({
  partie_id: z.uuid(),
  etat_initial: Partie.nullable().meta({
    description: 'The `partie` as the match was created: `statut` en_cours, `numero_tour` 1, `tour_joueur` the first seat, '
      + 'the initial `etat_plateau`, no winner. Null only for a match created before Manette kept initial boards, '
      + 'of a game’s own rule set, with actions played.',
  }),
  actions: z.array(HistoryAction).meta({ description: 'In `numero` order.' }),
  suivant: z.number().int().min(1).nullable()
    .meta({ description: 'The `depuis` of the next page; null when no action follows this page (yet, if the match is on).' }),
  comptee: z.boolean().nullable().meta({
    description: 'The match’s `partie.comptee` (null while `en_cours`): what a replay gives the state that ends the match '
      + '(`etat_initial` and the states before the end have it null).',
  }),
});

export const LiveResult = z.object({
  parties: z.array(Partie).meta({
    description: 'The matches in progress of the spectated modes, newest first (`cree_le`, then `id`); empty when there is none.',
  }),
});
