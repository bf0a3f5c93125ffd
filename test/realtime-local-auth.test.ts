// Channel authorization of the local Realtime (twin/realtime) the way Supabase
// Realtime does it, against real parts: a twin of a hosted Supabase database with RLS
// policies on realtime.messages (the stand-in knows nothing about them), JWTs signed with
// jose, the unmodified @supabase/realtime-js and raw `ws` clients. Also the HTTP broadcast
// endpoint, and what becomes of messages committed while the stand-in's replication
// connection is down: lost, as on Supabase, unless catch-up is chosen.
import { once } from 'node:events';
import { request } from 'node:http';
import { rm } from 'node:fs/promises';
import { createServer, connect as netConnect, type Server, type Socket } from 'node:net';
import pg from 'pg';
import WebSocket from 'ws';
import { exportJWK, generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';
import { RealtimeClient, type RealtimeChannel, type RealtimeClientOptions } from '@supabase/realtime-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startLocalRealtime, type LocalRealtime } from '../twin/realtime/server.js';
import { PLANS } from '../twin/realtime/quotas.js';
import type { Delivery } from '../twin/realtime/replication.js';
import { startBlankTwin, type BlankTwin } from './support/blank-twin.js';
import { createRealtimeSigner } from '../api/security/realtime-token.js';
import { freePort } from './support/net.js';
import { sleep, waitUntil as waitFor } from './support/wait.js';
const waitUntil = <V>(fn: () => V | undefined | false | Promise<V | undefined | false>, what = 'condition', timeoutMs = 6_000) =>
  waitFor(fn, what, timeoutMs, 20);

// ---- setup --------------------------------------------------------------------
const API_KEY = 'local-test-key';
const JWT_SECRET = 'local-auth-test-secret-of-at-least-thirty-two-chars';
const MAX_EVENTS_PER_SECOND = 100;
const T = 30_000; // per-test timeout

type Db = BlankTwin;
interface Stack { db: Db; admin: pg.Client; realtime: LocalRealtime; logs: Array<{ level: string; msg: string }> }
const startDb = startBlankTwin;

// Test policies: who reads and who writes is data in the database, as in a real project.
const POLICIES = `
  create table public.rt_readers (sub text primary key, can_broadcast boolean not null, can_presence boolean not null);
  create table public.rt_writers (sub text primary key);
  grant select on public.rt_readers, public.rt_writers to authenticated;
  insert into public.rt_readers values
    ('alice', true, true), ('bob', true, true), ('carol', true, true), ('paula', false, true), ('rita', true, true);
  insert into public.rt_writers values ('alice'), ('bob');

  create policy "rooms: readers" on realtime.messages for select to authenticated using (
    realtime.topic() like 'room_%' and exists (
      select 1 from public.rt_readers r where r.sub = auth.jwt() ->> 'sub'
        and ((messages.extension = 'broadcast' and r.can_broadcast) or (messages.extension = 'presence' and r.can_presence))));
  create policy "rooms: writers" on realtime.messages for insert to authenticated with check (
    realtime.topic() like 'room_%' and exists (select 1 from public.rt_writers w where w.sub = auth.jwt() ->> 'sub'));
  -- A policy that fails: 'boom'::int.
  create policy "boom" on realtime.messages for select to authenticated using (
    case when realtime.topic() = 'boom' then realtime.topic()::int = 1 else false end);
  -- A slow one, to see a socket's messages wait for its join.
  create policy "slow: read" on realtime.messages for select to authenticated using (
    case when realtime.topic() = 'slow' then (select true from pg_sleep(0.8)) else false end);
  create policy "slow: write" on realtime.messages for insert to authenticated with check (realtime.topic() = 'slow');
`;

async function startStack(db: Db): Promise<Stack> {
  const admin = new pg.Client({ connectionString: db.databaseUrl }); // `postgres`, as the project's own SQL
  admin.on('error', () => {});
  await admin.connect();
  const logs: Stack['logs'] = [];
  const realtime = await startLocalRealtime({
    port: 0, databaseUrl: db.adminUrl, jwtSecret: JWT_SECRET, authorize: (key) => key === API_KEY,
    log: (level, msg) => logs.push({ level, msg }), quotas: { ...PLANS.free, maxEventsPerSecond: MAX_EVENTS_PER_SECOND },
  });
  return { db, admin, realtime, logs };
}

let db: Db;
let stack: Stack;
beforeAll(async () => {
  db = await startDb(false);
  const c = new pg.Client({ connectionString: db.databaseUrl });
  await c.connect();
  await c.query(POLICIES);
  await c.end();
  stack = await startStack(db);
}, 120_000);
afterAll(async () => {
  await stack?.realtime.close();
  await stack?.admin.end();
  await db?.stop();
}, 60_000);

// ---- helpers ------------------------------------------------------------------

let nonce = 0;
/** A token signed with `secret` (the stand-in's by default); exp one hour away unless given or `noExp`. */
function sign(claims: Record<string, unknown>, o: { secret?: string; expIn?: number; noExp?: boolean } = {}): Promise<string> {
  const body: Record<string, unknown> = { ...claims, jti: `t${++nonce}` };
  if (!o.noExp && !('exp' in claims)) body.exp = Math.floor(Date.now() / 1000) + (o.expIn ?? 3600);
  return new SignJWT(body).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode(o.secret ?? JWT_SECRET));
}
const user = (sub: string, o?: { expIn?: number }) => sign({ role: 'authenticated', sub }, o);

