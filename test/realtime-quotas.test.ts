// The project quotas of the local Realtime (twin/realtime/quotas.ts) and its private-only
// channels, as hosted Supabase Realtime enforces them, against real parts: a twin of a
// hosted database, the stand-in over real WebSockets and HTTP, raw clients and the
// unmodified @supabase/realtime-js. Each test has a stand-in of its own with small limits
// (the rate counters are the project's, and stay triggered for a while). The counters tick
// every 5 s as Realtime's do, so the rate tests wait for a tick: they wait for what happens,
// never for a time.
import { once } from 'node:events';
import pg from 'pg';
import WebSocket from 'ws';
import { SignJWT } from 'jose';
import { RealtimeClient, type RealtimeChannel, type RealtimeClientOptions } from '@supabase/realtime-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startLocalRealtime, type LocalRealtime } from '../twin/realtime/server.js';
import { PLANS, quotasFrom, type Quotas } from '../twin/realtime/quotas.js';
import type { PrivateOnly } from '../twin/realtime/hub.js';
import { readSettings } from '../api/config/settings.js';
import { startBlankTwin, type BlankTwin } from './support/blank-twin.js';
import { waitUntil as waitFor } from './support/wait.js';
const waitUntil = <V>(fn: () => V | undefined | false | Promise<V | undefined | false>, what = 'condition', timeoutMs = 20_000) =>
  waitFor(fn, what, timeoutMs, 50);

const API_KEY = 'quota-test-key';
const JWT_SECRET = 'quota-test-secret-of-at-least-thirty-two-characters';
const T = 60_000;

let twin: BlankTwin;
let db: pg.Client;
beforeAll(async () => {
  twin = await startBlankTwin();
  db = new pg.Client({ connectionString: twin.databaseUrl }); // `postgres`, as the project's own SQL
  await db.connect();
}, 120_000);
afterAll(async () => {
  await db?.end();
  await twin?.stop();
}, 60_000);

interface Stand { rt: LocalRealtime; logs: string[] }
const stands: LocalRealtime[] = [];
async function stand(quotas: Partial<Quotas> = {}, privateOnly?: PrivateOnly): Promise<Stand> {
  const logs: string[] = [];
  const rt = await startLocalRealtime({
    port: 0, databaseUrl: twin.adminUrl, jwtSecret: JWT_SECRET, authorize: (k) => k === API_KEY,
    log: (level, msg) => logs.push(`${level}: ${msg}`), quotas: { ...PLANS.free, ...quotas }, privateOnly,
  });
  stands.push(rt);
  return { rt, logs };
}


type Msg = { topic?: string; event?: string; payload?: any; ref?: unknown };
const raws: RawClient[] = [];
class RawClient {
  readonly messages: Msg[] = [];
  closed = false;
  private n = 0;
  private constructor(readonly ws: WebSocket) {}
  static async open(s: Stand): Promise<RawClient> {
    const ws = new WebSocket(`${s.rt.url}/websocket?apikey=${API_KEY}&vsn=1.0.0`);
    const c = new RawClient(ws);
    ws.on('message', (d: Buffer) => c.messages.push(JSON.parse(d.toString())));
    ws.on('close', () => { c.closed = true; });
    raws.push(c);
    await once(ws, 'open');
    return c;
  }
  push(topic: string, event: string, payload: unknown, ref: string): void {
    this.ws.send(JSON.stringify({ topic: `realtime:${topic}`, event, payload, ref, join_ref: '1' }));
  }
  waitFor(pred: (m: Msg) => boolean, what: string): Promise<Msg> {
    return waitUntil(() => this.messages.find(pred), what);
  }
  async join(topic: string, config: object = {}, extra: object = {}): Promise<{ status: string; response: any }> {
    const ref = `j${++this.n}`;
    this.push(topic, 'phx_join', { config, ...extra }, ref);
    return (await this.waitFor((m) => m.event === 'phx_reply' && m.ref === ref, `join ${topic}`)).payload;
  }
}
const handshake = async (s: Stand): Promise<{ status: number; body: unknown }> => {
  const ws = new WebSocket(`${s.rt.url}/websocket?apikey=${API_KEY}&vsn=1.0.0`);
  ws.on('error', () => {});
  const opened = once(ws, 'open').then(() => ({ status: 101, body: null }));
  const refused = once(ws, 'unexpected-response').then(async ([, res]) => {
    const r = res as import('node:http').IncomingMessage;
    return { status: r.statusCode ?? 0, body: JSON.parse((await r.toArray()).join('')) };
  });
  const out = await Promise.race([opened, refused]);
  ws.terminate();
  return out;
};
const jsClients: RealtimeClient[] = [];
function subscribe(s: Stand, topic: string, config: Record<string, unknown> = {}): Promise<RealtimeChannel> {
  const c = new RealtimeClient(s.rt.url, { params: { apikey: API_KEY }, transport: WebSocket as unknown as RealtimeClientOptions['transport'], timeout: 5_000 });
  jsClients.push(c);
  const ch = c.channel(topic, { config });
  return new Promise((resolve, reject) => ch.subscribe((status, err) => {
    if (status === 'SUBSCRIBED') resolve(ch);
    else if (status !== 'CLOSED') { void c.removeChannel(ch); reject(new Error(`${status} ${err?.message ?? ''}`)); }
  }));
}

