// Identity providers played on a local port, as their documentation describes them: each
// publishes its public keys as a JSON Web Key Set at a path of its own (Apple's /auth/keys,
// Auth0's and Supabase Auth's /.well-known/jwks.json...) and signs tokens with the private
// half, naming the key in the header's `kid`. Keys can be added and removed (a rotation),
// and the server counts the fetches of each set (what a verifier's cache did).
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';

export type Alg = 'RS256' | 'ES256';
export interface SigningKey { kid: string; alg: Alg; privateKey: CryptoKey; publicJwk: Record<string, unknown> }

/** A new key pair (its public half not yet published anywhere). */
export async function newKey(alg: Alg, kid = `${alg.toLowerCase()}-${randomUUID().slice(0, 8)}`): Promise<SigningKey> {
  const pair = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey: pair.privateKey as CryptoKey, publicJwk: { ...(await exportJWK(pair.publicKey)), kid, alg, use: 'sig' } };
}

/** A token signed by `key`: `claims` as given (iss, aud, sub, exp... are the caller's). */
export function sign(key: SigningKey, claims: JWTPayload, header: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT', ...header }).sign(key.privateKey);
}

export interface KeySetServer {
  /** http://127.0.0.1:<port> */
  origin: string;
  /** Publishes `key` at `path` (after the keys already there). */
  publish(path: string, key: SigningKey): void;
  /** Takes `key` out of the set at `path`. */
  withdraw(path: string, key: SigningKey): void;
  /** How many times the set at `path` was fetched. */
  fetches(path: string): number;
  close(): Promise<void>;
}

export async function serveKeySets(): Promise<KeySetServer> {
  const sets = new Map<string, SigningKey[]>();
  const counts = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const keys = sets.get(path);
    if (req.method !== 'GET' || !keys) {
      res.statusCode = 404;
      res.end();
      return;
    }
    counts.set(path, (counts.get(path) ?? 0) + 1);
    res.setHeader('content-type', 'application/json');
    res.setHeader('cache-control', 'public, max-age=600');
    res.end(JSON.stringify({ keys: keys.map((k) => k.publicJwk) }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    origin: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    publish(path, key) { sets.set(path, [...(sets.get(path) ?? []), key]); },
    withdraw(path, key) { sets.set(path, (sets.get(path) ?? []).filter((k) => k.kid !== key.kid)); },
    fetches: (path) => counts.get(path) ?? 0,
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