type Msg = { topic?: string; event?: string; payload?: any; ref?: unknown; join_ref?: unknown };
const rawClients: RawClient[] = [];
class RawClient {
  readonly messages: Msg[] = [];
  private constructor(readonly ws: WebSocket, readonly vsn: '1.0.0' | '2.0.0') {}

  static async open(vsn: '1.0.0' | '2.0.0', realtime: LocalRealtime = stack.realtime, apikey = API_KEY): Promise<RawClient> {
    const ws = new WebSocket(`${realtime.url}/websocket?apikey=${encodeURIComponent(apikey)}&vsn=${vsn}`);
    const client = new RawClient(ws, vsn);
    ws.on('message', (data: Buffer, isBinary) => {
      if (isBinary) return void client.messages.push({ event: '<binary>' });
      const v = JSON.parse(data.toString());
      if (vsn === '1.0.0') return void client.messages.push(v);
      const [join_ref, ref, topic, event, payload] = v;
      client.messages.push({ join_ref, ref, topic, event, payload });
    });
    rawClients.push(client);
    await once(ws, 'open');
    return client;
  }

  push(topic: string, event: string, payload: unknown, ref: string | null, joinRef: string | null = null): void {
    this.ws.send(JSON.stringify(this.vsn === '2.0.0' ? [joinRef, ref, topic, event, payload] : { topic, event, payload, ref, join_ref: joinRef }));
  }

  waitFor(pred: (m: Msg) => boolean, what = 'message', timeoutMs?: number): Promise<Msg> {
    return waitUntil(() => this.messages.find(pred), what, timeoutMs);
  }

  /** Joins and returns the join reply's payload ({status, response}). */
  async join(topic: string, payload: object, ref = '1'): Promise<{ status: string; response: any }> {
    this.push(`realtime:${topic}`, 'phx_join', payload, ref, ref);
    return (await this.waitFor(isReply(ref, `realtime:${topic}`), `join reply ${topic}`)).payload;
  }
}

const jsClients: RealtimeClient[] = [];
function jsClient(apikey = API_KEY): RealtimeClient {
  const client = new RealtimeClient(stack.realtime.url, {
    params: { apikey },
    transport: WebSocket as unknown as RealtimeClientOptions['transport'],
    timeout: 5_000,
  });
  jsClients.push(client);
  return client;
}
function subscribed(channel: RealtimeChannel): Promise<RealtimeChannel> {
  return new Promise((resolve, reject) => {
    channel.subscribe((status, err) => {
      if (status === 'SUBSCRIBED') resolve(channel);
      else if (status !== 'CLOSED') reject(new Error(`${status} ${err?.message ?? ''}`));
    });
  });
}

afterEach(async () => {
  for (const c of rawClients.splice(0)) c.ws.terminate();
  await Promise.all(jsClients.splice(0).map((c) => c.removeAllChannels()));
});

const isReply = (ref: unknown, topic?: string) => (m: Msg) => m.event === 'phx_reply' && m.ref === ref && (topic === undefined || m.topic === topic);
const broadcastOf = (event: string) => (m: Msg) => m.event === 'broadcast' && m.payload?.event === event;
const privateJoin = (token?: string, presence: object = { key: '', enabled: false }, broadcast: object = {}) =>
  ({ config: { private: true, broadcast, presence }, ...(token ? { access_token: token } : {}) });
const cannotRead = (topic: string) => `Unauthorized: You do not have permissions to read from this Channel topic: ${topic}`;