afterEach(async () => {
  for (const c of raws.splice(0)) c.ws.terminate();
  await Promise.all(jsClients.splice(0).map(async (c) => { await c.removeAllChannels(); c.disconnect(); }));
  for (const rt of stands.splice(0)) await rt.close();
});

describe('plans', () => {
  it('MANETTE_REALTIME_PLAN picks Supabase\'s limits by plan (Free by default); each MANETTE_REALTIME_MAX_* replaces one', () => {
    const q = (env: Record<string, string>) => quotasFrom(readSettings(env));
    expect(q({})).toEqual({ maxConnections: 200, maxEventsPerSecond: 100, maxJoinsPerSecond: 100, maxChannelsPerConnection: 100, maxPresenceEventsPerSecond: 20, maxPayloadKb: 256 });
    expect(q({ MANETTE_REALTIME_PLAN: 'pro' })).toEqual({ maxConnections: 500, maxEventsPerSecond: 500, maxJoinsPerSecond: 500, maxChannelsPerConnection: 100, maxPresenceEventsPerSecond: 50, maxPayloadKb: 3000 });
    expect(q({ MANETTE_REALTIME_PLAN: 'pro-no-cap', MANETTE_REALTIME_MAX_EVENTS_PER_SECOND: '4000', MANETTE_REALTIME_MAX_PAYLOAD_KB: '10' }))
      .toEqual({ maxConnections: 10_000, maxEventsPerSecond: 4000, maxJoinsPerSecond: 2500, maxChannelsPerConnection: 100, maxPresenceEventsPerSecond: 1000, maxPayloadKb: 10 });
    expect(() => readSettings({ MANETTE_REALTIME_PLAN: 'team' })).toThrow(/MANETTE_REALTIME_PLAN/);
    expect(() => readSettings({ MANETTE_REALTIME_MAX_CONNECTIONS: '0' })).toThrow(/MANETTE_REALTIME_MAX_CONNECTIONS/);
    expect(() => readSettings({ MANETTE_REALTIME_PRIVATE_ONLY: 'yes' })).toThrow(/MANETTE_REALTIME_PRIVATE_ONLY/);
  });
});

describe('private-only channels', () => {
  const PRIVATE_ONLY = 'PrivateOnly: This project only allows private channels';

  it('by default a public join of a Manette topic gets Realtime\'s private-only error; other topics stay public', async () => {
    const s = await stand();
    const raw = await RawClient.open(s);
    expect(await raw.join('manette_partie_123', { private: false })).toEqual({ status: 'error', response: { reason: PRIVATE_ONLY } });
    expect(await raw.join('manette_joueur_123', {})).toEqual({ status: 'error', response: { reason: PRIVATE_ONLY } }); // private defaults to false
    expect((await raw.join('salon', { private: false })).status).toBe('ok');
    // A private join of the same topic goes on to the authorization (no policy lets anyone read here).
    const token = await new SignJWT({ role: 'authenticated', sub: 'x', exp: Math.floor(Date.now() / 1000) + 600 })
      .setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(JWT_SECRET));
    expect((await raw.join('manette_partie_123', { private: true }, { access_token: token })).response.reason)
      .toBe('Unauthorized: You do not have permissions to read from this Channel topic: manette_partie_123');
    expect(s.logs.some((l) => l.includes('MANETTE_REALTIME_PRIVATE_ONLY=off'))).toBe(true);
    // realtime-js: CHANNEL_ERROR with the reason.
    await expect(subscribe(s, 'manette_partie_9')).rejects.toThrow(/CHANNEL_ERROR PrivateOnly: This project only allows private channels/);
  }, T);

  it('`all` refuses every public join, as a project set to private channels only; `off` allows them', async () => {
    const all = await stand({}, 'all');
    expect(await (await RawClient.open(all)).join('salon', {})).toEqual({ status: 'error', response: { reason: PRIVATE_ONLY } });
    const off = await stand({}, 'off');
    expect((await (await RawClient.open(off)).join('manette_partie_123', { private: false })).status).toBe('ok');
  }, T);
});

