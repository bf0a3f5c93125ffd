// GET /shop/articles → api.shop_articles
// SQL now: supabase/schema/functions/api.shop_articles.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { passApi } from '../../db/pool.js';

export const Article = z.object({
  id: z.uuid().meta({ description: 'Stable d’une application du fichier de jeu à l’autre.' }),
  code: z.string(),
  nom: z.string(),
  description: z.string().nullable(),
  prix: z.number(),
  devise: z.string(),
  image_url: z.string().nullable(),
  metadonnees: z.record(z.string(), z.unknown()),
}).meta({ id: 'Article' });

export default defineRoute({
  method: 'get',
  path: '/shop/articles',
  tag: 'Boutique',
  summary: 'Articles en vente',
  description: 'Articles `actif` dans leur fenêtre `debut`/`fin` éventuelle, triés par `ordre` puis `nom`.',
  auth: 'key',
  response: z.object({ data: z.array(Article) }),
  handler: ({ ctx, deps }) => passApi(deps.pool, 'shop_articles', ctx),
});
