// Idempotency-Key (docs/api.md), read once by the façade for the routes that declare
// `idempotent`: the key, bound to the request's method, path and body. The database does
// the rest (api.idempotent, supabase/migrations/*_idempotency.sql).
import { createHash } from 'node:crypto';
import type { Request } from 'express';
import type { Idempotency } from '../db/pool.js';
import { canonicalJson } from '../canonical-json.js';
import { ERRORS } from './errors.js';
import type { RouteDef } from './route.js';

/** Visible ASCII, as in the header values clients generate (UUIDs, ULIDs, …), 1 to 255 of them. */
const KEY = /^[\x21-\x7e]{1,255}$/;

/** The request's Idempotency-Key and binding, or undefined (no header, or a route without keys). */
export function idempotencyOf(req: Request, route: Pick<RouteDef, 'idempotent' | 'path'>): Idempotency | undefined {
  if (!route.idempotent) return undefined;
  const key = req.get('idempotency-key');
  if (key === undefined) return undefined;
  // Empty, too long, or sent twice (Node joins repeated headers with ", "): refused.
  if (!KEY.test(key)) {
    throw ERRORS.validationFailed([{ champ: 'Idempotency-Key', message: '1 à 255 caractères ASCII visibles' }]);
  }
  const secret = route.idempotent === true ? [] : route.idempotent.secret;
  return {
    key,
    method: req.method,
    path: canonicalPath(route.path, req.params),
    body_hash: sha256Hex(canonicalJson(withoutFields(req.body, secret))),
  };
}

/** The route's path with its parameters as decoded, encoded again: one spelling per resource. */
export function canonicalPath(template: string, params: Record<string, unknown>): string {
  return template.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_, name: string) => encodeURIComponent(String(params[name] ?? '')));
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function withoutFields(body: unknown, fields: readonly string[]): unknown {
  if (fields.length === 0 || body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const copy: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const f of fields) delete copy[f];
  return copy;
}
