// POST /match/action → api.match_action
// SQL now: supabase/schema/functions/api.match_action.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { passApi } from '../../db/pool.js';
import { PartieResult } from './schemas.js';

export default defineRoute({
  method: 'post',
  path: '/match/action',
  tag: 'Matches',
  summary: 'Play an action in a match',
  description: 'The mode’s rules decide; the accepted state is stored, then broadcast on the channel '
    + '`manette_partie_<partie_id>` (events `action` then `etat`, after commit). Refusal: 409 '
    + '`action_refusee` with `reason` (`partie_terminee`: the match is `terminee` or `annulee`; `tour_perime`, `pas_ton_tour`, `action_inconnue`, '
    + '`donnees_invalides`, `case_occupee`, `hors_plateau`, `etat_trop_grand` (the new `etat_plateau` would be larger '
    + 'than the game’s `taille_max_etat`), `donnees_trop_grandes` (`donnees` larger than `taille_max_etat`, or an `action` event '
    + 'larger than 256 000 bytes, the smallest plan’s Realtime payload limit), `solde_insuffisant`, `quantite_insuffisante`, `limite_atteinte` (the rule set’s `economie` '
    + 'would take a balance below 0 or past a cap), or a reason of the game’s own). Every rule set '
    + 'accepts `abandonner` (resign); `initialiser`, `delai_depasse`, `fin_admin` and `annulation_admin` are reserved (`action_inconnue`). A turn that expired (the mode’s `delai_tour_s`) is applied first, as the server’s action `delai_depasse`, and stays applied even when this action is then refused. `Idempotency-Key` header: the same key from the same player within 24 h '
    + 'returns the first response and plays nothing more.',
  auth: 'player',
  idempotent: true,
  body: z.object({
    partie_id: z.string().max(200).meta({ description: 'An unknown or malformed id is `match_not_found`.' }),
    action: z.string().min(1).max(200),
    donnees: z.record(z.string(), z.unknown()).optional().meta({ description: 'An object; `{}` when absent.' }),
    numero_tour: z.number().int().min(1).max(2147483647).nullable().optional()
      .meta({ description: 'When given: the turn the player believes current; otherwise `tour_perime`.' }),
  }),
  response: PartieResult,
  handler: ({ body, ctx, deps }) => passApi(deps.pool, 'match_action', ctx, body),
});