// ---- channel joins ------------------------------------------------------------
describe('local realtime authorization: joins', () => {
  it('accepts a private join whose token the read policies allow (realtime-js and raw)', async () => {
    const js = jsClient();
    await js.setAuth(await user('alice'));
    const got: unknown[] = [];
    const ch = js.channel('room_a', { config: { private: true } }).on('broadcast', { event: '*' }, (m) => got.push(m));
    await subscribed(ch);

    const raw = await RawClient.open('1.0.0');
    expect(await raw.join('room_a', privateJoin(await user('bob')))).toEqual({ status: 'ok', response: { postgres_changes: [] } });

    // user_token wins over access_token (RealtimeChannel.handle_access_token).
    const raw2 = await RawClient.open('2.0.0');
    expect((await raw2.join('room_a', { ...privateJoin('not a jwt'), user_token: await user('carol') })).status).toBe('ok');

    // A role that bypasses RLS reads everything; a token without sub is fine (request.jwt.claim.sub unset).
    expect((await raw2.join('room_a', privateJoin(await sign({ role: 'service_role' })), 'svc')).status).toBe('ok');

    // The socket's apikey, when it is a verified JWT, is the token of joins that carry none.
    const viaSocket = await RawClient.open('1.0.0', stack.realtime, await user('alice'));
    expect((await viaSocket.join('room_a', privateJoin())).status).toBe('ok');

    await stack.admin.query(`select realtime.send('{"n": 1}'::jsonb, 'tick', 'room_a', true)`);
    await waitUntil(() => got.length === 1, 'tick on realtime-js');
    await raw.waitFor(broadcastOf('tick'));
    await viaSocket.waitFor(broadcastOf('tick'));
  }, T);

  it('refuses private joins: no token, malformed, badly signed, expired, no role/exp, sub not allowed, failing policy', async () => {
    const raw = await RawClient.open('1.0.0');
    const cases: Array<[string, object, string | RegExp]> = [
      ['room_r1', privateJoin(), cannotRead('room_r1')],
      ['room_r2', privateJoin('abc'), 'MalformedJWT: The token provided is not a valid JWT'],
      ['room_r3', privateJoin('a.b.c'), 'MalformedJWT: The token provided is not a valid JWT'],
      ['room_r4', privateJoin(await sign({ role: 'authenticated', sub: 'alice' }, { secret: 'another-secret-another-secret-another' })), 'JwtSignatureError: Failed to validate JWT signature'],
      ['room_r5', privateJoin(await sign({ role: 'authenticated', sub: 'alice', exp: Math.floor(Date.now() / 1000) - 30 })), /^InvalidJWTToken: Token has expired (3\d) seconds ago$/],
      ['room_r6', privateJoin(await sign({ sub: 'alice' })), 'InvalidJWTToken: Fields `role` and `exp` are required in JWT'],
      ['room_r7', privateJoin(await sign({ role: 'authenticated', sub: 'alice' }, { noExp: true })), 'InvalidJWTToken: Fields `role` and `exp` are required in JWT'],
      ['room_r8', privateJoin(await user('dave')), cannotRead('room_r8')],
      ['room_r9', privateJoin(await sign({ role: 'no_such_role', sub: 'alice' })), cannotRead('room_r9')],
      ['boom', privateJoin(await user('alice')), cannotRead('boom')],
      // A public channel verifies a token it is given too.
      ['public_r10', { config: { private: false }, access_token: 'abc' }, 'MalformedJWT: The token provided is not a valid JWT'],
    ];
    for (const [i, [topic, payload, reason]] of cases.entries()) {
      const reply = await raw.join(topic, payload, `j${i}`);
      expect(reply.status, topic).toBe('error');
      if (typeof reason === 'string') expect(reply.response, topic).toEqual({ reason });
      else expect(reply.response.reason, topic).toMatch(reason);
    }
    expect(stack.logs.some((l) => l.msg.includes('RlsPolicyError') && l.msg.includes('invalid input syntax'))).toBe(true);
    // The socket itself is fine.
    expect((await raw.join('public_ok', { config: {} }, 'ok')).status).toBe('ok');

    // realtime-js reports CHANNEL_ERROR with the reason.
    const js = jsClient();
    await js.setAuth(await user('dave'));
    await expect(subscribed(js.channel('room_r11', { config: { private: true } }))).rejects.toThrow(/CHANNEL_ERROR.*You do not have permissions to read/);
  }, T);

  it('refuses a socket whose JWT apikey is expired or badly signed (401 at the handshake)', async () => {
    const cases: Array<[string, string]> = [
      [await sign({ role: 'anon', exp: Math.floor(Date.now() / 1000) - 5 }), 'Token has expired'],
      [await sign({ role: 'anon' }, { secret: 'not-the-secret-not-the-secret-not-the' }), 'Failed to validate JWT signature'],
    ];
    for (const [key, error] of cases) {
      const ws = new WebSocket(`${stack.realtime.url}/websocket?apikey=${key}&vsn=1.0.0`);
      ws.on('error', () => {});
      const [, res] = (await once(ws, 'unexpected-response')) as [unknown, import('node:http').IncomingMessage];
      expect(res.statusCode).toBe(401);
      const body = JSON.parse((await res.toArray()).join(''));
      expect(body).toEqual({ error });
      ws.terminate();
    }
  }, T);

  it("handles a socket's messages in order while its join waits on the database, heartbeats at once", async () => {
    const raw = await RawClient.open('1.0.0');
    raw.push('realtime:slow', 'phx_join', privateJoin(await user('zed'), { key: '', enabled: false }, { self: true, ack: true }), '1', '1');
    raw.push('realtime:slow', 'broadcast', { type: 'broadcast', event: 'first', payload: {} }, '2', '1');
    raw.push('phoenix', 'heartbeat', {}, 'hb');
    await raw.waitFor(isReply('2'), 'broadcast ack');
    const index = (pred: (m: Msg) => boolean) => raw.messages.findIndex(pred);
    expect(raw.messages.find(isReply('1'))?.payload.status).toBe('ok');
    expect(index(isReply('hb'))).toBeLessThan(index(isReply('1'))); // the heartbeat did not wait ~0.8 s
    expect(index(isReply('1'))).toBeLessThan(index(broadcastOf('first')));
    expect(index(broadcastOf('first'))).toBeLessThan(index(isReply('2')));
  }, T);
});

