// Realtime tokens (contract section 11): how the façade signs them, what a Supabase
// project must be told (exactly one signing key, from the environment), and the local
// secret kept in the data folder. Verified the way Supabase Realtime verifies: HS256 with
// the project's JWT secret, or the project's JWKS by `kid`.
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLocalJWKSet, decodeProtectedHeader, exportJWK, generateKeyPair, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { readSettings } from '../api/config/settings.js';
import { supabaseSigningKey } from '../api/server.js';
import { createRealtimeSigner } from '../api/security/realtime-token.js';
import { localRealtimeSecret, REALTIME_SECRET_FILE } from '../twin/realtime/project-secret.js';

const SECRET = 'a-supabase-project-jwt-secret-of-at-least-32-chars';
const now = () => Math.floor(Date.now() / 1000);

describe('realtime tokens', () => {
  it('HS256 with the project\'s JWT secret: the player\'s claims, one hour at most, never after the session', async () => {
    const signer = await createRealtimeSigner(supabaseSigningKey(readSettings({ MANETTE_REALTIME_JWT_SECRET: SECRET })));
    const { token, exp } = await signer.playerToken({ playerId: 'p-1', gameId: 'g-1', notAfter: now() + 86_400 });
    const { payload, protectedHeader } = await jwtVerify(token, new TextEncoder().encode(SECRET), { algorithms: ['HS256'] });
    expect(protectedHeader).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(payload).toEqual({ role: 'authenticated', aud: 'authenticated', sub: 'p-1', jeu_id: 'g-1', iss: 'manette', iat: expect.any(Number), exp });
    expect(exp - payload.iat!).toBe(3600);
    const bounded = await signer.playerToken({ playerId: 'p-1', gameId: 'g-1', notAfter: now() + 60 });
    expect(bounded.exp).toBe(now() + 60);
    await expect(jwtVerify(token, new TextEncoder().encode('another-secret-another-secret-another'))).rejects.toThrow();
  });

  it('a private JWK the project trusts: signed with its kid, verified through a JWKS', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    const privateJwk = { ...(await exportJWK(privateKey)), kid: 'manette-1', alg: 'ES256' };
    const publicJwk = { ...(await exportJWK(publicKey)), kid: 'manette-1', alg: 'ES256' };
    const settings = readSettings({ MANETTE_REALTIME_JWT_PRIVATE_KEY: JSON.stringify(privateJwk), MANETTE_REALTIME_TOKEN_TTL_S: '600' });
    const signer = await createRealtimeSigner(supabaseSigningKey(settings), settings.MANETTE_REALTIME_TOKEN_TTL_S);
    const { token, exp } = await signer.playerToken({ playerId: 'p-2', gameId: 'g-2', notAfter: now() + 86_400 });
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'ES256', typ: 'JWT', kid: 'manette-1' });
    const { payload } = await jwtVerify(token, createLocalJWKSet({ keys: [publicJwk] }));
    expect(payload).toMatchObject({ role: 'authenticated', sub: 'p-2', jeu_id: 'g-2' });
    expect(exp - payload.iat!).toBe(600);
    const service = await signer.serviceKey();
    expect((await jwtVerify(service, createLocalJWKSet({ keys: [publicJwk] }))).payload.role).toBe('service_role');
  });

  it('with a Supabase project, exactly one signing key must be named, and it must parse', () => {
    expect(() => supabaseSigningKey(readSettings({}))).toThrow(/exactly one of MANETTE_REALTIME_JWT_SECRET .* or MANETTE_REALTIME_JWT_PRIVATE_KEY/);
    expect(() => supabaseSigningKey(readSettings({ MANETTE_REALTIME_JWT_SECRET: SECRET, MANETTE_REALTIME_JWT_PRIVATE_KEY: '{}' }))).toThrow(/exactly one/);
    expect(() => supabaseSigningKey(readSettings({ MANETTE_REALTIME_JWT_PRIVATE_KEY: 'not json' }))).toThrow(/JWK in JSON/);
    expect(() => readSettings({ MANETTE_REALTIME_JWT_SECRET: 'short' })).toThrow(/MANETTE_REALTIME_JWT_SECRET/);
    expect(() => readSettings({ MANETTE_REALTIME_TOKEN_TTL_S: '7200' })).toThrow(/MANETTE_REALTIME_TOKEN_TTL_S/);
  });

  it('refuses a JWK without a private part or a kid', async () => {
    const { publicKey } = await generateKeyPair('ES256', { extractable: true });
    await expect(createRealtimeSigner({ privateJwk: { ...(await exportJWK(publicKey)), kid: 'k' } })).rejects.toThrow(/private JWK with a kid/);
    await expect(createRealtimeSigner({ secret: SECRET }, 3601)).rejects.toThrow(/1 to 3600/);
  });

  it('locally, the secret is made once in the data folder (owner-only), and every caller gets the same', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'manette-secret-'));
    try {
      const all = await Promise.all(Array.from({ length: 8 }, () => localRealtimeSecret(dir)));
      expect(new Set(all).size).toBe(1);
      expect(all[0]!.length).toBeGreaterThanOrEqual(32);
      expect(await localRealtimeSecret(dir)).toBe(all[0]);
      expect(await readFile(path.join(dir, REALTIME_SECRET_FILE), 'utf8')).toBe(all[0]);
      expect((await stat(path.join(dir, REALTIME_SECRET_FILE))).mode & 0o777).toBe(0o600);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
