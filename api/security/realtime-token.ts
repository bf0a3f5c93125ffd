// Realtime tokens (contract section 11): JWTs that Supabase Realtime (or the local
// stand-in) verifies before it runs the RLS policies of realtime.messages with their
// claims. Signed here, in the façade, with either
//   - an HS256 secret: the Supabase project's JWT secret (Realtime's `jwt_secret`), or the
//     local stand-in's secret kept in the data folder; or
//   - a private JWK (ES256, RS256 or EdDSA, with its `kid`) that the project trusts: a key
//     imported into the project's JWT signing keys, so it is in the project's JWKS.
// The policies (supabase/migrations/*_realtime_rooms.sql) trust only these claims:
// iss "manette", role "authenticated", sub = player, jeu_id = game, exp.
import { randomBytes } from 'node:crypto';
import { importJWK, SignJWT, type JWK } from 'jose';

export const REALTIME_TOKEN_ISSUER = 'manette';
/** The longest a player token lives (contract: at most one hour). */
export const MAX_TOKEN_TTL_S = 3600;

export type RealtimeSigningKey = { secret: string } | { privateJwk: JWK };

export interface RealtimeSigner {
  /** A player's token: expires in `ttl` seconds, and never after `notAfter` (epoch seconds). */
  playerToken(claims: { playerId: string; gameId: string; notAfter: number }): Promise<{ token: string; exp: number }>;
  /** The service credential (like Supabase's service_role key): role service_role. */
  serviceKey(validForSeconds?: number): Promise<string>;
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
    const alg = key.privateJwk.alg ?? ({ EC: 'ES256', RSA: 'RS256', OKP: 'EdDSA' } as Record<string, string>)[key.privateJwk.kty ?? ''];
    if (!alg || !key.privateJwk.kid || !key.privateJwk.d) {
      throw new Error('the realtime signing key must be a private JWK with a kid (EC, RSA or OKP)');
    }
    header = { alg, typ: 'JWT', kid: key.privateJwk.kid };
    signingKey = (await importJWK(key.privateJwk, alg)) as CryptoKey;
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
