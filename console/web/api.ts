// The console's calls to its server (/api/...): the session's CSRF token on writes, the
// page's language for the messages, {ok, data} unwrapped, failures as ConsoleApiError.
import { currentLang } from './i18n.js';

export interface FieldProblem { champ: string; message: string }

export class ConsoleApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string, readonly details: FieldProblem[] = []) {
    super(message);
  }
}

let csrf = '';
export function setCsrf(token: string): void { csrf = token; }

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { 'x-console-lang': currentLang() };
  if (method !== 'GET') headers['x-csrf-token'] = csrf;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(`/api${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin' });
  } catch {
    throw new ConsoleApiError(0, 'network', currentLang() === 'fr' ? 'La console ne répond plus (arrêtée ?).' : 'The console does not answer (stopped?).');
  }
  const json = await res.json().catch(() => ({ ok: false, error: 'bad_answer', message: `HTTP ${res.status}` })) as
    { ok: boolean; data?: T; error?: string; message?: string; details?: FieldProblem[] };
  if (!json.ok) throw new ConsoleApiError(res.status, json.error ?? 'error', json.message ?? `HTTP ${res.status}`, json.details ?? []);
  return json.data as T;
}

export const api = {
  get: <T>(path: string) => call<T>('GET', path),
  post: <T>(path: string, body: unknown = {}) => call<T>('POST', path, body),
  put: <T>(path: string, body: unknown) => call<T>('PUT', path, body),
  patch: <T>(path: string, body: unknown) => call<T>('PATCH', path, body),
  del: <T>(path: string) => call<T>('DELETE', path),
};

/** `/games/<jeu>` + the rest, each part URI-encoded. */
export const gamePath = (jeu: string, ...parts: (string | number)[]) =>
  ['/games', jeu, ...parts].map((p, i) => (i === 0 ? p : encodeURIComponent(String(p)))).join('/');

/** A query string from the defined values. */
export function qs(params: Record<string, string | number | boolean | null | undefined>): string {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') u.set(k, String(v));
  const s = u.toString();
  return s ? `?${s}` : '';
}
