// GET /players/me → api.players_me
// SQL now: supabase/schema/functions/api.players_me.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { passApi } from '../../db/pool.js';
import { Joueur, Ratings } from '../schemas.js';

export default defineRoute({
  method: 'get',
  path: '/players/me',
  tag: 'Players',
  summary: 'The logged-in player (restores a session)',
  auth: 'player',
  description: '`elo`: the player’s server-side ratings, one entry per game mode with `"elo": "serveur"` '
    + '(the mode’s `elo_depart` and 0 `parties` before a first rated match); `{}` when the game has no such mode.',
  response: z.object({ data: z.object({ joueur: Joueur, elo: Ratings }) }),
  handler: ({ ctx, deps }) => passApi(deps.pool, 'players_me', ctx),
});