describe('connections and channels', () => {
  it('concurrent connections: sockets that joined count; past the limit a join gets ConnectionRateLimitReached, a handshake 429', async () => {
    const s = await stand({ maxConnections: 2 });
    const a = await RawClient.open(s);
    expect((await a.join('c1')).status).toBe('ok');
    const idle = await RawClient.open(s); // connected, not counted until it joins
    const b = await RawClient.open(s);
    expect((await b.join('c1')).status).toBe('ok');
    expect(await idle.join('c1')).toEqual({ status: 'error', response: { reason: 'ConnectionRateLimitReached: Too many connected users' } });
    expect(await handshake(s)).toEqual({ status: 429, body: { error: 'Too many connected users' } });
    expect((await a.join('c2')).status).toBe('ok'); // already counted
    b.ws.close();
    await waitUntil(async () => (await handshake(s)).status === 101, 'a place freed by a closed socket');
    expect((await idle.join('c1')).status).toBe('ok');
  }, T);

  it('channels per connection: past the limit ChannelRateLimitReached, and a left channel frees its place', async () => {
    const s = await stand({ maxChannelsPerConnection: 2 });
    const raw = await RawClient.open(s);
    expect((await raw.join('k1')).status).toBe('ok');
    expect((await raw.join('k2')).status).toBe('ok');
    expect(await raw.join('k3')).toEqual({ status: 'error', response: { reason: 'ChannelRateLimitReached: Too many channels' } });
    raw.push('k1', 'phx_leave', {}, 'leave');
    await raw.waitFor((m) => m.event === 'phx_close' && m.topic === 'realtime:k1', 'k1 closed');
    expect((await raw.join('k3')).status).toBe('ok');
    expect(raw.closed).toBe(false);
  }, T);

  it('joins per second: once the average is over the limit a join gets ClientJoinRateLimitReached and the socket is closed; new sockets get 429', async () => {
    const s = await stand({ maxJoinsPerSecond: 1 });
    const raw = await RawClient.open(s);
    let n = 0;
    // 12 joins in the counter's first 5 s: an average of 1.2 per second at its next tick.
    for (; n < 12; n++) expect((await raw.join(`j${n}`)).status).toBe('ok');
    const refused = await waitUntil(async () => {
      const r = await raw.join(`j${++n}`);
      return r.status === 'error' ? r : undefined;
    }, 'a refused join');
    expect(refused.response).toEqual({ reason: 'ClientJoinRateLimitReached: Too many joins per second' });
    await waitUntil(() => raw.closed, 'the socket closed');
    expect(await handshake(s)).toEqual({ status: 429, body: { error: 'Too many joins per second' } });
    expect(s.logs.some((l) => l.includes('ClientJoinRateLimitReached'))).toBe(true);
  }, T);
});