// ---- broadcast, presence and database messages -----------------------------------
describe('local realtime authorization: write and read policies', () => {
  it('drops the broadcasts of a reader without write (no delivery, no ack), delivers a writer\'s', async () => {
    const alice = await RawClient.open('1.0.0');
    expect((await alice.join('room_w', privateJoin(await user('alice'), undefined, { self: true, ack: true }))).status).toBe('ok');
    const carol = await RawClient.open('2.0.0');
    expect((await carol.join('room_w', privateJoin(await user('carol'), undefined, { self: true, ack: true }))).status).toBe('ok');
    const js = jsClient();
    await js.setAuth(await user('bob'));
    const got: string[] = [];
    await subscribed(js.channel('room_w', { config: { private: true } }).on('broadcast', { event: '*' }, (m) => got.push(m.event as string)));

    carol.push('realtime:room_w', 'broadcast', { type: 'broadcast', event: 'from_carol', payload: {} }, 'c1', '1');
    carol.push('realtime:room_w', 'broadcast', { type: 'broadcast', event: 'from_carol', payload: {} }, 'c2', '1'); // cached decision
    alice.push('realtime:room_w', 'broadcast', { type: 'broadcast', event: 'from_alice', payload: { ok: true } }, 'a1', '1');
    expect((await alice.waitFor(isReply('a1'), 'ack to alice')).payload.status).toBe('ok');
    await carol.waitFor(broadcastOf('from_alice'), 'alice -> carol');
    await waitUntil(() => got.includes('from_alice'), 'alice -> bob (realtime-js)');
    await sleep(300);
    for (const c of [alice, carol]) expect(c.messages.filter(broadcastOf('from_carol'))).toHaveLength(0);
    expect(got).not.toContain('from_carol');
    expect(carol.messages.some((m) => m.ref === 'c1' || m.ref === 'c2')).toBe(false);

    // A realtime-js sender with write (binary user broadcast frames).
    const chBob = js.getChannels()[0]!;
    await chBob.send({ type: 'broadcast', event: 'from_bob', payload: { n: 1 } });
    await carol.waitFor((m) => m.event === '<binary>', 'bob -> carol (V2 binary)');
    await alice.waitFor(broadcastOf('from_bob'), 'bob -> alice (V1 JSON)');
  }, T);

  it('refuses a presence track without write (error reply, nobody sees it); a writer\'s track is seen', async () => {
    const alice = await RawClient.open('1.0.0');
    expect((await alice.join('room_p', privateJoin(await user('alice'), { key: 'alice', enabled: true }))).status).toBe('ok');
    await alice.waitFor((m) => m.event === 'presence_state');
    const carol = await RawClient.open('1.0.0');
    expect((await carol.join('room_p', privateJoin(await user('carol'), { key: 'carol', enabled: false }))).status).toBe('ok');

    carol.push('realtime:room_p', 'presence', { type: 'presence', event: 'track', payload: { name: 'Carol' } }, 't1', '1');
    expect((await carol.waitFor(isReply('t1'))).payload).toEqual({ status: 'error', response: {} });
    alice.push('realtime:room_p', 'presence', { type: 'presence', event: 'track', payload: { name: 'Alice' } }, 't2', '1');
    expect((await alice.waitFor(isReply('t2'))).payload).toEqual({ status: 'ok', response: {} });
    // carol reads presence: she gets alice's join (her presence read was evaluated by her track).
    const diff = await carol.waitFor((m) => m.event === 'presence_diff' && !!m.payload.joins.alice, 'alice join on carol');
    expect(diff.payload.joins.alice.metas[0]).toMatchObject({ name: 'Alice' });
    await sleep(200);
    expect(alice.messages.some((m) => m.event === 'presence_diff' && !!m.payload.joins.carol)).toBe(false);

    // realtime-js: track() resolves 'error' without write.
    const js = jsClient();
    await js.setAuth(await user('carol'));
    const ch = js.channel('room_p', { config: { private: true, presence: { key: 'carol-js' } } });
    await subscribed(ch);
    expect(await ch.track({ name: 'Carol' })).toBe('error');
  }, T);

  it('delivers private realtime.send rows only to subscribers with broadcast read', async () => {
    const alice = await RawClient.open('1.0.0');
    expect((await alice.join('room_s', privateJoin(await user('alice')))).status).toBe('ok');
    // paula may read presence, not broadcasts: joined, but no broadcast.
    const paula = await RawClient.open('1.0.0');
    expect((await paula.join('room_s', privateJoin(await user('paula'), { key: 'paula', enabled: true }))).status).toBe('ok');
    await paula.waitFor((m) => m.event === 'presence_state', 'presence_state for a presence reader');
    const pub = await RawClient.open('1.0.0');
    expect((await pub.join('room_s', { config: { private: false } })).status).toBe('ok');

    await stack.admin.query(`select realtime.send('{"secret": 1}'::jsonb, 'secret', 'room_s', true)`);
    await stack.admin.query(`select realtime.send('{}'::jsonb, 'open', 'room_s', false)`);
    await alice.waitFor(broadcastOf('secret'));
    await pub.waitFor(broadcastOf('open'));
    await sleep(300);
    expect(paula.messages.filter((m) => m.event === 'broadcast')).toHaveLength(0);
    expect(pub.messages.filter(broadcastOf('secret'))).toHaveLength(0);
    expect(alice.messages.filter(broadcastOf('open'))).toHaveLength(0);
  }, T);
});

