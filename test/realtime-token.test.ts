// Realtime tokens (docs/matches.md): how the façade signs them, what a Supabase
// project must be told (exactly one signing key, from the environment), and the local
// secret kept in the data folder. Verified the way Supabase Realtime verifies: HS256 with
// the project's JWT secret, or the project's JWKS by `kid` (the local stand-in's check,
// twin/realtime/jwt.ts, which reproduces Realtime's). Only the kinds Supabase imports as
// signing keys are accepted; every other is refused at start.
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createLocalJWKSet, decodeProtectedHeader, exportJWK, generateKeyPair, jwtVerify, type JWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { readSettings } from '../api/config/settings.js';
import { supabaseSigningKey } from '../api/server.js';
import { supabaseRealtime } from '../api/app-factory.js';
import { createRealtimeSigner, publicJwk } from '../api/security/realtime-token.js';
import { authorizeToken } from '../twin/realtime/jwt.js';
import { localRealtimeSecret, localRealtimeSigning, REALTIME_SECRET_FILE } from '../twin/realtime/project-secret.js';
import { freshDatabase } from './support/harness.js';
import { freePort } from './support/net.js';

const SECRET = 'a-supabase-project-jwt-secret-of-at-least-32-chars';
const now = () => Math.floor(Date.now() / 1000);

