// GET /matchmaking/status → api.matchmaking_status
// SQL now: supabase/schema/functions/api.matchmaking_status.sql
import { defineRoute } from '../../http/route.js';
import { passApi } from '../../db/pool.js';
import { MatchmakingState } from './schemas.js';

export default defineRoute({
  method: 'get',
  path: '/matchmaking/status',
  tag: 'Matchmaking',
  summary: 'The player’s state: idle, waiting or matched',
  description: 'Each call keeps the queue entry alive (an entry neither joined nor polled for '
    + '`delai_inactivite_s` seconds is dropped) and tries to form rooms.',
  auth: 'player',
  response: MatchmakingState,
  handler: ({ ctx, deps }) => passApi(deps.pool, 'matchmaking_status', ctx),
});
