// GET /matchmaking/status → api.matchmaking_status
// SQL now: supabase/schema/functions/api.matchmaking_status.sql
import { defineRoute } from '../../http/route.js';
import { passApi } from '../../db/pool.js';
import { MatchmakingState } from './schemas.js';

export default defineRoute({
  method: 'get',
  path: '/matchmaking/status',
  tag: 'Matchmaking',
  summary: 'État du joueur : idle, waiting ou matched',
  description: 'Chaque appel maintient l’entrée en file (une entrée ni rejointe ni interrogée pendant '
    + '`delai_inactivite_s` secondes est abandonnée) et tente de former des salles.',
  auth: 'player',
  response: MatchmakingState,
  handler: ({ ctx, deps }) => passApi(deps.pool, 'matchmaking_status', ctx),
});
