// GET /match/state → api.match_state
// SQL now: supabase/schema/functions/api.match_state.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { passApi } from '../../db/pool.js';
import { PartieResult } from './schemas.js';

export default defineRoute({
  method: 'get',
  path: '/match/state',
  tag: 'Parties',
  summary: 'Lire l’état officiel d’une partie (participants seulement)',
  description: 'La même `partie` que l’événement `etat`. Un non-participant reçoit `not_participant` (403), '
    + 'une partie inconnue de ce jeu `match_not_found` (404).',
  auth: 'player',
  query: z.strictObject({
    partie_id: z.string().min(1).max(200),
  }),
  response: PartieResult,
  handler: ({ query, ctx, deps }) => passApi(deps.pool, 'match_state', ctx, { partie_id: query.partie_id }),
});
