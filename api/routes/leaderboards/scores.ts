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
  tag: 'Classements',
  summary: 'Lire un classement (période en cours)',
  description: 'Une entrée par joueur, dans l’ordre du classement ; les ex æquo partagent un rang '
    + '(1, 2, 2, 4) et, à valeur égale, le premier à l’avoir atteinte passe devant. '
    + '`autour=moi` (jeton requis) renvoie les `limit` entrées centrées sur le joueur connecté '
    + '(liste vide s’il n’a pas d’entrée) ; il ne se combine pas avec `offset`.',
  auth: 'key',
  params: BoardParams,
  notFound: ERRORS.leaderboardNotFound,
  query: z.strictObject({
    limit: IntParam(1, 100).optional().meta({ description: '1 à 100, 10 par défaut.' }),
    offset: IntParam(0, 1e15).optional().meta({ description: '0 ou plus, 0 par défaut.' }),
    autour: z.literal('moi').optional().meta({ description: '`moi` : la fenêtre centrée sur le joueur connecté.' }),
  }).refine((q) => q.autour === undefined || !q.offset, {
    message: 'offset ne s’emploie pas avec autour=moi', path: ['offset'],
  }),
  response: z.object({ data: z.array(Score) }),
  handler: ({ params, query, ctx, deps }) =>
    passApi(deps.pool, 'leaderboards_scores', ctx, {
      id: boardId(params.id), limit: query.limit, offset: query.offset, autour: query.autour,
    }),
});
