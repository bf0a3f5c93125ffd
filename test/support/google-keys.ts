// A stand-in for Google's key set: an RS256 key pair whose public half is served as a JWKS
// on a local port (MANETTE_GOOGLE_JWKS_URL), to sign ID tokens in tests.
import http from 'node:http';
import { exportJWK, generateKeyPair } from 'jose';

export interface GoogleKeys { jwksUrl: string; privateKey: CryptoKey; close(): void }

export async function serveGoogleKeys(): Promise<GoogleKeys> {
  const pair = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  const server = http.createServer((_req, res) => res.setHeader('content-type', 'application/json').end(JSON.stringify({ keys: [jwk] })));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    jwksUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}/certs`,
    privateKey: pair.privateKey as CryptoKey,
    close: () => server.close(),
  };
}
