// GET /players/me → api.players_me
// SQL now: supabase/schema/functions/api.players_me.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { passApi } from '../../db/pool.js';
import { Joueur } from '../schemas.js';

export default defineRoute({
  method: 'get',
  path: '/players/me',
  tag: 'Players',
  summary: 'The logged-in player (restores a session)',
  auth: 'player',
  response: z.object({ data: z.object({ joueur: Joueur }) }),
  handler: ({ ctx, deps }) => passApi(deps.pool, 'players_me', ctx),
});
