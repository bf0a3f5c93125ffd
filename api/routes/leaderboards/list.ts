// GET /leaderboards → api.leaderboards_list
// SQL now: supabase/schema/functions/api.leaderboards_list.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { passApi } from '../../db/pool.js';

export const Board = z.object({
  id: z.string().meta({ description: 'The board\'s id, as in the game file (`classements`): the `:id` of its other endpoints.' }),
  nom: z.string().nullable(),
  ordre: z.enum(['desc', 'asc']),
  operateur: z.enum(['meilleur', 'dernier', 'somme']),
  reinitialisation: z.enum(['aucune', 'quotidienne', 'hebdomadaire', 'mensuelle']),
  periode_debut: z.string().nullable().meta({ description: 'When the current period began (UTC); null for a board never reset.' }),
  periode_fin: z.string().nullable().meta({ description: 'When it resets; null for a board never reset.' }),
}).meta({ id: 'Classement' });

export default defineRoute({
  method: 'get',
  path: '/leaderboards',
  tag: 'Leaderboards',
  summary: 'List the game\'s leaderboards',
  description: 'Every leaderboard of the game that is not retired, by id: its order, operator, reset and current period.',
  auth: 'key',
  response: z.object({ data: z.array(Board) }),
  handler: ({ ctx, deps }) => passApi(deps.pool, 'leaderboards_list', ctx, {}),
});
