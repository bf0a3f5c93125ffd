// GET /match/state → api.match_state
// SQL now: supabase/schema/functions/api.match_state.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { passApi } from '../../db/pool.js';
import { PartieResult } from './schemas.js';

export default defineRoute({
  method: 'get',
  path: '/match/state',
  tag: 'Matches',
  summary: 'Read a match’s authoritative state (participants; spectators of a mode with spectators)',
  description: 'The same `partie` as the `etat` event. Readable by its participants and, in a mode with '
    + '`"spectateurs": true`, by any player of the game; anyone else gets `not_participant` (403), '
    + 'a match unknown to this game `match_not_found` (404).',
  auth: 'player',
  query: z.strictObject({
    partie_id: z.string().min(1).max(200),
  }),
  response: PartieResult,
  handler: ({ query, ctx, deps }) => passApi(deps.pool, 'match_state', ctx, { partie_id: query.partie_id }),
});
