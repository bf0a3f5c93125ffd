// GET /economie/portefeuille → api.economie_portefeuille
// SQL now: supabase/schema/functions/api.economie_portefeuille.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { passApi } from '../../db/pool.js';
import { Portefeuille } from './schemas.js';

export default defineRoute({
  method: 'get',
  path: '/economie/portefeuille',
  tag: 'Economy',
  summary: 'The player’s wallet',
  description: 'Every currency of the game file with the player’s balance; a balance never moved is the '
    + 'currency’s `depart` (shown without being written).',
  auth: 'player',
  response: z.object({ data: Portefeuille }),
  handler: async ({ ctx, deps }) => (await passApi(deps.pool, 'economie_portefeuille', ctx)).asData('portefeuille'),
});