// ---- token lifetime -----------------------------------------------------------
describe('local realtime authorization: token lifetime', () => {
  it('closes a channel whose token expires: system message, then phx_close', async () => {
    const raw = await RawClient.open('2.0.0');
    expect((await raw.join('room_e', privateJoin(await user('alice', { expIn: 2 })))).status).toBe('ok');
    const system = await raw.waitFor((m) => m.event === 'system', 'system message', 8_000);
    expect(system).toMatchObject({ join_ref: '1', ref: null, topic: 'realtime:room_e' });
    expect(system.payload).toEqual({ extension: 'system', status: 'error', message: expect.stringMatching(/^Token has expired \d+ seconds ago$/), channel: 'room_e' });
    const close = await raw.waitFor((m) => m.event === 'phx_close', 'phx_close');
    expect(close).toMatchObject({ join_ref: '1', ref: '1', topic: 'realtime:room_e', payload: {} });
    expect(raw.messages.indexOf(system)).toBeLessThan(raw.messages.indexOf(close));
    // The channel is gone.
    raw.push('realtime:room_e', 'broadcast', { type: 'broadcast', event: 'x', payload: {} }, 'after', '1');
    expect((await raw.waitFor(isReply('after'))).payload.response).toEqual({ reason: 'unmatched topic' });
  }, T);

  it('keeps the channel open past the first expiry when access_token brings a fresh token', async () => {
    const raw = await RawClient.open('1.0.0');
    expect((await raw.join('room_f', privateJoin(await user('alice', { expIn: 2 })))).status).toBe('ok');
    raw.push('realtime:room_f', 'access_token', { access_token: await user('alice') }, '2', '1');
    raw.push('realtime:room_f', 'access_token', { access_token: null }, '3', '1'); // ignored
    await sleep(3_500);
    expect(raw.messages.some((m) => m.event === 'system' || m.event === 'phx_close' || m.ref === '2' || m.ref === '3')).toBe(false);
    await stack.admin.query(`select realtime.send('{}'::jsonb, 'still_here', 'room_f', true)`);
    await raw.waitFor(broadcastOf('still_here'));
  }, T);

  it('closes the channel when a renewed token may no longer read', async () => {
    try {
      const bob = await RawClient.open('1.0.0');
      expect((await bob.join('room_l', privateJoin(await user('bob')))).status).toBe('ok');
      const rita = await RawClient.open('1.0.0');
      expect((await rita.join('room_v', privateJoin(await user('rita'), { key: 'rita', enabled: true }))).status).toBe('ok');

      await stack.admin.query(`delete from public.rt_readers where sub = 'bob'`);
      await stack.admin.query(`update public.rt_readers set can_broadcast = false where sub = 'rita'`);
      bob.push('realtime:room_l', 'access_token', { access_token: await user('bob') }, '2', '1');
      rita.push('realtime:room_v', 'access_token', { access_token: await user('rita') }, '2', '1');

      const lost = await bob.waitFor((m) => m.event === 'system', 'system on bob');
      expect(lost.payload).toEqual({ extension: 'system', status: 'error', message: 'You do not have permissions to read from this Channel topic: room_l', channel: 'room_l' });
      await bob.waitFor((m) => m.event === 'phx_close', 'phx_close on bob');
      // Still reads presence but no longer broadcasts: revoked.
      const revoked = await rita.waitFor((m) => m.event === 'system', 'system on rita');
      expect(revoked.payload.message).toBe('You no longer have permission to read from this Channel topic: room_v');
      await rita.waitFor((m) => m.event === 'phx_close', 'phx_close on rita');

      // A malformed renewal closes a public channel too.
      const pub = await RawClient.open('1.0.0');
      expect((await pub.join('public_t', { config: {} })).status).toBe('ok');
      pub.push('realtime:public_t', 'access_token', { access_token: 'not.a.jwt' }, '2', '1');
      expect((await pub.waitFor((m) => m.event === 'system')).payload.message).toBe('The token provided is not a valid JWT');
      await pub.waitFor((m) => m.event === 'phx_close');
    } finally {
      await stack.admin.query(`insert into public.rt_readers values ('bob', true, true) on conflict do nothing`);
      await stack.admin.query(`update public.rt_readers set can_broadcast = true where sub = 'rita'`);
    }
  }, T);
});