describe('messages per second', () => {
  it('over the limit: database broadcasts dropped, HTTP broadcasts 429, a channel that still receives a message is shut down', async () => {
    const s = await stand({ maxEventsPerSecond: 1 });
    const sub = await RawClient.open(s);
    expect((await sub.join('ev', { private: false, broadcast: { self: false } })).status).toBe('ok');
    const sender = await RawClient.open(s);
    expect((await sender.join('ev', { private: false, broadcast: { self: false, ack: true } })).status).toBe('ok');
    const got = (event: string) => sub.messages.filter((m) => m.event === 'broadcast' && m.payload.event === event);
    // 8 database messages: each counts once, and once more per subscriber it reaches (16 events).
    for (let i = 0; i < 8; i++) await db.query(`select realtime.send(jsonb_build_object('i', ${i}), 'avant', 'ev', false)`);
    await waitUntil(() => got('avant').length === 8, 'the first messages');
    await waitUntil(() => s.logs.some((l) => l.includes('MessagePerSecondRateLimitReached: Too many messages per second')), 'the limit triggered at a tick');

    // A database message now is dropped (logged when it is read, and never sent).
    await db.query(`select realtime.send('{}'::jsonb, 'pendant', 'ev', false)`);
    await waitUntil(() => s.logs.some((l) => l.includes('UnableToBroadcastChanges: :too_many_requests')), 'the drop');
    expect(got('pendant')).toEqual([]);

    // The HTTP endpoint refuses on the average.
    const service = await new SignJWT({ role: 'service_role', exp: Math.floor(Date.now() / 1000) + 600 })
      .setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(JWT_SECRET));
    const res = await fetch(`${s.rt.url.replace(/^ws/, 'http')}/api/broadcast`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${service}` },
      body: JSON.stringify({ messages: [{ topic: 'ev', event: 'http', payload: {} }] }),
    });
    expect(res.status).toBe(429);
    expect(await res.json()).toEqual({ message: 'You have exceeded your rate limit' });

    // A client broadcast is still sent (and acknowledged); the channel it reaches is shut
    // down after it: a system error, then phx_close.
    sender.push('ev', 'broadcast', { type: 'broadcast', event: 'client', payload: {} }, 'b1');
    expect((await sender.waitFor((m) => m.ref === 'b1', 'ack')).payload.status).toBe('ok');
    const system = await sub.waitFor((m) => m.event === 'system', 'the system message');
    expect(system.payload).toEqual({ extension: 'system', status: 'error', message: 'Too many messages per second', channel: 'ev' });
    await sub.waitFor((m) => m.event === 'phx_close', 'phx_close');
    expect(sub.messages.findIndex((m) => m.event === 'broadcast' && m.payload.event === 'client'))
      .toBeLessThan(sub.messages.indexOf(system));
  }, T);
});

describe('presence', () => {
  it('a channel sending presence too often is shut down; over the project\'s presence rate, presence syncs and tracks shut channels down', async () => {
    const s = await stand({ maxPresenceEventsPerSecond: 1 });
    const raw = await RawClient.open(s);
    expect((await raw.join('p1', { presence: { key: 'a', enabled: true } })).status).toBe('ok');
    // 5 presence messages per channel per 30 s, as Realtime's default client limit.
    for (let i = 0; i < 5; i++) {
      raw.push('p1', 'presence', { type: 'presence', event: 'track', payload: { i } }, `t${i}`);
      expect((await raw.waitFor((m) => m.ref === `t${i}`, `track ${i}`)).payload.status).toBe('ok');
    }
    raw.push('p1', 'presence', { type: 'presence', event: 'track', payload: { i: 5 } }, 't5');
    const shut = await raw.waitFor((m) => m.event === 'system', 'shut down');
    expect(shut.payload).toEqual({ extension: 'system', status: 'error', message: 'Client presence rate limit exceeded', channel: 'p1' });
    await raw.waitFor((m) => m.event === 'phx_close' && m.topic === 'realtime:p1', 'phx_close');

    // More presence in this tick than 5 s × 1 per second; then a join with presence is shut down.
    for (let i = 2; i < 8; i++) expect((await raw.join(`p${i}`, { presence: { key: 'a', enabled: true } })).status).toBe('ok');
    const other = await RawClient.open(s);
    const closed = await waitUntil(async () => {
      const topic = `q${Math.random().toString(36).slice(2, 8)}`;
      expect((await other.join(topic, { presence: { key: 'b', enabled: true } })).status).toBe('ok');
      const sys = await other.waitFor((m) => (m.event === 'presence_state' || m.event === 'system') && m.topic === `realtime:${topic}`, 'sync or shutdown');
      return sys.event === 'system' ? sys : undefined;
    }, 'a presence sync over the limit');
    expect(closed.payload.message).toBe('Too many presence messages per second');
  }, T);
});

describe('payload size', () => {
  it('over max_payload_size_in_kb: a client broadcast is not sent (error ack), a database message dropped, a track shuts the channel', async () => {
    const s = await stand({ maxPayloadKb: 1 }); // 1,500 bytes with Realtime's padding
    const sub = await RawClient.open(s);
    expect((await sub.join('big', { presence: { key: 'x', enabled: true } })).status).toBe('ok');
    const sender = await RawClient.open(s);
    expect((await sender.join('big', { broadcast: { ack: true } })).status).toBe('ok');
    sender.push('big', 'broadcast', { type: 'broadcast', event: 'gros', payload: { s: 'x'.repeat(2000) } }, 'b1');
    expect((await sender.waitFor((m) => m.ref === 'b1', 'ack')).payload).toEqual({ status: 'error', response: 'payload_size_exceeded' });
    sender.push('big', 'broadcast', { type: 'broadcast', event: 'petit', payload: {} }, 'b2');
    await sub.waitFor((m) => m.event === 'broadcast' && m.payload.event === 'petit', 'the small one');

    await db.query(`select realtime.send(jsonb_build_object('s', repeat('x', 2000)), 'gros_db', 'big', false)`);
    await db.query(`select realtime.send('{}'::jsonb, 'petit_db', 'big', false)`);
    await sub.waitFor((m) => m.event === 'broadcast' && m.payload.event === 'petit_db', 'the small database message');
    // In commit order: the big one, before it, was dropped.
    expect(sub.messages.some((m) => m.event === 'broadcast' && /gros/.test(m.payload.event))).toBe(false);
    expect(s.logs.some((l) => l.includes('UnableToBroadcastChanges: :payload_size_exceeded'))).toBe(true);

    sub.push('big', 'presence', { type: 'presence', event: 'track', payload: { s: 'x'.repeat(2000) } }, 't1');
    expect((await sub.waitFor((m) => m.event === 'system', 'shut down')).payload.message).toBe('Track message size exceeded');
  }, T);
});
