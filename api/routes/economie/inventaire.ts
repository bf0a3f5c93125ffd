// GET /economie/inventaire → api.economie_inventaire
// SQL now: supabase/schema/functions/api.economie_inventaire.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { passApi } from '../../db/pool.js';
import { Inventaire } from './schemas.js';

export default defineRoute({
  method: 'get',
  path: '/economie/inventaire',
  tag: 'Economy',
  summary: 'The player’s inventory',
  description: 'The objects the player holds (quantity above 0), by code.',
  auth: 'player',
  response: z.object({ data: Inventaire }),
  handler: async ({ ctx, deps }) => (await passApi(deps.pool, 'economie_inventaire', ctx)).asData('inventaire'),
});
