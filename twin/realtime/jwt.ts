// JWT checks of Supabase Realtime against the tenant's `jwt_secret`:
// RealtimeWeb.ChannelsAuthorization.authorize_conn on top of
// RealtimeWeb.JwtVerification.verify. Only the HS* signers exist locally (no
// JWKS): the key is the secret string's UTF-8 bytes, as Joken.Signer.create does.
import { decodeJwt, decodeProtectedHeader, errors, jwtVerify } from 'jose';
import type { JsonObject } from './protocol.js';

// JwtVerification @hs_algorithms.
const HS_ALGORITHMS = ['HS256', 'HS384', 'HS512'];

export type TokenError =
  /** {:error, :expired_token, "Token has expired N seconds ago"} */
  | { kind: 'expired'; message: string }
  /** {:error, :missing_claims}: `role` or `exp` absent. */
  | { kind: 'missing_claims' }
  /** {:error, :token_malformed}: not three base64url JSON parts. */
  | { kind: 'malformed' }
  /** {:error, :signature_error} */
  | { kind: 'signature' }
  /** {:error, :error_generating_signer}: an alg other than HS256/384/512. */
  | { kind: 'signer' }
  /** confirm_token: exp - now <= 0 once verified (a clock edge). */
  | { kind: 'invalid_exp' }
  /** Any other Joken validation failure (e.g. a non-numeric exp or iat). */
  | { kind: 'other'; detail: string };

export type TokenResult = { ok: true; claims: JsonObject; exp: number } | { ok: false; error: TokenError };

const nowSeconds = (): number => Math.floor(Date.now() / 1000); // Joken.current_time/0
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** ChannelsAuthorization.clean_token: URI-decoded, whitespace removed. */
function cleanToken(token: string): string | undefined {
  try {
    return decodeURIComponent(token).replace(/\s/g, '');
  } catch {
    return undefined;
  }
}

/**
 * ChannelsAuthorization.authorize_conn(token, jwt_secret, nil): a verified token
 * whose claims carry `role` and `exp`. Like JwtAuthToken (Joken), only `exp`
 * (a number in the future) and `iat` (a number, when present) are validated;
 * `nbf` is not. exp and iat are rounded (JwtVerification.round_decimal_numbers).
 */
export async function authorizeToken(token: unknown, secret: Uint8Array): Promise<TokenResult> {
  if (typeof token !== 'string') return { ok: false, error: { kind: 'other', detail: 'invalid_token' } };
  const jwt = cleanToken(token);
  if (jwt === undefined) return { ok: false, error: { kind: 'malformed' } };
  // JwtVerification.check_claims_format / check_header_format (Joken.peek_*).
  let header: { alg?: unknown };
  try {
    decodeJwt(jwt);
    header = decodeProtectedHeader(jwt);
  } catch {
    return { ok: false, error: { kind: 'malformed' } };
  }
  // JwtVerification.generate_signer: HS* with the jwt_secret, nothing else without JWKS.
  if (typeof header.alg !== 'string' || !HS_ALGORITHMS.includes(header.alg)) return { ok: false, error: { kind: 'signer' } };

  let claims: JsonObject;
  try {
    claims = (await jwtVerify(jwt, secret, { algorithms: HS_ALGORITHMS })).payload as JsonObject;
  } catch (err) {
    if (err instanceof errors.JWSSignatureVerificationFailed) return { ok: false, error: { kind: 'signature' } };
    // jose checks the claims only after the signature, so err.payload is authentic here.
    // Joken does not validate nbf: a future nbf is accepted, the remaining checks are ours.
    if ((err instanceof errors.JWTClaimValidationFailed || err instanceof errors.JWTExpired) && isObject(err.payload)) {
      claims = err.payload as JsonObject;
    } else if (err instanceof errors.JOSEAlgNotAllowed) {
      return { ok: false, error: { kind: 'signer' } };
    } else {
      return { ok: false, error: { kind: 'malformed' } };
    }
  }
  const now = nowSeconds();
  // JwtAuthToken exp validator: is_number(exp) and exp > current_time, when exp is present.
  if ('exp' in claims) {
    const exp = claims.exp;
    if (typeof exp !== 'number') return { ok: false, error: { kind: 'other', detail: 'exp is not a number' } };
    if (!(exp > now)) {
      // authorize_conn builds the message only for integer exp values.
      if (!Number.isInteger(exp)) return { ok: false, error: { kind: 'other', detail: 'exp is not an integer' } };
      return { ok: false, error: { kind: 'expired', message: `Token has expired ${now - exp} seconds ago` } };
    }
  }
  if ('iat' in claims && typeof claims.iat !== 'number') return { ok: false, error: { kind: 'other', detail: 'iat is not a number' } };
  // round_decimal_numbers
  for (const key of ['exp', 'iat']) {
    const v = claims[key];
    if (typeof v === 'number') claims[key] = Math.round(v);
  }
  // authorize_conn: role and exp are required.
  if (!('role' in claims) || !('exp' in claims)) return { ok: false, error: { kind: 'missing_claims' } };
  return { ok: true, claims, exp: claims.exp as number };
}

