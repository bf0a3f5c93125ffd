// JWT checks of Supabase Realtime against the tenant's keys: its `jwt_secret` and its
// `jwt_jwks` (a hosted project's JWT signing keys, public parts):
// RealtimeWeb.ChannelsAuthorization.authorize_conn on top of RealtimeWeb.JwtVerification.verify
// (supabase/realtime, lib/realtime_web/channels/auth/jwt_verification.ex). Which key checks
// which token is its generate_signer, reproduced in `tenantSigner` below. The key of a
// secret is the string's UTF-8 bytes, as Joken.Signer.create does.
import { createHmac, createPublicKey, timingSafeEqual, verify as verifySignature, constants, type KeyObject } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import type { JsonObject } from './protocol.js';

// JwtVerification's lists: HS* with the jwt_secret (or an `oct` key of the JWKS with the
// token's kid); RS*, ES* and the EdDSA spellings only with a key of the JWKS, found by kid.
const HS_ALGORITHMS = ['HS256', 'HS384', 'HS512'];
const RS_ALGORITHMS = ['RS256', 'RS384', 'RS512'];
const ES_ALGORITHMS = ['ES256', 'ES384', 'ES512'];
const ED_ALGORITHMS = ['Ed25519', 'Ed448', 'EdDSA'];
const ED_CURVES = ['Ed25519', 'Ed448'];

/** A JWK as the tenant's jwt_jwks holds it: a JSON object (kty, kid, and its key members). */
export type TenantJwk = { kty?: unknown; kid?: unknown; crv?: unknown; k?: unknown; [member: string]: unknown };

/** The tenant's keys: `jwt_secret` (its UTF-8 bytes) and, if it has one, `jwt_jwks` ({keys: [...]}). */
export interface TenantKeys { secret: Uint8Array; jwks?: { keys: TenantJwk[] } }

export type TokenError =
  /** {:error, :expired_token, "Token has expired N seconds ago"} */
  | { kind: 'expired'; message: string }
  /** {:error, :missing_claims}: `role` or `exp` absent. */
  | { kind: 'missing_claims' }
  /** {:error, :token_malformed}: not three base64url JSON parts. */
  | { kind: 'malformed' }
  /** {:error, :signature_error} */
  | { kind: 'signature' }
  /**
   * {:error, :error_generating_signer}: an alg it has no signer for (or an RS/ES/EdDSA alg
   * without a kid or a JWKS); {:error, {:error_generating_signer, kid}} when a JWKS is there
   * but holds no usable key of the token's kid and kind.
   */
  | { kind: 'signer'; kid?: string }
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

type Signer = { alg: string; key: Uint8Array } | { alg: string; key: KeyObject };

const imported = new WeakMap<TenantJwk, KeyObject | Error>();
/** Joken.Signer.create(alg, jwk): the JWK's public key (a JWK it cannot read fails later, as there). */
function publicKey(jwk: TenantJwk): KeyObject | Error {
  let key = imported.get(jwk);
  if (!key) {
    try {
      key = createPublicKey({ key: jwk as import('node:crypto').JsonWebKey, format: 'jwk' });
    } catch (err) {
      key = err as Error;
    }
    imported.set(jwk, key);
  }
  return key;
}

/** JwtVerification.generate_signer(header, jwt_secret, jwt_jwks), clause by clause. */
function tenantSigner(header: { alg?: unknown; kid?: unknown }, keys: TenantKeys): { ok: true; signer: Signer } | { ok: false; error: TokenError } {
  const { alg, kid } = header;
  if (typeof alg !== 'string') return { ok: false, error: { kind: 'signer' } };
  const jwks = keys.jwks && Array.isArray(keys.jwks.keys) ? keys.jwks.keys : undefined;
  if (typeof kid === 'string' && jwks) {
    const find = (kty: string) => jwks.find((k) => k.kty === kty && k.kid === kid);
    const asymmetric = (jwk: TenantJwk | undefined) => {
      const key = jwk && publicKey(jwk);
      if (key instanceof Error) return { ok: false as const, error: { kind: 'other' as const, detail: key.message } };
      return key ? { ok: true as const, signer: { alg, key } } : { ok: false as const, error: { kind: 'signer' as const, kid } };
    };
    if (RS_ALGORITHMS.includes(alg)) return asymmetric(find('RSA'));
    if (ES_ALGORITHMS.includes(alg)) return asymmetric(find('EC'));
    if (ED_ALGORITHMS.includes(alg)) {
      const jwk = find('OKP');
      return asymmetric(jwk && ED_CURVES.includes(jwk.crv as string) ? jwk : undefined);
    }
    if (HS_ALGORITHMS.includes(alg)) {
      // "If there's no JWK, and HS* is being used, instead of erroring, try the jwt_secret."
      const oct = jwks.find((k) => k.kty === 'oct' && k.kid === kid && typeof k.k === 'string');
      if (!oct) return { ok: true, signer: { alg, key: keys.secret } };
      const k = oct.k as string; // Base.url_decode64(k, padding: false)
      if (!/^[A-Za-z0-9_-]*$/.test(k) || k.length % 4 === 1) return { ok: false, error: { kind: 'signer', kid } };
      return { ok: true, signer: { alg, key: new Uint8Array(Buffer.from(k, 'base64url')) } };
    }
  }
  if (HS_ALGORITHMS.includes(alg)) return { ok: true, signer: { alg, key: keys.secret } };
  return { ok: false, error: { kind: 'signer' } };
}

