// POST /economie/utiliser → api.economie_utiliser
// SQL now: supabase/schema/functions/api.economie_utiliser.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { passApi } from '../../db/pool.js';
import { Inventaire } from './schemas.js';

export default defineRoute({
  method: 'post',
  path: '/economie/utiliser',
  tag: 'Economy',
  summary: 'Use (consume) objects',
  description: 'Takes `quantite` of the object from the inventory in one guarded statement (ledger reason '
    + '`utilisation`). Not enough: 409 `quantite_insuffisante`, nothing changed; an object the game file does '
    + 'not declare: 404 `objet_introuvable`. `Idempotency-Key` header: a replay within 24 h consumes nothing more.',
  auth: 'player',
  idempotent: true,
  body: z.strictObject({
    objet: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/),
    quantite: z.number().int().min(1).max(1000),
  }),
  response: z.object({ data: z.object({ inventaire: Inventaire.meta({ description: 'The inventory after the use: the objects held (quantite > 0), by code.' }) }) }),
  handler: async ({ body, ctx, deps }) => (await passApi(deps.pool, 'economie_utiliser', ctx, body)).asData(),
});