/**
 * RealtimeChannel.confirm_token: authorize_conn, then the time left must be
 * positive. Returns the claims and the delay of the next check:
 * min(@confirm_token_ms_interval = 5 min, exp_diff * 1000).
 */
export async function confirmToken(token: unknown, secret: Uint8Array): Promise<
  { ok: true; claims: JsonObject; exp: number; checkInMs: number } | { ok: false; error: TokenError }
> {
  const res = await authorizeToken(token, secret);
  if (!res.ok) return res;
  const expDiff = res.exp - nowSeconds();
  if (!(expDiff > 0)) return { ok: false, error: { kind: 'invalid_exp' } };
  return { ok: true, claims: res.claims, exp: res.exp, checkInMs: Math.min(5 * 60_000, expDiff * 1000) };
}

/** The join reply's reason for a token error (RealtimeChannel.join, `else` of the with chain). */
export function joinReason(e: TokenError): string {
  switch (e.kind) {
    case 'expired': return `InvalidJWTToken: ${e.message}`;
    case 'missing_claims': return 'InvalidJWTToken: Fields `role` and `exp` are required in JWT';
    case 'malformed': return 'MalformedJWT: The token provided is not a valid JWT';
    case 'signature': return 'JwtSignatureError: Failed to validate JWT signature';
    case 'signer': return 'JwtSignerError: Failed to generate JWT signer, check your JWT secret or JWKS configuration';
    case 'invalid_exp': return 'InvalidJWTToken: Token expiration time is invalid';
    case 'other': return 'Unknown Error on Channel';
  }
}

/**
 * The system message of a channel shut down by a token error: handle_in("access_token")
 * and handle_info(:confirm_token) (which render the other errors with inspect/1).
 */
export function shutdownMessage(e: TokenError): string {
  switch (e.kind) {
    case 'expired': return e.message;
    case 'missing_claims': return 'Fields `role` and `exp` are required in JWT';
    case 'malformed': return 'The token provided is not a valid JWT';
    case 'signature': return ':signature_error';
    case 'signer': return ':error_generating_signer';
    case 'invalid_exp': return '0';
    case 'other': return e.detail;
  }
}

/** UserSocket.handle_error: the handshake's 401 body for a socket token that is refused. */
export function handshakeError(e: TokenError): string {
  switch (e.kind) {
    case 'expired': return 'Token has expired';
    case 'missing_claims': return 'Fields `role` and `exp` are required in JWT';
    case 'malformed': return 'The token provided is not a valid JWT';
    case 'signature': return 'Failed to validate JWT signature';
    case 'signer': return 'Failed to generate JWT signer, check your JWT secret or JWKS configuration';
    case 'invalid_exp':
    case 'other': return 'Error connecting to Realtime';
  }
}

/** A string shaped like a compact JWS (three dot-separated parts), as opposed to an opaque API key. */
export const looksLikeJwt = (s: string): boolean => /^[^.]+\.[^.]+\.[^.]*$/.test(s.trim());
