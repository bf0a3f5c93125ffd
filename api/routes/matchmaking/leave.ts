// POST /matchmaking/leave → api.matchmaking_leave
// SQL now: supabase/schema/functions/api.matchmaking_leave.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { passApi } from '../../db/pool.js';

export default defineRoute({
  method: 'post',
  path: '/matchmaking/leave',
  tag: 'Matchmaking',
  summary: 'Leave the queue (no effect on a match in progress)',
  auth: 'player',
  response: z.object({ status: z.literal('idle') }),
  handler: ({ ctx, deps }) => passApi(deps.pool, 'matchmaking_leave', ctx),
});
