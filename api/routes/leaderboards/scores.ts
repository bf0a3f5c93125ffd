// GET /leaderboards/:id/scores → api.leaderboards_scores
// SQL now: supabase/schema/functions/api.leaderboards_scores.sql
import { z } from 'zod';
import { ERRORS } from '../../http/errors.js';
import { defineRoute } from '../../http/route.js';
import { passApi } from '../../db/pool.js';
import { IntParam } from '../schemas.js';
import { BoardParams, Score, boardId } from './common.js';

export default defineRoute({
  method: 'get',
  path: '/leaderboards/:id/scores',
  tag: 'Leaderboards',
  summary: 'Read a leaderboard (current period)',
  description: 'One entry per player, in board order; ties share a rank (1, 2, 2, 4) and, at equal '
    + 'value, whoever reached it first comes first. `autour=moi` (player token required) returns the '
    + '`limit` entries centred on the logged-in player (an empty list if they have no entry); it does '
    + 'not combine with `offset`.',
  auth: 'key',
  params: BoardParams,
  notFound: ERRORS.leaderboardNotFound,
  query: z.strictObject({
    limit: IntParam(1, 100).optional().meta({ description: '1 to 100, default 10.' }),
    offset: IntParam(0, 1e15).optional().meta({ description: '0 or more, default 0.' }),
    autour: z.literal('moi').optional().meta({ description: '`moi`: the window centred on the logged-in player.' }),
  }).refine((q) => q.autour === undefined || !q.offset, {
    message: 'offset ne s’emploie pas avec autour=moi', path: ['offset'],
  }),
  response: z.object({ data: z.array(Score) }),
  handler: ({ params, query, ctx, deps }) =>
    passApi(deps.pool, 'leaderboards_scores', ctx, {
      id: boardId(params.id), limit: query.limit, offset: query.offset, autour: query.autour,
    }),
});
