// POST /players/logout → api.players_logout
// SQL now: supabase/schema/functions/api.players_logout.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { passApi } from '../../db/pool.js';

export default defineRoute({
  method: 'post',
  path: '/players/logout',
  tag: 'Players',
  summary: 'Log out (revokes the token)',
  auth: 'player',
  response: z.object({ data: z.object({}) }),
  handler: ({ ctx, deps }) => passApi(deps.pool, 'players_logout', ctx),
});
