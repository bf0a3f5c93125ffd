// A console endpoint: its path under /api, zod schemas for what it takes, and a handler
// that makes one call of a manette_admin.* function (the same as the CLI's). Writes need
// the session's CSRF token; every write is audited by the SQL function it calls.
import { z } from 'zod';
import type { Settings } from '../../api/config/settings.js';
import type { AdminPool } from '../../api/db/admin.js';
import type { Lang } from '../../api/http/messages.js';
import type { RealtimeSigner } from '../../api/security/realtime-token.js';

export interface ConsoleDeps {
  db: AdminPool;
  settings: Settings;
  /** The terminal's language (the page may choose another). */
  lang: Lang;
  /** Who the audit rows name (MANETTE_OPERATOR, else <OS user>@<host>). */
  operator: string;
  /** The game file given with --jeu (or the project's): the panel editor writes it. */
  gameFile?: string;
  /** Realtime for live pages: the URL and key games use, and what signs the console's token. */
  realtime?: { url: string; key: string; signer: RealtimeSigner };
}

export interface ConsoleInput<B, Q, P> { body: B; query: Q; params: P; deps: ConsoleDeps; lang: Lang }

export interface ConsoleRoute<B = unknown, Q = unknown, P = unknown> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Express path under /api, e.g. /games/:jeu/keys */
  path: string;
  body?: z.ZodType<B>;
  query?: z.ZodType<Q>;
  params?: z.ZodType<P>;
  /** The largest body accepted (default 1 MB; a CSV import takes more). */
  bodyLimit?: string;
  /** Returns the `data` of `{ok: true, data}`. */
  handler(input: ConsoleInput<B, Q, P>): Promise<unknown>;
}

/** An error the console answers with a status and a code (the page shows `message`). */
export class ConsoleError extends Error {
  constructor(readonly status: number, readonly code: string, message: string, readonly details?: { champ: string; message: string }[]) {
    super(message);
  }
}

export function consoleRoute<B = undefined, Q = undefined, P = undefined>(def: ConsoleRoute<B, Q, P>): ConsoleRoute<B, Q, P> {
  return def;
}

/** The path parameters every game page has (`:jeu`), and those with one more name (`:id`, `:table`). */
export const GameParams = z.object({ jeu: z.string().min(1).max(100) });
export const gameParamsWith = <K extends string>(...names: K[]) =>
  GameParams.extend(Object.fromEntries(names.map((n) => [n, z.string().min(1).max(1000)])) as Record<K, z.ZodString>);

/** `limit` (1 to `max`, `fallback` when absent) and `offset` of a listing. */
export const paging = (fallback: number, max: number) => ({
  limit: z.coerce.number().int().min(1).max(max).default(fallback),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});

/** One `select manette_admin.<fn>(...) as r` as manette_admin; returns r. */
export async function adminCall<T = unknown>(deps: ConsoleDeps, sql: string, values: unknown[]): Promise<T> {
  return (await deps.db.query(sql, values)).rows[0].r as T;
}
