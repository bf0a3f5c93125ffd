// GET /match/history → api.match_history
// SQL now: supabase/schema/functions/api.match_history.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { passApi } from '../../db/pool.js';
import { IntParam } from '../schemas.js';
import { HistoryResult } from './schemas.js';

export default defineRoute({
  method: 'get',
  path: '/match/history',
  tag: 'Matches',
  summary: 'Read a match’s accepted actions, in order, with its initial state (participants; spectators of a mode with spectators)',
  description: 'Every accepted action with `numero` > `depuis`, at most `limit` of them, in order, and the match as '
    + 'it was created (`etat_initial`): applying the actions to it with the mode’s rules gives every state the '
    + 'match went through. `suivant` is the `depuis` of the next page (null: no action after this page yet). '
    + 'A finished match stays readable. Readable by its participants and, in a mode with `"spectateurs": true`, by '
    + 'any player of the game; anyone else gets `not_participant` (403), a match unknown to this game `match_not_found` (404).',
  auth: 'player',
  query: z.strictObject({
    partie_id: z.string().min(1).max(200),
    depuis: IntParam(0, 2147483647).optional()
      .meta({ description: 'Return the actions whose `numero` is greater; default 0 (from the first).' }),
    limit: IntParam(1, 500).optional().meta({ description: '1 to 500, default 100.' }),
  }),
  response: HistoryResult,
  handler: ({ query, ctx, deps }) => passApi(deps.pool, 'match_history', ctx, {
    partie_id: query.partie_id, depuis: query.depuis, limit: query.limit,
  }),
});