// ---- the project's JWT signing keys (jwt_jwks) ----------------------------------
// Supabase Realtime checks a token with a kid and an RS*, ES* or EdDSA alg against the
// project's JWKS (its JWT signing keys, public parts): what Manette signs with
// MANETTE_REALTIME_JWT_PRIVATE_KEY (RS256, ES256), and more that Manette does not sign.
describe('local realtime authorization: the project\'s JWT signing keys (jwt_jwks)', () => {
  let keyed: LocalRealtime;
  const keys: Record<string, JWK> = {};
  /** The public part, as a JWKS lists it. */
  const pub = ({ d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...rest }: JWK) => rest;
  /** A token signed by `jwk` with `alg` and `kid` (the key's own unless given; none if null). */
  async function signWith(jwk: JWK, alg: string, claims: Record<string, unknown>, kid?: string | null): Promise<string> {
    const header = { alg, typ: 'JWT', ...(kid === null ? {} : { kid: kid ?? jwk.kid }) };
    return new SignJWT({ exp: Math.floor(Date.now() / 1000) + 600, ...claims }).setProtectedHeader(header).sign(await importJWK(jwk, alg));
  }
  beforeAll(async () => {
    for (const [name, alg] of [['rs256', 'RS256'], ['es256', 'ES256'], ['es384', 'ES384'], ['ed25519', 'EdDSA']] as const) {
      keys[name] = { ...(await exportJWK((await generateKeyPair(alg, { extractable: true })).privateKey)), kid: `k-${name}` };
    }
    keyed = await startLocalRealtime({
      port: 0, databaseUrl: db.adminUrl, jwtSecret: JWT_SECRET, jwtJwks: { keys: Object.values(keys).map(pub) },
      authorize: (key) => key === API_KEY, log: () => {},
    });
  });
  afterAll(async () => { await keyed?.close(); });

  it('Manette\'s signers (the HS256 secret, RS256 and ES256 keys) get private joins and the broadcast endpoint', async () => {
    const signers = {
      HS256: await createRealtimeSigner({ secret: JWT_SECRET }),
      RS256: await createRealtimeSigner({ privateJwk: { ...keys.rs256!, alg: 'RS256' } }),
      ES256: await createRealtimeSigner({ privateJwk: keys.es256! }),
    };
    for (const [alg, signer] of Object.entries(signers)) {
      const { token } = await signer.playerToken({ playerId: 'alice', gameId: 'g', notAfter: Math.floor(Date.now() / 1000) + 600 });
      const raw = await RawClient.open('1.0.0', keyed);
      expect(await raw.join('room_k', privateJoin(token)), alg).toEqual({ status: 'ok', response: { postgres_changes: [] } });
      // realtime-js, the way a game's page subscribes.
      const js = new RealtimeClient(keyed.url, { params: { apikey: API_KEY }, transport: WebSocket as unknown as RealtimeClientOptions['transport'], timeout: 5_000 });
      jsClients.push(js);
      await js.setAuth(token);
      await subscribed(js.channel(`room_k_${alg}`, { config: { private: true } }));
      const res = await fetch(`${keyed.url.replace(/^ws/, 'http')}/api/broadcast`, {
        method: 'POST', headers: { Authorization: `Bearer ${await signer.serviceKey()}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ messages: [{ topic: 'room_k', event: 'hello', payload: {} }] }),
      });
      expect(res.status, alg).toBe(202);
    }
  }, T);

  it('verifies what Realtime verifies with a JWKS, and refuses what it refuses, with its reasons', async () => {
    const alice = { role: 'authenticated', sub: 'alice' };
    const otherRsa = { ...(await exportJWK((await generateKeyPair('RS256', { extractable: true })).privateKey)), kid: 'k-rs256' };
    const signerError = (kid?: string) => `JwtSignerError: Failed to generate JWT signer${kid === undefined ? '' : ` for key ID (kid) "${kid}"`}, check your JWT secret or JWKS configuration`;
    const cases: Array<[string, LocalRealtime, string, string | undefined]> = [
      ['ES384 by its kid', keyed, await signWith(keys.es384!, 'ES384', alice), undefined],
      ['EdDSA by its kid', keyed, await signWith(keys.ed25519!, 'EdDSA', alice), undefined],
      ['Ed25519 (the curve as alg) by its kid', keyed, await signWith(keys.ed25519!, 'Ed25519', alice), undefined],
      ['HS256 with a kid the JWKS lacks: the secret', keyed, await new SignJWT({ ...alice, exp: Math.floor(Date.now() / 1000) + 600 })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: 'legacy' }).sign(new TextEncoder().encode(JWT_SECRET)), undefined],
      ['RS256 with a kid the JWKS lacks', keyed, await signWith(keys.rs256!, 'RS256', alice, 'nope'), signerError('nope')],
      ['RS256 with the kid of an EC key', keyed, await signWith(keys.rs256!, 'RS256', alice, 'k-es256'), signerError('k-es256')],
      ['RS256 without a kid', keyed, await signWith(keys.rs256!, 'RS256', alice, null), signerError()],
      ['RS256 by another key under its kid', keyed, await signWith(otherRsa, 'RS256', alice), 'JwtSignatureError: Failed to validate JWT signature'],
      ['PS256, no signer for it', keyed, await signWith(keys.rs256!, 'PS256', alice), signerError()],
      ['ES256 on a project without a JWKS', stack.realtime, await signWith(keys.es256!, 'ES256', alice), signerError()],
    ];
    for (const [i, [what, realtime, token, reason]] of cases.entries()) {
      const raw = await RawClient.open('1.0.0', realtime);
      const reply = await raw.join(`room_j${i}`, privateJoin(token), `j${i}`);
      expect(reply, what).toEqual(reason === undefined ? { status: 'ok', response: { postgres_changes: [] } } : { status: 'error', response: { reason } });
    }
    // The handshake of a socket whose apikey is such a token (UserSocket.error_response).
    const ws = new WebSocket(`${keyed.url}/websocket?apikey=${await signWith(keys.rs256!, 'RS256', { role: 'anon' }, 'nope')}&vsn=1.0.0`);
    ws.on('error', () => {});
    const [, res] = (await once(ws, 'unexpected-response')) as [unknown, import('node:http').IncomingMessage];
    expect(res.statusCode).toBe(401);
    expect(JSON.parse((await res.toArray()).join(''))).toEqual({ error: signerError('nope').replace('JwtSignerError: ', '') });
    ws.terminate();
  }, T);
});

// ---- HTTP broadcast endpoint --------------------------------------------------
describe('local realtime authorization: POST /realtime/v1/api/broadcast', () => {
  const endpoint = () => `${stack.realtime.url.replace(/^ws/, 'http')}/api/broadcast`;
  const post = (headers: Record<string, string>, body: unknown) =>
    fetch(endpoint(), { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const one = (topic: string, event: string, extra: object = {}) => ({ messages: [{ topic, event, payload: { via: 'http' }, ...extra }] });

  it('accepts only a service_role token', async () => {
    const pub = await RawClient.open('1.0.0');
    expect((await pub.join('room_h', { config: {} })).status).toBe('ok');
    const priv = await RawClient.open('1.0.0');
    expect((await priv.join('room_h', privateJoin(await user('alice')))).status).toBe('ok');

    const refused: Array<[Record<string, string>, number]> = [
      [{}, 401],
      [{ apikey: API_KEY }, 401],
      [{ Authorization: `Bearer ${API_KEY}` }, 401],
      [{ Authorization: `Bearer ${await sign({ role: 'service_role' }, { secret: 'wrong-secret-wrong-secret-wrong-secret' })}` }, 401],
      [{ apikey: await sign({ role: 'service_role', exp: Math.floor(Date.now() / 1000) - 1 }) }, 401],
      [{ Authorization: `Bearer ${await user('alice')}` }, 403],
      [{ apikey: await sign({ role: 'anon' }) }, 403],
    ];
    for (const [headers, status] of refused) {
      const res = await post(headers, one('room_h', 'nope'));
      expect(res.status, JSON.stringify(headers)).toBe(status);
      expect(await res.json()).toEqual({ error: expect.any(String) });
    }
    const service = await sign({ role: 'service_role' });
    expect((await post({ Authorization: `Bearer ${service}` }, one('room_h', 'public_msg'))).status).toBe(202);
    expect((await post({ apikey: service }, one('room_h', 'private_msg', { private: true }))).status).toBe(202);
    await pub.waitFor(broadcastOf('public_msg'));
    await priv.waitFor(broadcastOf('private_msg'));
    await sleep(200);
    expect(pub.messages.filter(broadcastOf('nope'))).toHaveLength(0);
    expect(pub.messages.filter(broadcastOf('private_msg'))).toHaveLength(0);
    expect(priv.messages.filter(broadcastOf('public_msg'))).toHaveLength(0);
  }, T);

  it('refuses an oversized body at once (413), an oversized payload (422), a batch over the events limit (429)', async () => {
    const service = await sign({ role: 'service_role' });
    // Announces 6 MB, sends 1 KB, and gets its answer without sending the rest.
    const status413 = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(endpoint(), {
        method: 'POST', headers: { Authorization: `Bearer ${service}`, 'Content-Type': 'application/json', 'Content-Length': String(6_000_000) },
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      });
      req.on('error', reject);
      req.write('x'.repeat(1024));
      setTimeout(() => reject(new Error('no answer before the body was sent')), 5_000).unref();
    });
    expect(status413.status).toBe(413);
    expect(JSON.parse(status413.body)).toEqual({ error: expect.any(String) });

    // The Free plan's 256 KB: the changeset's error on that message (one entry per message).
    const big = { messages: [{ topic: 'room_h', event: 'small', payload: {} }, { topic: 'room_h', event: 'big', payload: { s: 'x'.repeat(300_000) } }] };
    const res422 = await post({ apikey: service }, big);
    expect(res422.status).toBe(422);
    expect(await res422.json()).toEqual({ errors: { messages: [{}, { payload: ['Payload size exceeds tenant limit'] }] } });

    // BatchBroadcast.check_rate_limit: a batch that would take the events average over the
    // limit is refused whole (the quota tests drive the average itself over it).
    const batch = (n: number) => ({ messages: Array.from({ length: n }, (_, i) => ({ topic: 'room_rate', event: 'e', payload: { i } })) });
    const res429 = await post({ apikey: service }, batch(MAX_EVENTS_PER_SECOND + 1));
    expect(res429.status).toBe(429);
    expect(await res429.json()).toEqual({ message: 'Too many messages to broadcast, please reduce the batch size' });
    expect((await post({ apikey: service }, batch(20))).status).toBe(202);
  }, T);
});

// ---- messages committed while the replication connection is down ------------------------
describe('local realtime: messages committed while its replication connection is down', () => {
  let pdb: Db | undefined;
  let proxy: Server | undefined;
  let proxyPort = 0;
  let open = true;
  const sockets = new Set<Socket>();
  beforeAll(async () => {
    pdb = await startDb(true);
    // The stand-in reaches the database through a TCP relay that can refuse new connections,
    // so that rows are surely committed while it cannot reconnect.
    proxy = createServer((down) => {
      if (!open) return void down.destroy();
      const up = netConnect(pdb!.port, '127.0.0.1');
      for (const s of [down, up]) { sockets.add(s); s.on('close', () => sockets.delete(s)); s.on('error', () => { down.destroy(); up.destroy(); }); }
      down.pipe(up);
      up.pipe(down);
    }).listen(0, '127.0.0.1');
    await once(proxy, 'listening');
    proxyPort = (proxy.address() as { port: number }).port;
  }, 120_000);
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    proxy?.close();
    await pdb?.stop();
    if (pdb) await rm(pdb.dir, { recursive: true, force: true });
  }, 60_000);

  /** A stand-in through the relay, a realtime-js and a raw subscriber of `topic`, and a sender. */
  async function setUp(delivery: Delivery, topic: string) {
    const logs: string[] = [];
    const rt = await startLocalRealtime({
      port: 0, databaseUrl: pdb!.adminUrl.replace(`:${pdb!.port}/`, `:${proxyPort}/`), jwtSecret: JWT_SECRET,
      authorize: (key) => key === API_KEY, log: (_level, msg) => logs.push(msg), delivery,
    });
    const js = new RealtimeClient(rt.url, { params: { apikey: API_KEY }, transport: WebSocket as unknown as RealtimeClientOptions['transport'], timeout: 5_000 });
    jsClients.push(js);
    const got: number[] = [];
    await subscribed(js.channel(topic).on('broadcast', { event: 'n' }, (m) => got.push(m.payload.i)));
    const raw = await RawClient.open('1.0.0', rt);
    expect((await raw.join(topic, { config: { private: false } })).status).toBe('ok');
    const rawGot = () => raw.messages.filter(broadcastOf('n')).map((m) => m.payload.payload.i as number);
    /** Rows from..to-1 in one transaction, then `to` alone (autocommit), as the project's `postgres`. */
    const send = async (from: number, to: number) => {
      const c = new pg.Client({ connectionString: pdb!.databaseUrl });
      await c.connect();
      try {
        await c.query('begin');
        for (let i = from; i < to; i++) await c.query(`select realtime.send(jsonb_build_object('i', $1::int), 'n', $2, false)`, [i, topic]);
        await c.query('commit');
        await c.query(`select realtime.send(jsonb_build_object('i', $1::int), 'n', $2, false)`, [to, topic]);
      } finally {
        await c.end();
      }
    };
    const reconnected = () => logs.filter((m) => m.includes('replication connection re-established')).length;
    /** The database restarts; while the stand-in cannot reconnect, `during` runs; then it may. */
    const outage = async (during: () => Promise<void>) => {
      const before = reconnected();
      open = false;
      await pdb!.restart();
      await during();
      open = true;
      await waitUntil(() => reconnected() > before, 'the replication connection back', 20_000);
    };
    return { rt, logs, got, rawGot, send, outage, reconnected };
  }

  it('hosted (default): they are never delivered, and delivery resumes after the reconnection', async () => {
    const { rt, got, rawGot, send, outage } = await setUp('hosted', 'lost');
    try {
      await send(0, 2); // 0, 1, 2 while connected
      await waitUntil(() => got.length === 3 && rawGot().length === 3, 'first rows');
      await outage(async () => {
        await send(3, 9); // 3..8 in one transaction, then 9: committed while it is disconnected
        // Meanwhile a private join cannot be authorized either.
        const raw = await RawClient.open('1.0.0', rt);
        expect(await raw.join('room_down', privateJoin(await user('alice')), 'down'))
          .toEqual({ status: 'error', response: { reason: 'UnableToConnectToProject: Realtime was unable to connect to the project database' } });
      });
      // Delivery is in commit order: once row 10 (committed after the reconnection) is here,
      // the rows of the outage would have been before it.
      await send(10, 10);
      await waitUntil(() => got.includes(10) && rawGot().includes(10), 'row 10, after the reconnection');
      expect(got).toEqual([0, 1, 2, 10]);
      expect(rawGot()).toEqual([0, 1, 2, 10]);
    } finally {
      await rt.close();
    }
  }, 90_000);

  it('catch-up (MANETTE_REALTIME_DELIVERY=catch-up, kinder than Supabase): delivered after the reconnection, each once, in order', async () => {
    const { rt, logs, got, rawGot, send, outage, reconnected } = await setUp('catch-up', 'caught');
    const expected = (n: number) => Array.from({ length: n }, (_, i) => i);
    try {
      // A permanent slot, not a temporary one.
      const admin = new pg.Client({ connectionString: pdb!.adminUrl });
      await admin.connect();
      const slots = async () => (await admin.query(`select temporary from pg_replication_slots
        where database = current_database() and slot_name like 'supabase_realtime_messages_replication_slot_%'`)).rows;
      expect(await slots()).toEqual([{ temporary: false }]);
      await admin.end();

      await send(0, 2);
      await waitUntil(() => got.length === 3 && rawGot().length === 3, 'first rows');
      await outage(() => send(3, 9));
      await waitUntil(() => got.length === 10 && rawGot().length === 10, 'rows committed during the outage', 15_000);

      // Its connection killed: what was already delivered is not delivered again.
      const killer = new pg.Client({ connectionString: pdb!.adminUrl });
      await killer.connect();
      const seen = reconnected();
      await killer.query(`select pg_terminate_backend(pid) from pg_stat_activity
        where application_name = 'realtime_replication_connection' and datname = current_database()`);
      await killer.end();
      await waitUntil(() => reconnected() > seen, 'reconnect', 10_000);
      await send(10, 11);
      await waitUntil(() => got.length === 12 && rawGot().length === 12, 'rows 10 and 11');
      expect(got).toEqual(expected(12));
      expect(rawGot()).toEqual(expected(12));
      expect(logs.some((m) => m.includes('catch-up'))).toBe(true);
    } finally {
      await rt.close();
    }
    // close() drops the permanent slot: it would keep WAL forever.
    const admin = new pg.Client({ connectionString: pdb!.adminUrl });
    await admin.connect();
    expect((await admin.query(`select 1 from pg_replication_slots where slot_name like 'supabase_realtime_messages_replication_slot_%'`)).rows).toEqual([]);
    await admin.end();
  }, 90_000);
});
