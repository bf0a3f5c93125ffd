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
  summary: 'Entrer dans la file d’un mode de jeu',
  description: 'Forme une salle tout de suite si possible (`matched`), sinon `waiting`. '
    + 'Rejoindre à nouveau le même mode renvoie l’entrée en cours ; un autre mode déplace l’entrée ; '
    + 'un joueur dont la partie est en cours reçoit cette partie (`matched`).',
  auth: 'player',
  body: z.object({
    mode_jeu: z.string().min(1).max(200),
    elo_actuel: z.number().finite().min(0).max(10000),
  }),
  response: JoinResult,
  handler: ({ body, ctx, deps }) => passApi(deps.pool, 'matchmaking_join', ctx, body),
});
