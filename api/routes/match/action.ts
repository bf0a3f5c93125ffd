// POST /match/action → api.match_action
// SQL now: supabase/schema/functions/api.match_action.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { passApi } from '../../db/pool.js';
import { PartieResult } from './schemas.js';

export default defineRoute({
  method: 'post',
  path: '/match/action',
  tag: 'Parties',
  summary: 'Jouer une action dans une partie',
  description: 'Le jeu de règles du mode décide ; l’état accepté est enregistré puis diffusé sur le canal '
    + '`manette_partie_<partie_id>` (événements `action` puis `etat`, après validation). Refus : 409 '
    + '`action_refusee` avec `reason` (`partie_terminee`, `tour_perime`, `pas_ton_tour`, `action_inconnue`, '
    + '`donnees_invalides`, `case_occupee`, `hors_plateau`, ou une raison du jeu). `abandonner` est '
    + 'accepté par tous les jeux de règles. En-tête `Idempotency-Key` : la même clé du même joueur dans les 24 h '
    + 'renvoie la première réponse et ne joue rien de plus.',
  auth: 'player',
  idempotent: true,
  body: z.object({
    partie_id: z.string().max(200).meta({ description: 'Un identifiant inconnu ou mal formé donne `match_not_found`.' }),
    action: z.string().min(1).max(200),
    donnees: z.record(z.string(), z.unknown()).optional().meta({ description: 'Objet ; `{}` si absent.' }),
    numero_tour: z.number().int().min(1).max(2147483647).nullable().optional()
      .meta({ description: 'Si donné : le tour que le joueur croit courant ; sinon `tour_perime`.' }),
  }),
  response: PartieResult,
  handler: ({ body, ctx, deps }) => passApi(deps.pool, 'match_action', ctx, body),
});
