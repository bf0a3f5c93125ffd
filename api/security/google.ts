// Google ID token check: signature against Google's key set (URL configurable so tests
// can serve their own keys), issuer and expiry. The audience is the game's client id,
// which the database checks in api.players_google, so a login stays one call.
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';

const ISSUERS = ['https://accounts.google.com', 'accounts.google.com'];

export interface GoogleIdentity {
  aud: string;
  sub: string;
  email: string | null;
  email_verified: boolean;
  name: string | null;
}

export function createGoogleVerifier(jwksUrl: string) {
  const keys = createRemoteJWKSet(new URL(jwksUrl), { cooldownDuration: 30_000, timeoutDuration: 5_000 });
  return async function verifyGoogleIdToken(idToken: string): Promise<GoogleIdentity | null> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(idToken, keys, { issuer: ISSUERS, algorithms: ['RS256'] }));
    } catch {
      return null;
    }
    const aud = Array.isArray(payload.aud) ? payload.aud[0] : payload.aud;
    if (!aud || !payload.sub) return null;
    return {
      aud,
      sub: payload.sub,
      email: typeof payload.email === 'string' ? payload.email : null,
      email_verified: payload.email_verified === true || payload.email_verified === 'true',
      name: typeof payload.name === 'string' ? payload.name : null,
    };
  };
}
