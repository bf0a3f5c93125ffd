// Supabase's new keys (docs/deploy.md, "Realtime's key" and "Players' realtime tokens"):
// which key the Edge Function gives games for Realtime (the publishable key, the legacy anon
// key only as a fallback); a key made by the real `supabase gen signing-key` signs players'
// tokens; and the twin's project keys (twin/realtime/project-keys.ts) through the
// Management API stand-in and the Realtime stand-in, with the unmodified realtime-js:
// current and previously used keys accepted, standby and revoked ones refused, the legacy
// anon key and JWT secret refused once disabled / revoked.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import WebSocket from 'ws';
import { SignJWT } from 'jose';
import { RealtimeClient, type RealtimeChannel, type RealtimeClientOptions } from '@supabase/realtime-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishableKeyFrom, realtimeKeyFromSupabaseEnv } from '../api/config/supabase-keys.js';
import { createRealtimeSigner, type RealtimeSigner } from '../api/security/realtime-token.js';
import { startLocalRealtime, type LocalRealtime } from '../twin/realtime/server.js';
import { ProjectKeys } from '../twin/realtime/project-keys.js';
import { startManagementApi, type ManagementApi } from '../twin/management-api/server.js';
import { startBlankTwin, type BlankTwin } from './support/blank-twin.js';

const run = promisify(execFile);
const SUPABASE_CLI = path.resolve('node_modules', '.bin', 'supabase');
const LEGACY_SECRET = 'the-legacy-jwt-secret-of-at-least-thirty-two-characters';

describe('the realtime key an Edge Function gives games', () => {
  const pk = 'sb_publishable_ACJWlzQHlZjBrEguHvfOxg_3BJgxAaH';
  const anon = 'eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoiYW5vbiJ9.c2ln';

  it('the publishable key of SUPABASE_PUBLISHABLE_KEYS ("default", else the only one, else the one named), the legacy anon key only without one', () => {
    expect(realtimeKeyFromSupabaseEnv({ SUPABASE_PUBLISHABLE_KEYS: JSON.stringify({ default: pk }), SUPABASE_ANON_KEY: anon }))
      .toEqual({ key: pk, source: 'SUPABASE_PUBLISHABLE_KEYS.default' });
    expect(realtimeKeyFromSupabaseEnv({ SUPABASE_PUBLISHABLE_KEYS: JSON.stringify({ web: 'sb_publishable_w', default: pk }) }))
      .toEqual({ key: pk, source: 'SUPABASE_PUBLISHABLE_KEYS.default' });
    expect(realtimeKeyFromSupabaseEnv({ SUPABASE_PUBLISHABLE_KEYS: JSON.stringify({ games: pk }), SUPABASE_ANON_KEY: anon }))
      .toEqual({ key: pk, source: 'SUPABASE_PUBLISHABLE_KEYS.games' });
    expect(realtimeKeyFromSupabaseEnv({ SUPABASE_PUBLISHABLE_KEYS: JSON.stringify({ default: 'sb_publishable_d', games: pk }), MANETTE_REALTIME_KEY_NAME: 'games' }))
      .toEqual({ key: pk, source: 'SUPABASE_PUBLISHABLE_KEYS.games' });
    // The single-key form (local setups), then the legacy key.
    expect(realtimeKeyFromSupabaseEnv({ SUPABASE_PUBLISHABLE_KEY: pk, SUPABASE_ANON_KEY: anon })).toEqual({ key: pk, source: 'SUPABASE_PUBLISHABLE_KEY' });
    expect(realtimeKeyFromSupabaseEnv({ SUPABASE_ANON_KEY: anon })).toEqual({ key: anon, source: 'SUPABASE_ANON_KEY (legacy)' });
    expect(realtimeKeyFromSupabaseEnv({ SUPABASE_PUBLISHABLE_KEYS: '', SUPABASE_ANON_KEY: anon })).toEqual({ key: anon, source: 'SUPABASE_ANON_KEY (legacy)' });
    expect(realtimeKeyFromSupabaseEnv({})).toBeUndefined();
    // The studio's own setting wins over all.
    expect(realtimeKeyFromSupabaseEnv({ MANETTE_REALTIME_KEY: 'sb_publishable_mine', SUPABASE_PUBLISHABLE_KEYS: JSON.stringify({ default: pk }) }))
      .toEqual({ key: 'sb_publishable_mine', source: 'MANETTE_REALTIME_KEY' });
  });

  it('refuses, with the fix, what it cannot choose from: not JSON, not an object of keys, several keys none "default", a name it lacks', () => {
    expect(() => publishableKeyFrom('sb_publishable_x')).toThrow(/not JSON.*\{"default":"sb_publishable_\.\.\."\}/);
    expect(() => publishableKeyFrom('["sb_publishable_x"]')).toThrow(/JSON object of publishable keys by name/);
    expect(() => publishableKeyFrom('{"default":1}')).toThrow(/JSON object of publishable keys by name/);
    expect(() => publishableKeyFrom('{"web":"a","ios":"b"}')).toThrow(/several publishable keys \("web", "ios"\).*MANETTE_REALTIME_KEY_NAME/);
    expect(() => publishableKeyFrom('{"web":"a"}', 'games')).toThrow(/no key named "games".*"web"/);
    expect(publishableKeyFrom('{}')).toBeUndefined();
  });
});

