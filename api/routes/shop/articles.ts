// GET /shop/articles → api.shop_articles
// SQL now: supabase/schema/functions/api.shop_articles.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { passApi } from '../../db/pool.js';

export const Article = z.object({
  id: z.uuid().meta({ description: 'Stable from one apply of the game file to the next.' }),
  code: z.string(),
  nom: z.string(),
  description: z.string().nullable(),
  prix: z.number(),
  devise: z.string(),
  devise_nom: z.string().nullable().meta({ description: 'The devise’s name in the player’s language (Accept-Language) '
    + 'when it is a currency of the game file (`monnaies`); null for any other devise.' }),
  image_url: z.string().nullable(),
  metadonnees: z.record(z.string(), z.unknown()),
  contenu: z.object({
    monnaies: z.record(z.string(), z.number().int()).optional(),
    objets: z.record(z.string(), z.number().int()).optional(),
  }).nullable().meta({ description: 'What one purchase grants (null: an article without contenu).' }),
  achetable: z.boolean().meta({ description: 'POST /shop/acheter sells it: its devise is a currency of the game '
    + 'file and it has a contenu (else 409 `article_non_achetable`).' }),
}).meta({ id: 'Article' });

export default defineRoute({
  method: 'get',
  path: '/shop/articles',
  tag: 'Shop',
  summary: 'Articles on sale',
  description: '`actif` articles within their optional `debut`/`fin` window, sorted by `ordre`, then `nom`.',
  auth: 'key',
  response: z.object({ data: z.array(Article) }),
  handler: ({ ctx, deps }) => passApi(deps.pool, 'shop_articles', ctx),
});
