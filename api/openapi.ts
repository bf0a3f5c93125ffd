// The OpenAPI document, generated from the routes' zod schemas, and a docs page
// (Swagger UI from the swagger-ui-dist package, served locally: no CDN needed).
import express from 'express';
import { z } from 'zod';
import { OpenAPIRegistry, OpenApiGeneratorV31, extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { getAbsoluteFSPath } from 'swagger-ui-dist';
import type { RouteDef } from './http/route.js';

extendZodWithOpenApi(z);

const ErrorBody = z.object({
  ok: z.literal(false),
  error: z.string().meta({ description: 'Code technique (missing_key, validation_failed, …)' }),
  message: z.string().meta({ description: 'Texte pour le joueur (français, anglais si Accept-Language le préfère)' }),
  reason: z.string().optional(),
  details: z.array(z.object({ champ: z.string(), message: z.string() })).optional(),
}).meta({ id: 'Erreur' });

// The header every creating POST takes (docs/api.md, "Idempotency-Key").
const IdempotencyHeaders = z.object({
  'Idempotency-Key': z.string().optional().meta({
    description: '1 à 255 caractères ASCII visibles (un UUID du client). La même clé, de la même portée, '
      + 'avec la même requête dans les 24 h renvoie la première réponse sans rien écrire de plus ; '
      + 'avec une autre requête : 409 `idempotency_conflict`.',
  }),
});

export function buildOpenApi(routes: RouteDef<unknown, unknown, unknown>[], basePath: string): object {
  const registry = new OpenAPIRegistry();
  const apiKey = registry.registerComponent('securitySchemes', 'apiKey', { type: 'apiKey', in: 'header', name: 'x-api-key' });
  const playerToken = registry.registerComponent('securitySchemes', 'playerToken', { type: 'apiKey', in: 'header', name: 'x-player-token' });

  for (const r of routes) {
    const success = z.object({ ok: z.literal(true) }).extend(
      r.response instanceof z.ZodObject ? r.response.shape : { data: z.unknown() });
    const status = r.status ?? 200;
    registry.registerPath({
      method: r.method,
      path: r.path.replace(/:(\w+)/g, '{$1}'),
      tags: [r.tag],
      summary: r.summary,
      description: r.description,
      security: r.auth === 'public' ? [] : r.auth === 'key' ? [{ [apiKey.name]: [] }] : [{ [apiKey.name]: [], [playerToken.name]: [] }],
      request: {
        ...(r.params instanceof z.ZodObject ? { params: r.params } : {}),
        ...(r.query instanceof z.ZodObject ? { query: r.query } : {}),
        ...(r.idempotent ? { headers: IdempotencyHeaders } : {}),
        ...(r.body ? { body: { content: { 'application/json': { schema: r.body } } } } : {}),
      },
      responses: {
        [status]: { description: 'Succès', content: { 'application/json': { schema: success } } },
        default: { description: 'Erreur (voir la table des codes)', content: { 'application/json': { schema: ErrorBody } } },
      },
    });
  }

  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Manette — API publique',
      version: '1',
      description: 'Backend de jeu : joueurs, tables, fichiers, classements, boutique, matchmaking, parties. '
        + 'Enveloppe : `{ok: true, data}` ou `{ok: false, error, message}`. Voir docs/api.md pour les décisions du contrat.',
    },
    servers: [{ url: basePath }],
  });
}

export function docsRouter(specUrl: string): express.Router {
  const router = express.Router();
  const page = `<!doctype html>
<html lang="fr"><head><meta charset="utf-8"><title>Manette — API</title>
<link rel="stylesheet" href="swagger-ui.css"></head>
<body><div id="docs"></div><script src="swagger-ui-bundle.js"></script>
<script src="init.js"></script></body></html>`;
  router.get('/', (req, res, next) => {
    // Relative asset URLs need the trailing slash.
    if (!req.originalUrl.split('?')[0]!.endsWith('/')) return res.redirect(301, req.originalUrl.replace(/(\?|$)/, '/$1'));
    res.type('html').send(page);
    void next;
  });
  router.get('/init.js', (_req, res) => {
    res.type('js').send(`window.ui = SwaggerUIBundle({url: ${JSON.stringify(specUrl)}, dom_id: '#docs'});`);
  });
  // Swagger UI's files: none in the Edge Function's bundle (api/edge/bundle.ts), where they
  // answer the JSON 404.
  const assets: string | undefined = getAbsoluteFSPath();
  if (assets) router.use(express.static(assets, { index: false }));
  return router;
}
