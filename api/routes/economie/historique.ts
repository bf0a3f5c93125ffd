// GET /economie/historique → api.economie_historique
// SQL now: supabase/schema/functions/api.economie_historique.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { passApi } from '../../db/pool.js';
import { IntParam } from '../schemas.js';
import { Mouvement } from './schemas.js';

export default defineRoute({
  method: 'get',
  path: '/economie/historique',
  tag: 'Economy',
  summary: 'The player’s ledger',
  description: 'Every movement of the player’s balances and inventory, newest first: `{ok, data: {mouvements, suivant}}`; '
    + '`suivant` is the `avant` of the next page (null: no more).',
  auth: 'player',
  query: z.strictObject({
    limit: IntParam(1, 100).optional().meta({ description: '1 to 100, default 20.' }),
    avant: IntParam(1, 9e15).optional().meta({ description: 'Movements with a smaller id only.' }),
  }),
  response: z.object({ data: z.object({ mouvements: z.array(Mouvement), suivant: z.number().int().nullable() }) }),
  handler: async ({ query, ctx, deps }) =>
    (await passApi(deps.pool, 'economie_historique', ctx, { limit: query.limit, avant: query.avant })).asData(),
});