describe('realtime tokens', () => {
  it('HS256 with the project\'s JWT secret: the player\'s claims, ten minutes at most (a ban or an erasure cuts a joined socket within that), never after the session', async () => {
    const signer = await createRealtimeSigner(supabaseSigningKey(readSettings({ MANETTE_REALTIME_JWT_SECRET: SECRET })));
    const { token, exp } = await signer.playerToken({ playerId: 'p-1', gameId: 'g-1', notAfter: now() + 86_400 });
    const { payload, protectedHeader } = await jwtVerify(token, new TextEncoder().encode(SECRET), { algorithms: ['HS256'] });
    expect(protectedHeader).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(payload).toEqual({ role: 'authenticated', aud: 'authenticated', sub: 'p-1', jeu_id: 'g-1', iss: 'manette', iat: expect.any(Number), exp });
    expect(exp - payload.iat!).toBe(600);
    const bounded = await signer.playerToken({ playerId: 'p-1', gameId: 'g-1', notAfter: now() + 60 });
    expect(bounded.exp).toBe(now() + 60);
    await expect(jwtVerify(token, new TextEncoder().encode('another-secret-another-secret-another'))).rejects.toThrow();
  });

  it('a private JWK the project trusts: signed with its kid, verified through a JWKS', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    const privateJwk = { ...(await exportJWK(privateKey)), kid: 'manette-1', alg: 'ES256' };
    const publicJwk = { ...(await exportJWK(publicKey)), kid: 'manette-1', alg: 'ES256' };
    const settings = readSettings({ MANETTE_REALTIME_JWT_PRIVATE_KEY: JSON.stringify(privateJwk), MANETTE_REALTIME_TOKEN_TTL_S: '300' });
    const signer = await createRealtimeSigner(supabaseSigningKey(settings), settings.MANETTE_REALTIME_TOKEN_TTL_S);
    const { token, exp } = await signer.playerToken({ playerId: 'p-2', gameId: 'g-2', notAfter: now() + 86_400 });
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'ES256', typ: 'JWT', kid: 'manette-1' });
    const { payload } = await jwtVerify(token, createLocalJWKSet({ keys: [publicJwk] }));
    expect(payload).toMatchObject({ role: 'authenticated', sub: 'p-2', jeu_id: 'g-2' });
    expect(exp - payload.iat!).toBe(300);
    const service = await signer.serviceKey();
    expect((await jwtVerify(service, createLocalJWKSet({ keys: [publicJwk] }))).payload.role).toBe('service_role');
  });

  it('with a Supabase project, exactly one signing key must be named, and it must parse', () => {
    expect(() => supabaseSigningKey(readSettings({}))).toThrow(/exactly one of MANETTE_REALTIME_JWT_SECRET .* or MANETTE_REALTIME_JWT_PRIVATE_KEY/);
    expect(() => supabaseSigningKey(readSettings({ MANETTE_REALTIME_JWT_SECRET: SECRET, MANETTE_REALTIME_JWT_PRIVATE_KEY: '{}' }))).toThrow(/exactly one/);
    expect(() => supabaseSigningKey(readSettings({ MANETTE_REALTIME_JWT_PRIVATE_KEY: 'not json' }))).toThrow(/JWK in JSON/);
    expect(() => readSettings({ MANETTE_REALTIME_JWT_SECRET: 'short' })).toThrow(/MANETTE_REALTIME_JWT_SECRET/);
    // The 3600 earlier versions allowed still starts, lowered to ten minutes; more is refused.
    expect(readSettings({ MANETTE_REALTIME_TOKEN_TTL_S: '3600' }).MANETTE_REALTIME_TOKEN_TTL_S).toBe(600);
    expect(() => readSettings({ MANETTE_REALTIME_TOKEN_TTL_S: '3601' })).toThrow(/MANETTE_REALTIME_TOKEN_TTL_S/);
  });

  it('refuses a token lifetime over ten minutes', async () => {
    await expect(createRealtimeSigner({ secret: SECRET }, 601)).rejects.toThrow(/1 to 600/);
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

// ---- signing keys: what Supabase accepts, and nothing else ---------------------------
const REALTIME_URL = 'wss://ref.supabase.co/realtime/v1';
const settingsWith = (env: Record<string, string>) => readSettings({ MANETTE_REALTIME_URL: REALTIME_URL, ...env });

/** A private JWK of jose's making (extractable), with a kid and, unless null, an alg. */
async function privateJwk(alg: string, o: { kid?: string; jwkAlg?: string | null; crv?: string } = {}): Promise<JWK> {
  const { privateKey } = await generateKeyPair(alg, { extractable: true, ...(o.crv ? { crv: o.crv } : {}) });
  const jwk: JWK = { ...(await exportJWK(privateKey)), kid: o.kid ?? `k-${alg}` };
  if (o.jwkAlg !== null) jwk.alg = o.jwkAlg ?? alg;
  return jwk;
}

describe('realtime signing keys: HS256 with the secret, RS256 or ES256 private JWKs', () => {
  it('each accepted kind signs tokens that Realtime\'s check (the local stand-in\'s) verifies', async () => {
    const accepted: Array<[string, Record<string, string>, JWK | undefined, string]> = [
      ['HS256, the project\'s JWT secret', { MANETTE_REALTIME_JWT_SECRET: SECRET }, undefined, 'HS256'],
    ];
    for (const [alg, jwkAlg] of [['RS256', 'RS256'], ['RS256', null], ['ES256', 'ES256'], ['ES256', null]] as const) {
      const jwk = await privateJwk(alg, { jwkAlg, kid: `k-${alg}-${jwkAlg ?? 'no-alg'}` });
      accepted.push([`${alg} JWK${jwkAlg ? '' : ' without alg'}`, { MANETTE_REALTIME_JWT_PRIVATE_KEY: JSON.stringify(jwk) }, jwk, alg]);
    }
    // The project's keys as its Realtime tenant holds them: the secret and the public JWKS.
    const tenant = {
      secret: new TextEncoder().encode(SECRET),
      jwks: { keys: accepted.flatMap(([, , jwk]) => (jwk ? [publicJwk(jwk) as Record<string, unknown>] : [])) },
    };
    // Another project: other keys under the same kids, another secret.
    const other = { secret: new TextEncoder().encode(`${SECRET}-other`), jwks: { keys: [] as Record<string, unknown>[] } };
    for (const [, , jwk, alg] of accepted) if (jwk) other.jwks.keys.push(publicJwk(await privateJwk(alg, { kid: jwk.kid })) as Record<string, unknown>);
    for (const [kind, env, jwk, alg] of accepted) {
      const { signer } = await supabaseRealtime(settingsWith(env));
      const { token, exp } = await signer.playerToken({ playerId: 'p-3', gameId: 'g-3', notAfter: now() + 86_400 });
      expect(decodeProtectedHeader(token), kind).toEqual({ alg, typ: 'JWT', ...(jwk ? { kid: jwk.kid } : {}) });
      expect(await authorizeToken(token, tenant), kind).toEqual({
        ok: true, exp, claims: { role: 'authenticated', aud: 'authenticated', sub: 'p-3', jeu_id: 'g-3', iss: 'manette', iat: expect.any(Number), exp },
      });
      expect(await authorizeToken(await signer.serviceKey(), tenant), kind).toMatchObject({ ok: true, claims: { role: 'service_role' } });
      expect(await authorizeToken(token, other), kind).toEqual({ ok: false, error: { kind: 'signature' } });
    }
  });

  it('every other kind is refused at start, with a message naming the accepted ones', async () => {
    const rsa1024 = { ...(generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ format: 'jwk' }) as JWK), kid: 'small', alg: 'RS256' };
    const es256 = await privateJwk('ES256');
    const rs256 = await privateJwk('RS256');
    const refused: Array<[string, JWK | string, RegExp]> = [
      ['EdDSA (Ed25519)', await privateJwk('EdDSA', { crv: 'Ed25519' }), /an OKP key \("Ed25519", EdDSA\) is not accepted/],
      ['Ed25519 without alg', await privateJwk('Ed25519', { jwkAlg: null }), /an OKP key/],
      ['ES384 (P-384)', await privateJwk('ES384'), /an EC key on curve "P-384"/],
      ['ES512 (P-521)', await privateJwk('ES512'), /an EC key on curve "P-521"/],
      ['RSA with RS384', await privateJwk('RS384'), /alg "RS384" does not go with a RSA key \(RS256\)/],
      ['RSA with RS512', await privateJwk('RS512'), /alg "RS512" does not go with a RSA key/],
      ['RSA with PS256', await privateJwk('PS256'), /alg "PS256" does not go with a RSA key/],
      ['EC P-256 with RS256', { ...es256, alg: 'RS256' }, /alg "RS256" does not go with a EC key on P-256 \(ES256\)/],
      ['RSA with ES256', { ...rs256, alg: 'ES256' }, /alg "ES256" does not go with a RSA key/],
      ['an EC public key only', publicJwk(es256), /a public key only/],
      ['an RSA public key only', publicJwk(rs256), /a public key only/],
      ['a shared secret as a JWK (HS256)', { kty: 'oct', k: Buffer.from(SECRET).toString('base64url'), kid: 'hs', alg: 'HS256' }, /kty "oct"/],
      ['a shared secret as a JWK (HS512)', { kty: 'oct', k: Buffer.from(SECRET).toString('base64url'), kid: 'hs', alg: 'HS512' }, /kty "oct"/],
      ['no kid', { ...es256, kid: undefined }, /no kid/],
      ['an encryption key', { ...es256, use: 'enc' }, /use "enc"/],
      ['RSA under 2048 bits', rsa1024, /this RS256 key cannot sign/],
      ['a private part that is not the public one\'s', { ...es256, d: (await privateJwk('ES256')).d }, /this ES256 key cannot sign/],
      ['not a JWK', '[1, 2]', /not a JWK/],
      ['not JSON', 'ES256', /must be a JWK in JSON/],
    ];
    for (const [kind, jwk, reason] of refused) {
      const settings = settingsWith({ MANETTE_REALTIME_JWT_PRIVATE_KEY: typeof jwk === 'string' ? jwk : JSON.stringify(jwk) });
      const err = await supabaseRealtime(settings).then(() => undefined, (e: Error) => e);
      expect(err?.message, kind).toMatch(reason);
      expect(err?.message, kind).toContain('accepted: the project\'s JWT secret in MANETTE_REALTIME_JWT_SECRET (HS256), '
        + 'or in MANETTE_REALTIME_JWT_PRIVATE_KEY a private JWK with its kid, RS256 (kty "RSA") or ES256 (kty "EC", crv "P-256")');
      // The local stand-in's start refuses the same keys.
      await expect(localRealtimeSigning(readSettings({ MANETTE_REALTIME_JWT_PRIVATE_KEY: settings.MANETTE_REALTIME_JWT_PRIVATE_KEY!, MANETTE_REALTIME_JWT_SECRET: SECRET })), kind)
        .rejects.toThrow(reason);
    }
  });

  it('manette start stops at once on a refused key, saying why', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'manette-key-'));
    try {
      const r = await promisify(execFile)('node', [path.join(import.meta.dirname, '..', 'bin', 'manette.js'), 'start'], {
        env: {
          ...process.env, LANG: 'C.UTF-8', LC_ALL: '', LOG_LEVEL: 'warn', DATABASE_URL: await freshDatabase(), PORT: String(await freePort()),
          MANETTE_DATA_DIR: dir, MANETTE_WORKERS: '1', MANETTE_REALTIME_URL: REALTIME_URL, MANETTE_REALTIME_KEY: 'anon',
          MANETTE_REALTIME_JWT_PRIVATE_KEY: JSON.stringify(await privateJwk('EdDSA', { crv: 'Ed25519' })),
        },
        timeout: 60_000,
      }).then(() => ({ code: 0, stderr: '' }), (e: { code: number; stderr: string }) => e);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('Manette could not start: MANETTE_REALTIME_JWT_PRIVATE_KEY: an OKP key ("Ed25519", EdDSA) is not accepted; accepted: ');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('locally, a private key signs and the stand-in gets its public part as the project\'s JWKS', async () => {
    const jwk = await privateJwk('ES256', { jwkAlg: null });
    const local = await localRealtimeSigning(readSettings({ MANETTE_REALTIME_JWT_SECRET: SECRET, MANETTE_REALTIME_JWT_PRIVATE_KEY: JSON.stringify(jwk) }));
    expect(local.secret).toBe(SECRET);
    expect(local.jwks).toEqual({ keys: [{ kty: 'EC', kid: jwk.kid, use: 'sig', crv: 'P-256', x: jwk.x, y: jwk.y }] });
    const { token } = await local.signer.playerToken({ playerId: 'p-4', gameId: 'g-4', notAfter: now() + 60 });
    const tenant = { secret: new TextEncoder().encode(local.secret), jwks: local.jwks as { keys: Record<string, unknown>[] } };
    expect(await authorizeToken(token, tenant)).toMatchObject({ ok: true, claims: { sub: 'p-4' } });
    expect(await authorizeToken(await local.signer.serviceKey(), tenant)).toMatchObject({ ok: true, claims: { role: 'service_role' } });
  });
});
