// The OpenAPI document, generated from the routes' zod schemas, and a docs page
// (Swagger UI from the swagger-ui-dist package, served locally: no CDN needed). Its texts
// are English, like Swagger UI's own; docs/api.md, which it links, says the rest.
import express from 'express';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { OpenAPIRegistry, OpenApiGeneratorV31, extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { getAbsoluteFSPath } from 'swagger-ui-dist';
import type { RouteDef } from './http/route.js';
import { knownCodes, messageFor } from './http/messages.js';

extendZodWithOpenApi(z);

/**
 * Every error code a client of the public API can get, with its HTTP status(es): the table
 * the error responses point to. test/openapi.test.ts checks it against the façade's
 * errors, the codes the SQL functions raise (with their statuses) and the texts.
 */
export const ERROR_CODES: ReadonlyArray<readonly [code: string, statuses: readonly number[]]> = [
  ['missing_key', [401]],
  ['invalid_key', [401]],
  ['missing_player', [401]],
  ['invalid_token', [401]],
  ['invalid_credentials', [401]],
  ['invalid_json', [400]],
  ['unsupported_media_type', [415]],
  ['validation_failed', [400]],
  ['invalid_query', [400]],
  ['payload_too_large', [413]],
  ['bad_request', [400]],
  ['request_timeout', [408]],
  ['headers_too_large', [431]],
  ['forbidden', [403]],
  ['not_participant', [403]],
  ['not_found', [404]],
  ['table_not_found', [404]],
  ['row_not_found', [404]],
  ['file_not_found', [404]],
  ['leaderboard_not_found', [404]],
  ['mode_not_found', [404]],
  ['match_not_found', [404]],
  ['player_not_found', [404]],
  ['pseudo_taken', [409]],
  ['email_taken', [409]],
  ['already_linked', [409]],
  ['google_taken', [409]],
  ['identity_taken', [409]],
  ['fournisseur_inconnu', [400]],
  ['fournisseur_non_configure', [503]],
  ['compte_steam_banni', [403]],
  ['notifications_indisponibles', [409]],
  ['idempotency_conflict', [409]],
  ['action_refusee', [409]],
  ['upload_failed', [400, 409, 413, 415]],
  ['article_introuvable', [404]],
  ['objet_introuvable', [404]],
  ['monnaie_introuvable', [404]],
  ['article_inactif', [409]],
  ['article_non_achetable', [409]],
  ['solde_insuffisant', [409]],
  ['quantite_insuffisante', [409]],
  ['limite_atteinte', [409]],
  ['compte_suspendu', [403]],
  ['code_invalide', [400]],
  ['too_many_attempts', [429]],
  ['rate_limited', [429]],
  ['too_many_connections', [429]],
  ['internal_error', [500]],
  ['unavailable', [503]],
];

/** Codes only the admin commands (`manette keys`, `import`, ...) give: not in the API's table. */
export const ADMIN_ONLY_CODES: readonly string[] = ['game_not_found', 'key_not_found', 'last_active_key', 'match_over', 'game_file_differs', 'score_not_found', 'session_not_found'];

const codeTable = () => [
  'Every error answers `{ok: false, error, message}` with one of these codes (`message` is the player-facing '
    + 'text, in English when `Accept-Language` prefers it, French otherwise). `reason` refines `upload_failed`, '
    + '`action_refusee`, `compte_steam_banni` (`vac`, `editeur`), `fournisseur_non_configure` (`steam`, `discord`) and some `validation_failed`; `details: [{champ, message}]` lists the fields of '
    + '`validation_failed` and `invalid_query`. `rate_limited`, `too_many_attempts` and `unavailable` set `Retry-After`.',
  '',
  '| Code | HTTP status | Meaning |',
  '| --- | --- | --- |',
  ...ERROR_CODES.map(([code, statuses]) => `| \`${code}\` | ${statuses.join(', ')} | ${messageFor(code, 'en')} |`),
].join('\n');

const ErrorCode = z.enum(ERROR_CODES.map(([code]) => code) as [string, ...string[]])
  .meta({ id: 'ErrorCode', description: codeTable() });

const ErrorBody = z.object({
  ok: z.literal(false),
  error: ErrorCode,
  message: z.string().meta({ description: 'Text for the player: English when Accept-Language prefers it, French otherwise.' }),
  reason: z.string().optional().meta({ description: 'Why, for `upload_failed`, `action_refusee`, `compte_steam_banni`, `fournisseur_non_configure` and some `validation_failed`.' }),
  details: z.array(z.object({
    champ: z.string().meta({ description: 'The field’s path (`donnees.quantite`); the header’s name for `Idempotency-Key`.' }),
    message: z.string(),
  })).optional().meta({ description: '`validation_failed` and `invalid_query`: one entry per refused field.' }),
  jusqu_a: z.string().nullable().optional().meta({
    description: '`compte_suspendu`: when the suspension ends (ISO 8601, UTC), or null when it lasts until lifted.',
  }),
}).meta({ id: 'Error', example: { ok: false, error: 'missing_key', message: messageFor('missing_key', 'en') } });

// The header every creating POST takes (docs/api.md, "Idempotency-Key").
const IdempotencyHeaders = z.object({
  'Idempotency-Key': z.string().optional().meta({
    description: '1 to 255 visible ASCII characters (a UUID made by the client). The same key, in the same scope, '
      + 'with the same request within 24 h returns the first response and writes nothing more; '
      + 'with another request: 409 `idempotency_conflict`.',
  }),
});

/** `{ok, token, data}`: the success envelope's keys, as the response description says them. */
const envelopeOf = (shape: Record<string, unknown>) => `{${['ok', ...Object.keys(shape)].join(', ')}}`;

export function buildOpenApi(routes: RouteDef<unknown, unknown, unknown>[], basePath: string): object {
  const registry = new OpenAPIRegistry();
  const apiKey = registry.registerComponent('securitySchemes', 'apiKey', {
    type: 'apiKey', in: 'header', name: 'x-api-key', description: 'The game’s API key (public, shipped in game clients).',
  });
  const playerToken = registry.registerComponent('securitySchemes', 'playerToken', {
    type: 'apiKey', in: 'header', name: 'x-player-token', description: 'A player’s session token (`pt_…`), from register or login.',
  });
  registry.register('ErrorCode', ErrorCode);
  registry.register('Error', ErrorBody);

  for (const r of routes) {
    const shape = r.response instanceof z.ZodObject ? r.response.shape : { data: z.unknown() };
    const success = z.object({ ok: z.literal(true) }).extend(shape);
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
        [status]: { description: `Success: \`${envelopeOf(shape)}\``, content: { 'application/json': { schema: success } } },
        ...(r.alsoStatus ? { [r.alsoStatus]: { description: `Success: \`${envelopeOf(shape)}\``, content: { 'application/json': { schema: success } } } } : {}),
        default: {
          description: 'Error: `{ok: false, error, message}`, `error` one of the codes of the ErrorCode schema.',
          content: { 'application/json': { schema: ErrorBody } },
        },
      },
    });
  }

  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Manette — public API',
      version: '1',
      description: [
        'Game backend: players, data tables, files, leaderboards, shop, matchmaking, matches.',
        '',
        '- **Success**: `{ok: true, data}`, the payload in `data`. The fields beside `ok` other than `data` are a '
          + 'closed list: `token` (beside `data`) for register, login, Google login and guests; `status` and its fields '
          + 'for matchmaking (`/matchmaking/*`); `partie` and the like for matches (`/match/*`); the settings themselves '
          + 'for `/realtime/config`. Every other operation, and any added later, answers `{ok: true, data}`.',
        '- **Error**: `{ok: false, error, message}`; `error` is one of the codes of the **ErrorCode** schema '
          + '(below, with each code’s HTTP status and meaning).',
        '- **Keys**: the game’s key as `x-api-key`; for a player’s operations, the session token as `x-player-token`.',
        '- **Language**: `message` and the fields’ messages are in English when `Accept-Language` prefers it, French otherwise.',
      ].join('\n'),
    },
    externalDocs: {
      description: 'docs/api.md: the envelope, errors, limits and the choices behind them',
      url: `${basePath}/docs/api.md`,
    },
    servers: [{ url: basePath }],
  });
}

// The docs/*.md pages, so that the document's link to docs/api.md (and its links to the
// others) work from the server; absent from the Edge Function's bundle (the JSON 404).
const DOCS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'docs');

export function docsRouter(specUrl: string): express.Router {
  const router = express.Router();
  const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Manette — public API</title>
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
    // An absolute URL: Swagger UI resolves the document's relative links (externalDocs) against it.
    res.type('js').send(`window.ui = SwaggerUIBundle({url: new URL(${JSON.stringify(specUrl)}, location.href).href, dom_id: '#docs'});`);
  });
  router.use(express.static(DOCS_DIR, {
    index: false, redirect: false, dotfiles: 'ignore', extensions: false,
    setHeaders: (res, file) => { if (file.endsWith('.md')) res.setHeader('Content-Type', 'text/markdown; charset=utf-8'); },
  }));
  // Swagger UI's files: none in the Edge Function's bundle (api/edge/bundle.ts), where they
  // answer the JSON 404.
  const assets: string | undefined = getAbsoluteFSPath();
  if (assets) router.use(express.static(assets, { index: false }));
  return router;
}
