// A public operation: its path, its input schemas (zod, also the source of the OpenAPI
// document) and a handler that makes one api.* call. Routes live one per file under
// api/routes/<resource>/ and name the SQL function they call.
import type { Request } from 'express';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { Settings } from '../config/settings.js';
import type { ApiJson, Pool, RequestContext } from '../db/pool.js';
import type { GoogleIdentity } from '../security/google.js';
import type { IdentityVerifier } from '../security/identity-token.js';
import type { DiscordVerifier } from '../security/discord.js';
import type { RealtimeSigner } from '../security/realtime-token.js';
import type { ApiError, FieldIssue } from './errors.js';

export type Auth = 'key' | 'player' | 'public';

export interface Deps {
  pool: Pool;
  settings: Settings;
  verifyGoogleIdToken: (idToken: string) => Promise<GoogleIdentity | null>;
  /** Identity tokens of the game files' `connexions` (security/identity-token.ts). createApp
   *  makes one from the settings when it is not given. */
  verifyIdentityToken?: IdentityVerifier;
  /** Discord's OAuth2 codes (security/discord.ts); createApp makes one from the settings when it is not given. */
  verifyDiscordCode?: DiscordVerifier;
  /** Supabase Realtime's URL and key (the project's publishable key, or its legacy anon key); or, for the local stand-in, its port (the URL
   *  then uses the host the game reached the API on) and an empty key (games use their API
   *  key). `signer` makes players' realtime tokens. */
  realtime: { url: string; key: string; localPort?: number; signer: RealtimeSigner };
  /** The app's logger (createApp sets it): what a handler logs after its answer (a mail not sent). */
  logger?: Logger;
}

export interface HandlerInput<B, Q, P> {
  body: B;
  query: Q;
  params: P;
  ctx: RequestContext;
  deps: Deps;
  req: Request;
}

export interface RouteDef<B = unknown, Q = unknown, P = unknown> {
  method: 'get' | 'post' | 'patch' | 'delete';
  /** Express path under the base URL, e.g. /tables/:nomTable */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  /** key: x-api-key; player: x-api-key and x-player-token; public: nothing. */
  auth: Auth;
  body?: z.ZodType<B>;
  query?: z.ZodType<Q>;
  params?: z.ZodType<P>;
  /** The error for a path parameter that can name nothing, e.g. one holding U+0000 (default: not_found). */
  notFound?: () => ApiError;
  /** Path parameters SQL checks itself after the others (a row id): one holding U+0000 is
   *  sent as '', which names nothing, instead of answering `notFound` at once. */
  checkedInSql?: readonly string[];
  /** The error for a body that fails `body` (default: validation_failed with details). A route
   *  with its own body error also checks its strings itself (U+0000 included). */
  bodyError?: (issues: FieldIssue[]) => ApiError;
  /** Documented response (beside `ok`). */
  response?: z.ZodType;
  /** HTTP status on success (default 200). */
  status?: number;
  /** Another success status the handler answers with a Reply (an upload that replaced a file: 200), documented too. */
  alsoStatus?: number;
  /** Accepts an `Idempotency-Key` header (docs/api.md). When a request has one, the
   *  façade sets ctx.idempotency (key, method, path, SHA-256 of the body) and the handler's
   *  callApi goes through api.idempotent: one run per key and scope, later ones get the
   *  first result. `secret`: top-level body fields left out of that hash (a password must
   *  not be hashed in the clear); the handler binds them itself (players/register). */
  idempotent?: true | { secret: readonly string[] };
  /** Returns the response fields beside `ok: true` (as objects, or as the database's JSON
   *  text with passApi when they are sent unchanged), or a Reply when the status depends on the outcome. */
  handler(input: HandlerInput<B, Q, P>): Promise<Record<string, unknown> | ApiJson | Reply>;
}

/** A success whose status is decided per request (201 created / 200 replaced). */
export class Reply {
  constructor(readonly status: number, readonly body: Record<string, unknown>) {}
}

export function defineRoute<B = undefined, Q = undefined, P = undefined>(def: RouteDef<B, Q, P>): RouteDef<B, Q, P> {
  return def;
}
