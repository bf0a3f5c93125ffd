// Google ID token check: signature against Google's key set (URL configurable so tests
// can serve their own keys), issuer and expiry. The audience is the game's client id,
// which the database checks in api.players_google, so a login stays one call.
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import type { KeySets } from './identity-token.js';

const ISSUERS = ['https://accounts.google.com', 'accounts.google.com'];
const SUB = /^[\x21-\x7e]{1,255}$/;

/** A claim kept only if it is a string Postgres can store (no U+0000, no lone surrogate), else null. */
const text = (v: unknown): string | null => (typeof v === 'string' && !/\u0000|\p{Cs}/u.test(v) ? v : null);

export interface GoogleIdentity {
  aud: string;
  sub: string;
  email: string | null;
  email_verified: boolean;
  name: string | null;
  /** When the token was issued (seconds since the epoch), null if absent: a deletion wants a fresh one. */
  iat: number | null;
}

/** `keySets`: the process's key sets, which the identity tokens of `connexions` share
 *  (security/identity-token.ts); without it, a set of its own (30 s cooldown, 10 min cache). */
export function createGoogleVerifier(jwksUrl: string, keySets?: KeySets) {
  const keys = keySets ? keySets(jwksUrl) : createRemoteJWKSet(new URL(jwksUrl), { cooldownDuration: 30_000, timeoutDuration: 5_000 });
  return async function verifyGoogleIdToken(idToken: string): Promise<GoogleIdentity | null> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(idToken, keys, { issuer: ISSUERS, algorithms: ['RS256'] }));
    } catch {
      return null;
    }
    const aud = Array.isArray(payload.aud) ? payload.aud[0] : payload.aud;
    // OpenID Connect: `sub` is at most 255 ASCII characters; it is the whole identity
    // (the database finds the player by game and `sub`, never by e-mail).
    if (!aud || !payload.sub || !SUB.test(payload.sub)) return null;
    return {
      aud,
      sub: payload.sub,
      email: text(payload.email),
      email_verified: payload.email_verified === true || payload.email_verified === 'true',
      name: text(payload.name),
      iat: typeof payload.iat === 'number' && Number.isFinite(payload.iat) ? payload.iat : null,
    };
  };
}
