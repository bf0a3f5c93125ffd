// POST /shop/acheter → api.shop_acheter
// SQL now: supabase/schema/functions/api.shop_acheter.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { passApi } from '../../db/pool.js';
import { Inventaire, Portefeuille } from '../economie/schemas.js';

export default defineRoute({
  method: 'post',
  path: '/shop/acheter',
  tag: 'Shop',
  summary: 'Buy an article',
  description: 'In one transaction: the article exists (404 `article_introuvable`, also once removed from the '
    + 'game file), is active within its `debut`/`fin` (409 `article_inactif`) and buyable (409 '
    + '`article_non_achetable`: its `devise` is not a currency of the game file or it has no `contenu`); '
    + '`prix × quantite` of the `devise` is debited (409 `solde_insuffisant`) and `contenu × quantite` granted '
    + '(409 `limite_atteinte` past a cap), one ledger row per movement (reason `achat`). Any refusal changes '
    + 'nothing. `Idempotency-Key` header: a replay within 24 h returns the first answer and buys nothing more.',
  auth: 'player',
  idempotent: true,
  body: z.strictObject({
    code: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/),
    quantite: z.number().int().min(1).max(100).optional().meta({ description: '1 to 100, default 1.' }),
  }),
  response: z.object({
    data: z.object({
      achat: z.object({ article: z.string(), quantite: z.number().int(), prix_total: z.number().int(), devise: z.string() }),
      portefeuille: Portefeuille.meta({ description: 'The wallet after the purchase: every currency of the game, by code.' }),
      inventaire: Inventaire.meta({ description: 'The inventory after the purchase: the objects held (quantite > 0), by code.' }),
    }),
  }),
  handler: async ({ body, ctx, deps }) => (await passApi(deps.pool, 'shop_acheter', ctx, body)).asData(),
});
