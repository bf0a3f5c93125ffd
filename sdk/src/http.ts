// One request to the API: headers, the envelope, ManetteError.
import { ManetteError, networkError, type FieldIssue } from './errors.js';

export const BASE_PATH = '/api/public/v1';

/** `http://host` or `http://host/` → `http://host/api/public/v1`; a URL with a path is kept as given. */
export function apiBase(baseUrl: string): string {
  const url = new URL(baseUrl);
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.origin}${path === '' ? BASE_PATH : path}`;
}

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined | null>;
  token?: string | null;
  idempotencyKey?: string;
  signal?: AbortSignal;
  /** Outlives the page (a presence mark sent as the page is hidden or closed). */
  keepalive?: boolean;
}

export interface Transport {
  base: string;
  apiKey: string;
  lang: string;
  fetch: typeof fetch;
}

/** The whole JSON body of a success (`{ok: true, ...}`); a ManetteError otherwise. */
export async function request<T = Record<string, unknown>>(t: Transport, method: string, path: string, opts: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { 'x-api-key': t.apiKey, 'Accept-Language': t.lang };
  if (opts.token) headers['x-player-token'] = opts.token;
  if (opts.idempotencyKey) headers['Idempotency-Key'] = opts.idempotencyKey;
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['Content-Type'] = 'application/json';
  }
  let url = t.base + path;
  if (opts.query) {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(opts.query)) if (v !== undefined && v !== null) qs.set(k, String(v));
    const s = qs.toString();
    if (s) url += `?${s}`;
  }
  let res: Response;
  try {
    res = await t.fetch(url, { method, headers, body, signal: opts.signal, cache: 'no-store', ...(opts.keepalive ? { keepalive: true } : {}) });
  } catch (err) {
    if (opts.signal?.aborted) throw err;
    throw networkError(err, t.lang);
  }
  const requestId = res.headers.get('x-request-id') ?? undefined;
  let json: Record<string, unknown> | undefined;
  try {
    json = await res.json() as Record<string, unknown>;
  } catch (err) {
    // An answer cut off or not JSON (a proxy's page): the request may or may not have run.
    if (res.ok || res.status >= 500 || res.status === 0) throw networkError(err, t.lang);
  }
  if (res.ok && json?.ok === true) return json as T;
  throw new ManetteError({
    code: typeof json?.error === 'string' ? json.error : res.status >= 500 ? 'internal_error' : 'http_error',
    status: res.status,
    message: typeof json?.message === 'string' ? json.message : res.statusText || `HTTP ${res.status}`,
    reason: typeof json?.reason === 'string' ? json.reason : undefined,
    details: Array.isArray(json?.details) ? json.details as FieldIssue[] : undefined,
    requestId,
    jusqu_a: json && 'jusqu_a' in json ? (typeof json.jusqu_a === 'string' ? json.jusqu_a : null) : undefined,
  });
}

export function randomId(): string {
  const c = globalThis.crypto;
  if (c && typeof c.randomUUID === 'function') return c.randomUUID();
  const b = new Uint8Array(16);
  c.getRandomValues(b);
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Short stable hash (FNV-1a) used to name per-game storage without spelling the key out. */
export function shortHash(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(36);
}
