// POST /matchmaking/join → api.matchmaking_join
// SQL now: supabase/schema/functions/api.matchmaking_join.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { passApi } from '../../db/pool.js';
import { JoinResult } from './schemas.js';

export default defineRoute({
  method: 'post',
  path: '/matchmaking/join',
  tag: 'Matchmaking',
  summary: 'Join a game mode’s queue',
  description: 'Forms a room at once when it can (`matched`), otherwise `waiting`. '
    + 'Joining the same mode again returns the current entry; another mode moves the entry; '
    + 'a player whose match is in progress gets that match (`matched`).',
  auth: 'player',
  body: z.object({
    mode_jeu: z.string().min(1).max(200),
    elo_actuel: z.number().finite().min(0).max(10000),
  }),
  response: JoinResult,
  handler: ({ body, ctx, deps }) => passApi(deps.pool, 'matchmaking_join', ctx, body),
});
