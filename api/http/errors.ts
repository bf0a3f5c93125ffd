// Every error a client can see is an ApiError built by a named factory; mapError turns
// anything thrown (database, body parser, bug) into one, in one place.
import { detailMessageFor, isKnownCode, type Lang } from './messages.js';

import { ApiError, type FieldIssue } from '../errors.js';

// Defined below http/ (api/errors.ts); re-exported for the imports of http/errors.js.
export { ApiError, isRetryable, type FieldIssue } from '../errors.js';

export const ERRORS = {
  missingKey: () => new ApiError(401, 'missing_key'),
  missingPlayer: () => new ApiError(401, 'missing_player'),
  invalidCredentials: () => new ApiError(401, 'invalid_credentials'),
  badRequest: () => new ApiError(400, 'bad_request'),
  invalidJson: () => new ApiError(400, 'invalid_json'),
  unsupportedMediaType: () => new ApiError(415, 'unsupported_media_type'),
  validationFailed: (details: FieldIssue[]) => new ApiError(400, 'validation_failed', { details }),
  invalidQuery: (details: FieldIssue[]) => new ApiError(400, 'invalid_query', { details }),
  payloadTooLarge: () => new ApiError(413, 'payload_too_large'),
  notFound: () => new ApiError(404, 'not_found'),
  tableNotFound: () => new ApiError(404, 'table_not_found'),
  fileNotFound: () => new ApiError(404, 'file_not_found'),
  leaderboardNotFound: () => new ApiError(404, 'leaderboard_not_found'),
  playerNotFound: () => new ApiError(404, 'player_not_found'),
  rateLimited: (retryAfter: number) => new ApiError(429, 'rate_limited', { retryAfter }),
  unavailable: () => new ApiError(503, 'unavailable', { retryAfter: 1 }),
  internal: () => new ApiError(500, 'internal_error'),
};

interface PgLikeError { code?: string; message?: string; detail?: string; type?: string; status?: number }

// SQLSTATEs meaning the database is unreachable, going away or too slow to answer in time
// (57014: statement_timeout): the client may retry. Class 08 (connection exception) whole:
// a pooler that cannot reach Postgres says so with its own codes (PgBouncer: 08P01,
// "server login has been failing, try again later").
const UNAVAILABLE_CODES = new Set(['57P01', '57P02', '57P03', '57014', '53300']);
const isConnectionException = (code: string) => code.startsWith('08');
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH']);

/**
 * The ApiError for anything thrown. `lang` translates the `details` messages (written in
 * French by the SQL functions and some schemas) for the player; codes are unchanged.
 */
export function mapError(err: unknown, lang: Lang = 'fr'): ApiError {
  const mapped = toApiError(err);
  const details = mapped.extra.details;
  if (lang === 'fr' || !details || details.length === 0) return mapped;
  return new ApiError(mapped.status, mapped.code, {
    ...mapped.extra,
    details: details.map((d) => ({ ...d, message: detailMessageFor(d.message, lang) })),
  });
}

function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  // Express could not decode a path parameter (%E0%A4%A): no such resource.
  if (err instanceof URIError) return ERRORS.notFound();
  const e = (err ?? {}) as PgLikeError;

  // Body parser (express.json) errors.
  if (e.type === 'entity.parse.failed') return ERRORS.invalidJson();
  if (e.type === 'entity.too.large') return ERRORS.payloadTooLarge();
  if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') return ERRORS.unsupportedMediaType();

  const code = e.code ?? '';
  // Business errors raised by manette.fail(): SQLSTATE MN<status>, message = wire code.
  if (/^MN\d{3}$/.test(code) && e.message && isKnownCode(e.message)) {
    const detail = parseDetail(e.detail);
    return new ApiError(Number(code.slice(2)), e.message, {
      reason: typeof detail.reason === 'string' ? detail.reason : undefined,
      retryAfter: typeof detail.retry_after === 'number' ? detail.retry_after : undefined,
      details: Array.isArray(detail.details) ? (detail.details as FieldIssue[]) : undefined,
      // compte_suspendu: the suspension's end (null: until lifted).
      until: 'jusqu_a' in detail ? (typeof detail.jusqu_a === 'string' ? detail.jusqu_a : null) : undefined,
    });
  }
  if (UNAVAILABLE_CODES.has(code) || isConnectionException(code) || NETWORK_CODES.has(code) || isConnectionError(e)) return ERRORS.unavailable();
  // Constraint checks that the façade's validation should have caught first.
  if (code === '23514' || code === '22P02' || code === '22001' || code === '22023') {
    return ERRORS.validationFailed([]);
  }
  return ERRORS.internal();
}

function isConnectionError(e: PgLikeError): boolean {
  const m = e.message ?? '';
  // node-postgres: a lost connection, no connection within connectionTimeoutMillis, or no
  // answer within query_timeout (a frozen or partitioned database).
  return /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect|Client has encountered a connection error|Query read timeout/i.test(m);
}

function parseDetail(detail: string | undefined): Record<string, unknown> {
  if (!detail) return {};
  try {
    const parsed: unknown = JSON.parse(detail);
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
