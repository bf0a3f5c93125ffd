// Realtime tokens (docs/matches.md): JWTs that Supabase Realtime (or the local
// stand-in) verifies before it runs the RLS policies of realtime.messages with their
// claims. Signed here, in the façade, with either
//   - an HS256 secret: the Supabase project's JWT secret (Realtime's `jwt_secret`), or the
//     local stand-in's secret kept in the data folder; or
//   - a private JWK with its `kid` that the project trusts: a key imported into the
//     project's JWT signing keys, so it is in the project's JWKS, by which Realtime checks
//     the token. Supabase imports RS256 (RSA) and ES256 (EC P-256) keys only (its docs; the
//     Supabase CLI's `gen signing-key --algorithm` offers these two): anything else is
//     refused here at start, not by Realtime at the first player's join.
// The policies (supabase/migrations/*_realtime_rooms.sql) trust only these claims:
// iss "manette", role "authenticated", sub = player, jeu_id = game, exp. The studio
// console's token (*_console_matches.sql) has no sub and manette_console: true: it reads
// every match room of its game and the game's topic, and writes nothing.
import { randomBytes } from 'node:crypto';
import { compactVerify, importJWK, SignJWT, type JWK } from 'jose';

export const REALTIME_TOKEN_ISSUER = 'manette';
/** The longest a player token lives: ten minutes, so a suspended or erased player's joined socket is cut within
 * that (Realtime runs the room policies again at each fresh token, docs/matches.md "Tokens"). */
export const MAX_TOKEN_TTL_S = 600;

export type RealtimeSigningKey = { secret: string } | { privateJwk: JWK };

export interface RealtimeSigner {
  /** A player's token: expires in `ttl` seconds, and never after `notAfter` (epoch seconds). */
  playerToken(claims: { playerId: string; gameId: string; notAfter: number }): Promise<{ token: string; exp: number }>;
  /**
   * The studio console's token for one game: `manette_console: true`, `jeu_id`, no `sub` (so
   * it is never a player). Minted only by the console server, which holds the signing key.
   */
  consoleToken(claims: { gameId: string }): Promise<{ token: string; exp: number }>;
  /** The service credential (like Supabase's service_role key): role service_role. */
  serviceKey(validForSeconds?: number): Promise<string>;
}

/** What a Supabase project accepts as the signer of Realtime tokens, for error messages. */
export const ACCEPTED_SIGNING_KEYS = 'accepted: the project\'s JWT secret in MANETTE_REALTIME_JWT_SECRET (HS256), '
  + 'or in MANETTE_REALTIME_JWT_PRIVATE_KEY a private JWK with its kid, RS256 (kty "RSA") or ES256 (kty "EC", crv "P-256"), '
  + 'as imported into the project\'s JWT signing keys';

/** MANETTE_REALTIME_JWT_PRIVATE_KEY read as JSON (what it holds is checked by createRealtimeSigner). */
export function privateJwkSetting(text: string): JWK {
  try {
    return JSON.parse(text) as JWK;
  } catch {
    throw new Error(`MANETTE_REALTIME_JWT_PRIVATE_KEY must be a JWK in JSON; ${ACCEPTED_SIGNING_KEYS}`);
  }
}

/** The JWK's public part (what the project's JWKS holds), for RSA and EC keys. */
export function publicJwk(jwk: JWK): JWK {
  const { kty, kid, alg, crv, x, y, n, e } = jwk;
  const members = kty === 'RSA' ? { n, e } : { crv, x, y };
  return Object.fromEntries(Object.entries({ kty, kid, alg, use: 'sig', ...members }).filter(([, v]) => v !== undefined)) as JWK;
}