/** Joken.verify with that signer: the JWS signature over `header.payload`. */
function signatureValid(jwt: string, { alg, key }: Signer): boolean {
  const [h, p, s] = jwt.split('.') as [string, string, string];
  const data = Buffer.from(`${h}.${p}`);
  const signature = Buffer.from(s, 'base64url');
  const hash = `sha${alg.slice(2)}`;
  try {
    if (key instanceof Uint8Array) {
      const mac = createHmac(hash, key).update(data).digest();
      return mac.length === signature.length && timingSafeEqual(mac, signature);
    }
    if (alg.startsWith('RS')) return verifySignature(hash, data, { key, padding: constants.RSA_PKCS1_PADDING }, signature);
    if (alg.startsWith('ES')) return verifySignature(hash, data, { key, dsaEncoding: 'ieee-p1363' }, signature);
    // Ed25519 / Ed448 name the curve; EdDSA takes the key's.
    if (alg !== 'EdDSA' && key.asymmetricKeyType !== alg.toLowerCase()) return false;
    return verifySignature(null, data, key, signature);
  } catch {
    return false;
  }
}

/**
 * ChannelsAuthorization.authorize_conn(token, jwt_secret, jwt_jwks): a verified token
 * whose claims carry `role` and `exp`. Like JwtAuthToken (Joken), only `exp`
 * (a number in the future) and `iat` (a number, when present) are validated;
 * `nbf` is not. exp and iat are rounded (JwtVerification.round_decimal_numbers).
 */
export async function authorizeToken(token: unknown, keys: TenantKeys): Promise<TokenResult> {
  if (typeof token !== 'string') return { ok: false, error: { kind: 'other', detail: 'invalid_token' } };
  const jwt = cleanToken(token);
  if (jwt === undefined) return { ok: false, error: { kind: 'malformed' } };
  // JwtVerification.check_claims_format / check_header_format (Joken.peek_*).
  let header: { alg?: unknown; kid?: unknown };
  let claims: JsonObject;
  try {
    claims = decodeJwt(jwt) as JsonObject;
    header = decodeProtectedHeader(jwt);
  } catch {
    return { ok: false, error: { kind: 'malformed' } };
  }
  if (!/^[A-Za-z0-9_-]*$/.test(jwt.split('.')[2]!)) return { ok: false, error: { kind: 'malformed' } };
  const signer = tenantSigner(header, keys);
  if (!signer.ok) return signer;
  if (!signatureValid(jwt, signer.signer)) return { ok: false, error: { kind: 'signature' } };
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
export async function confirmToken(token: unknown, keys: TenantKeys): Promise<
  { ok: true; claims: JsonObject; exp: number; checkInMs: number } | { ok: false; error: TokenError }
> {
  const res = await authorizeToken(token, keys);
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
    case 'signer': return `JwtSignerError: ${signerMessage(e.kid)}`;
    case 'invalid_exp': return 'InvalidJWTToken: Token expiration time is invalid';
    case 'other': return 'Unknown Error on Channel';
  }
}

/** Elixir's inspect/1 of a printable string: double quotes, and \\ " #{ escaped. */
const inspectString = (s: string): string => JSON.stringify(s).replace(/#\{/g, '\\#{');

/** The text of both error_generating_signer forms (RealtimeChannel, UserSocket.error_response). */
function signerMessage(kid: string | undefined): string {
  return kid === undefined
    ? 'Failed to generate JWT signer, check your JWT secret or JWKS configuration'
    : `Failed to generate JWT signer for key ID (kid) ${inspectString(kid)}, check your JWT secret or JWKS configuration`;
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
    case 'signer': return e.kid === undefined ? ':error_generating_signer' : signerMessage(e.kid);
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
    case 'signer': return signerMessage(e.kid);
    case 'invalid_exp':
    case 'other': return 'Error connecting to Realtime';
  }
}

/** A string shaped like a compact JWS (three dot-separated parts), as opposed to an opaque API key. */
export const looksLikeJwt = (s: string): boolean => /^[^.]+\.[^.]+\.[^.]*$/.test(s.trim());