describe('a key made by `supabase gen signing-key` signs players\' tokens', () => {
  it.each(['ES256', 'RS256'])('%s, as the CLI writes it (key_ops sign and verify)', async (algorithm) => {
    const { stdout } = await run(SUPABASE_CLI, ['gen', 'signing-key', '--algorithm', algorithm], { env: { ...process.env, SUPABASE_TELEMETRY_DISABLED: '1' } });
    const jwk = JSON.parse(stdout) as Record<string, unknown>;
    expect(jwk).toMatchObject({ alg: algorithm, key_ops: ['sign', 'verify'], kid: expect.any(String) });
    const signer = await createRealtimeSigner({ privateJwk: jwk });
    const { token } = await signer.playerToken({ playerId: 'p', gameId: 'g', notAfter: Math.floor(Date.now() / 1000) + 600 });
    expect(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString())).toEqual({ alg: algorithm, typ: 'JWT', kid: jwk.kid });
  }, 60_000);
});

describe('the twin\'s project keys: Management API and Realtime, with realtime-js', () => {
  let db: BlankTwin;
  let project: ProjectKeys;
  let api: ManagementApi;
  let realtime: LocalRealtime;
  const clients: RealtimeClient[] = [];
  const keys = (rest = '') => `${api.url}/v1/projects/${api.projectRef}/config/auth/signing-keys${rest}`;
  const call = async (method: string, url: string, body?: unknown) => {
    const res = await fetch(url, {
      method, headers: { Authorization: `Bearer ${api.accessToken}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() as any };
  };
  /** A key of Manette's own, as `supabase gen signing-key` makes it, and its signer. */
  const newKey = async () => {
    const { stdout } = await run(SUPABASE_CLI, ['gen', 'signing-key', '--algorithm', 'ES256'], { env: { ...process.env, SUPABASE_TELEMETRY_DISABLED: '1' } });
    const jwk = JSON.parse(stdout) as Record<string, unknown> & { kid: string };
    return { jwk, signer: await createRealtimeSigner({ privateJwk: jwk }) };
  };
  const tokenOf = async (signer: RealtimeSigner) =>
    (await signer.playerToken({ playerId: 'p', gameId: 'g', notAfter: Math.floor(Date.now() / 1000) + 600 })).token;
  /** A public join with realtime-js (every join's token is verified, public or not): 'ok' or Realtime's reason. */
  async function join(apikey: string, token: string): Promise<string> {
    const rt = new RealtimeClient(realtime.url, {
      params: { apikey }, timeout: 5_000, transport: WebSocket as unknown as RealtimeClientOptions['transport'],
    });
    clients.push(rt);
    await rt.setAuth(token);
    try {
      return await new Promise<string>((resolve) => {
        const channel: RealtimeChannel = rt.channel(`keys_${clients.length}`, { config: {} });
        channel.subscribe((status, err) => {
          if (status === 'SUBSCRIBED') resolve('ok');
          else if (status !== 'CLOSED') resolve(err?.message ?? status);
        });
      });
    } finally {
      rt.disconnect();
    }
  }
  /** The handshake's answer to a socket apikey: 101 or the refusal's status and error. */
  const handshake = (apikey: string) => new Promise<string>((resolve) => {
    const ws = new WebSocket(`${realtime.url}/websocket?apikey=${encodeURIComponent(apikey)}&vsn=1.0.0`);
    ws.on('open', () => { ws.terminate(); resolve('open'); });
    ws.on('error', () => {});
    ws.on('unexpected-response', async (_req, res) => {
      resolve(`${res.statusCode} ${(await res.toArray()).join('')}`);
      ws.terminate();
    });
  });

  beforeAll(async () => {
    db = await startBlankTwin();
    project = new ProjectKeys({ legacyJwtSecret: LEGACY_SECRET, mode: 'legacy' });
    api = await startManagementApi({ project });
    realtime = await startLocalRealtime({ port: 0, databaseUrl: db.adminUrl, project, privateOnly: 'off', log: () => {} });
  }, 120_000);
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    await realtime?.close();
    await api?.close();
    await db?.stop();
  });

  it('from a legacy project to new keys: import, rotate in, disable the legacy API keys, revoke the legacy secret, a later rotation, a recovery', async () => {
    const pk = project.publishableKeys.default!;
    const legacySigner = await createRealtimeSigner({ secret: LEGACY_SECRET });
    const anonKey = await new SignJWT({ role: 'anon' }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setExpirationTime('1h').sign(new TextEncoder().encode(LEGACY_SECRET));
    const legacyToken = await tokenOf(legacySigner);

    // A legacy project: the anon key and the publishable key both open a socket; HS256 tokens are accepted.
    expect(await join(anonKey, legacyToken)).toBe('ok');
    expect(await join(pk, legacyToken)).toBe('ok');
    expect((await call('GET', `${api.url}/v1/projects/${api.projectRef}/api-keys?reveal=true`)).body)
      .toEqual([expect.objectContaining({ name: 'default', type: 'publishable', api_key: pk })]);

    // Import: standby. Its tokens are refused (Realtime is not given a standby key).
    const a = await newKey();
    const created = await call('POST', keys(), { algorithm: 'ES256', private_jwk: a.jwk });
    expect(created).toMatchObject({ status: 201, body: { status: 'standby', algorithm: 'ES256', public_jwk: { kid: a.jwk.kid } } });
    expect(created.body.public_jwk.d).toBeUndefined();
    const tokenA = await tokenOf(a.signer);
    const refusedA = `JwtSignerError: Failed to generate JWT signer for key ID (kid) "${a.jwk.kid}", check your JWT secret or JWKS configuration`;
    expect(await join(pk, tokenA)).toBe(refusedA);
    // One standby key at a time.
    const b = await newKey();
    expect((await call('POST', keys(), { algorithm: 'ES256', private_jwk: b.jwk })).status).toBe(409);

    // Rotate in: A is current, the legacy secret previously used (still accepted).
    expect((await call('PATCH', keys(`/${created.body.id}`), { status: 'in_use' })).body.status).toBe('in_use');
    expect(await join(pk, tokenA)).toBe('ok');
    expect(await join(pk, legacyToken)).toBe('ok');
    const legacy = (await call('GET', keys('/legacy'))).body;
    expect(legacy).toMatchObject({ algorithm: 'HS256', status: 'previously_used' });

    // The legacy secret cannot be revoked while the legacy API keys are enabled.
    expect((await call('PATCH', keys(`/${legacy.id}`), { status: 'revoked' })).status).toBe(400);
    expect((await call('PUT', `${api.url}/v1/projects/${api.projectRef}/api-keys/legacy?enabled=false`)).body).toEqual({ enabled: false });
    // The anon key no longer passes the gateway; the publishable key does.
    expect(await handshake(anonKey)).toBe('401 {"error":"Legacy API keys are disabled: use the publishable key"}');
    expect(await handshake(pk)).toBe('open');
    expect(await handshake('sb_publishable_not_this_project')).toBe('401 {"error":"Invalid API key"}');
    expect((await call('PATCH', keys(`/${legacy.id}`), { status: 'revoked' })).body.status).toBe('revoked');
    // HS256 tokens signed with the revoked legacy secret fail their signature check.
    expect(await join(pk, legacyToken)).toBe('JwtSignatureError: Failed to validate JWT signature');
    expect(await join(pk, tokenA)).toBe('ok');

    // A later rotation to another key: A becomes previously used, still accepted...
    const createdB = await call('POST', keys(), { algorithm: 'ES256', private_jwk: b.jwk });
    await call('PATCH', keys(`/${createdB.body.id}`), { status: 'in_use' });
    expect((await call('GET', keys(`/${created.body.id}`))).body.status).toBe('previously_used');
    expect(await join(pk, tokenA)).toBe('ok');
    expect(await join(pk, await tokenOf(b.signer))).toBe('ok');
    // ... until revoked.
    expect((await call('PATCH', keys(`/${created.body.id}`), { status: 'revoked' })).body.status).toBe('revoked');
    expect(await join(pk, tokenA)).toBe(refusedA);
    // The current key cannot be revoked, nor a revoked key rotated in directly.
    expect((await call('PATCH', keys(`/${createdB.body.id}`), { status: 'revoked' })).status).toBe(400);
    expect((await call('PATCH', keys(`/${created.body.id}`), { status: 'in_use' })).status).toBe(400);

    // Recovery: the revoked key back to standby (still refused), then rotated in (accepted).
    expect((await call('PATCH', keys(`/${created.body.id}`), { status: 'standby' })).body.status).toBe('standby');
    expect(await join(pk, tokenA)).toBe(refusedA);
    await call('PATCH', keys(`/${created.body.id}`), { status: 'in_use' });
    expect(await join(pk, tokenA)).toBe('ok');
    expect(project.list().map((k) => [k.legacy ? 'legacy' : k.publicJwk!.kid === a.jwk.kid ? 'A' : 'B', k.status]))
      .toEqual([['legacy', 'revoked'], ['A', 'in_use'], ['B', 'previously_used']]);
  }, 120_000);
});