/** RS256 or ES256 for a private JWK Supabase can import; an Error saying why not otherwise. */
function jwkAlgorithm(jwk: JWK): 'RS256' | 'ES256' | Error {
  const refuse = (why: string) => new Error(`MANETTE_REALTIME_JWT_PRIVATE_KEY: ${why}; ${ACCEPTED_SIGNING_KEYS}`);
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) return refuse('not a JWK (a JSON object)');
  const { kty, crv, alg } = jwk;
  let expected: 'RS256' | 'ES256';
  if (kty === 'RSA') {
    expected = 'RS256';
  } else if (kty === 'EC') {
    if (crv !== 'P-256') return refuse(`an EC key on curve ${JSON.stringify(crv)} (ES384 and ES512 are not accepted)`);
    expected = 'ES256';
  } else if (kty === 'OKP') {
    return refuse(`an OKP key (${JSON.stringify(crv)}, EdDSA) is not accepted`);
  } else if (kty === 'oct') {
    return refuse('a shared-secret JWK (kty "oct") is not accepted');
  } else {
    return refuse(`kty ${JSON.stringify(kty)} is not accepted`);
  }
  if (alg !== undefined && alg !== expected) return refuse(`alg ${JSON.stringify(alg)} does not go with a ${kty} key${kty === 'EC' ? ' on P-256' : ''} (${expected})`);
  if (jwk.d === undefined) return refuse('a public key only (no "d"): the private key is needed to sign');
  if (typeof jwk.kid !== 'string' || jwk.kid === '') return refuse('no kid: Realtime finds the key in the project\'s JWKS by its kid');
  if (jwk.use !== undefined && jwk.use !== 'sig') return refuse(`use ${JSON.stringify(jwk.use)}: a signing key has use "sig"`);
  if (jwk.key_ops !== undefined && !(Array.isArray(jwk.key_ops) && jwk.key_ops.includes('sign'))) return refuse('its key_ops do not include "sign"');
  return expected;
}

export async function createRealtimeSigner(key: RealtimeSigningKey, ttlSeconds = MAX_TOKEN_TTL_S): Promise<RealtimeSigner> {
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > MAX_TOKEN_TTL_S) {
    throw new Error(`realtime token lifetime must be 1 to ${MAX_TOKEN_TTL_S} seconds`);
  }
  let header: { alg: string; typ: 'JWT'; kid?: string };
  let signingKey: Uint8Array | CryptoKey;
  if ('secret' in key) {
    header = { alg: 'HS256', typ: 'JWT' };
    signingKey = new TextEncoder().encode(key.secret);
  } else {
    const alg = jwkAlgorithm(key.privateJwk);
    if (alg instanceof Error) throw alg;
    header = { alg, typ: 'JWT', kid: key.privateJwk.kid };
    // Signed once and checked with the public part, so a key that cannot sign (RSA under
    // 2048 bits, private and public members that disagree) is refused now.
    try {
      // Without its key_ops: `supabase gen signing-key` writes ["sign", "verify"], and Web
      // Crypto refuses "verify" as a usage of a private EC or RSA key ("Invalid key usage").
      const { key_ops: _ops, ...privateJwk } = key.privateJwk;
      signingKey = (await importJWK({ ...privateJwk, alg }, alg)) as CryptoKey;
      const probe = await new SignJWT({}).setProtectedHeader(header).sign(signingKey);
      await compactVerify(probe, await importJWK(publicJwk({ ...key.privateJwk, alg }), alg));
    } catch (err) {
      throw new Error(`MANETTE_REALTIME_JWT_PRIVATE_KEY: this ${alg} key cannot sign (${(err as Error).message}); ${ACCEPTED_SIGNING_KEYS}`);
    }
  }
  const sign = (claims: Record<string, unknown>, exp: number, now: number) =>
    new SignJWT(claims).setProtectedHeader(header).setIssuer(REALTIME_TOKEN_ISSUER)
      .setIssuedAt(now).setExpirationTime(exp).sign(signingKey);

  return {
    async playerToken({ playerId, gameId, notAfter }) {
      const now = Math.floor(Date.now() / 1000);
      const exp = Math.min(now + ttlSeconds, Math.floor(notAfter));
      const token = await sign({ role: 'authenticated', aud: 'authenticated', sub: playerId, jeu_id: gameId }, exp, now);
      return { token, exp };
    },
    async consoleToken({ gameId }) {
      const now = Math.floor(Date.now() / 1000);
      const exp = now + ttlSeconds;
      const token = await sign({ role: 'authenticated', aud: 'authenticated', jeu_id: gameId, manette_console: true }, exp, now);
      return { token, exp };
    },
    async serviceKey(validForSeconds = 10 * 365 * 24 * 3600) {
      const now = Math.floor(Date.now() / 1000);
      return sign({ role: 'service_role' }, now + validForSeconds, now);
    },
  };
}

/** A new HS256 secret for the local stand-in (Supabase's are at least 32 characters). */
export function newRealtimeSecret(): string {
  return randomBytes(48).toString('base64url');
}
