// The local Realtime (twin/realtime) against real parts: a twin of a hosted Supabase
// database (twin/postgres), the unmodified @supabase/realtime-js, and raw `ws` clients
// speaking vsn 1.0.0 / 2.0.0 like a Godot or Unity client. Database messages are read by
// logical replication, as Supabase Realtime reads them.
import { once } from 'node:events';
import pg from 'pg';
import WebSocket from 'ws';
import { RealtimeClient, type RealtimeChannel, type RealtimeClientOptions } from '@supabase/realtime-js';
import { SignJWT } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startLocalRealtime, type LocalRealtime } from '../twin/realtime/server.js';
import { startBlankTwin } from './support/blank-twin.js';
import { sleep, waitUntil as waitFor } from './support/wait.js';
const waitUntil = <V>(fn: () => V | undefined | false | Promise<V | undefined | false>, what = 'condition', timeoutMs = 5_000) =>
  waitFor(fn, what, timeoutMs, 20);

// ---- setup ------------------------------------------------------------------
const API_KEY = 'local-test-key';
const JWT_SECRET = 'local-test-jwt-secret-with-at-least-32-characters';
/** A token signed with the stand-in's jwtSecret (HS256), valid for an hour unless exp is given. */
function sign(claims: Record<string, unknown>, secret = JWT_SECRET): Promise<string> {
  return new SignJWT({ exp: Math.floor(Date.now() / 1000) + 3600, ...claims })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode(secret));
}
interface Stack {
  databaseUrl: string; adminUrl: string; db: pg.Client; realtime: LocalRealtime; logs: Array<{ level: string; msg: string }>; stop(): Promise<void>;
}

async function startStack(): Promise<Stack> {
  const { databaseUrl, adminUrl, stop: stopPostgres } = await startBlankTwin();
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const logs: Stack['logs'] = [];
  // The stand-in connects as the twin's superuser, as hosted Realtime does.
  const realtime = await startLocalRealtime({
    port: 0, databaseUrl: adminUrl, jwtSecret: JWT_SECRET, authorize: (key) => key === API_KEY, log: (level, msg) => logs.push({ level, msg }),
  });
  return {
    databaseUrl, adminUrl, db, realtime, logs,
    async stop() {
      await realtime.close();
      await db.end();
      await stopPostgres();
    },
  };
}
// -----------------------------------------------------------------------------

let stack: Stack;
beforeAll(async () => { stack = await startStack(); }, 120_000);
afterAll(async () => { await stack?.stop(); }, 60_000);

const T = 20_000; // per-test timeout


// realtime-js clients ---------------------------------------------------------
const jsClients: RealtimeClient[] = [];
function jsClient(extra: Partial<RealtimeClientOptions> = {}): RealtimeClient {
  const client = new RealtimeClient(stack.realtime.url, {
    params: { apikey: API_KEY },
    transport: WebSocket as unknown as RealtimeClientOptions['transport'], // Node 20 has no global WebSocket
    timeout: 5_000,
    ...extra,
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

// raw clients -----------------------------------------------------------------
type Msg = { topic?: string; event?: string; payload?: any; ref?: unknown; join_ref?: unknown; binary?: UserBroadcastFrame };
interface UserBroadcastFrame { kind: number; topic: string; event: string; encoding: number; payload: unknown }
const rawClients: RawClient[] = [];

class RawClient {
  readonly messages: Msg[] = [];
  readonly frames: Array<string | Buffer> = [];
  private constructor(readonly ws: WebSocket, readonly vsn: '1.0.0' | '2.0.0') {}

  static async open(vsn: '1.0.0' | '2.0.0'): Promise<RawClient> {
    const ws = new WebSocket(`${stack.realtime.url}/websocket?apikey=${API_KEY}&vsn=${vsn}`);
    const client = new RawClient(ws, vsn);
    ws.on('message', (data: Buffer, isBinary) => {
      client.frames.push(isBinary ? data : data.toString());
      client.messages.push(client.parse(data, isBinary));
    });
    await once(ws, 'open');
    rawClients.push(client);
    return client;
  }

  private parse(data: Buffer, isBinary: boolean): Msg {
    if (isBinary) {
      // V2 user broadcast (kind 4): kind, topic size, event size, metadata size, encoding, strings, payload.
      const [kind = 0, topicSize = 0, eventSize = 0, metaSize = 0, encoding = 0] = data;
      let o = 5;
      const topic = data.toString('utf8', o, (o += topicSize));
      const event = data.toString('utf8', o, (o += eventSize));
      o += metaSize;
      const raw = data.subarray(o);
      return { binary: { kind, topic, event, encoding, payload: encoding === 1 ? JSON.parse(raw.toString()) : raw } };
    }
    const v = JSON.parse(data.toString());
    if (this.vsn === '1.0.0') return v;
    const [join_ref, ref, topic, event, payload] = v;
    return { join_ref, ref, topic, event, payload };
  }

  send(msg: object | string | Buffer): void {
    this.ws.send(typeof msg === 'string' || Buffer.isBuffer(msg) ? msg : JSON.stringify(msg));
  }

  /** vsn 2.0.0 frames are arrays, vsn 1.0.0 frames objects. */
  push(topic: string, event: string, payload: unknown, ref: string | number | null, joinRef: string | number | null = null): void {
    this.send(this.vsn === '2.0.0' ? [joinRef, ref, topic, event, payload] : { topic, event, payload, ref, join_ref: joinRef });
  }

  waitFor(pred: (m: Msg) => boolean, what = 'message'): Promise<Msg> {
    return waitUntil(() => this.messages.find(pred), what);
  }
}

afterEach(async () => {
  for (const c of rawClients.splice(0)) c.ws.terminate();
  await Promise.all(jsClients.splice(0).map((c) => c.removeAllChannels()));
});

const isReply = (ref: unknown) => (m: Msg) => m.event === 'phx_reply' && m.ref === ref;
const broadcastOf = (event: string) => (m: Msg) => m.event === 'broadcast' && m.payload?.event === event;

// -----------------------------------------------------------------------------

describe('local realtime: realtime-js (vsn 2.0.0)', () => {
  it('fans client broadcasts out to the other subscribers, honours self and ack, answers heartbeats', async () => {
    const heartbeats: string[] = [];
    const a = jsClient({ heartbeatIntervalMs: 300 });
    a.onHeartbeat((status) => heartbeats.push(status));
    const b = jsClient();
    const gotA: unknown[] = [];
    const gotB: unknown[] = [];
    const chA = a.channel('room-1', { config: { broadcast: { self: true, ack: true } } }).on('broadcast', { event: '*' }, (m) => gotA.push(m));
    const chB = b.channel('room-1').on('broadcast', { event: '*' }, (m) => gotB.push(m));
    await Promise.all([subscribed(chA), subscribed(chB)]);

    // ack: true -> send resolves on the server's phx_reply (otherwise 'timed out').
    expect(await chA.send({ type: 'broadcast', event: 'move', payload: { x: 1, s: 'é' } }, { timeout: 3_000 })).toBe('ok');
    await waitUntil(() => gotB.length === 1 && gotA.length === 1, 'move on both');
    expect(gotB[0]).toEqual({ type: 'broadcast', event: 'move', payload: { x: 1, s: 'é' } });
    expect(gotA[0]).toEqual(gotB[0]); // self: true

    // self: false -> the sender does not get its own message.
    await chB.send({ type: 'broadcast', event: 'move', payload: { x: 2 } });
    await waitUntil(() => gotA.length === 2, 'second move on A');
    expect(gotA[1]).toEqual({ type: 'broadcast', event: 'move', payload: { x: 2 } });
    await sleep(200);
    expect(gotB).toHaveLength(1);

    await waitUntil(() => heartbeats.includes('ok'), 'a heartbeat reply');
  }, T);

  it('filters events on the client side as Supabase does ({event: "etat"} only gets etat)', async () => {
    const a = jsClient();
    const etats: unknown[] = [];
    const ch = a.channel('room-2', { config: { broadcast: { self: true } } }).on('broadcast', { event: 'etat' }, (m) => etats.push(m));
    await subscribed(ch);
    await ch.send({ type: 'broadcast', event: 'action', payload: {} });
    await ch.send({ type: 'broadcast', event: 'etat', payload: { n: 1 } });
    await waitUntil(() => etats.length === 1, 'etat');
    expect(etats[0]).toEqual({ type: 'broadcast', event: 'etat', payload: { n: 1 } });
  }, T);

  it('send() on a channel that is not joined falls back to POST /api/broadcast (service_role only)', async () => {
    const got: unknown[] = [];
    const ch = jsClient().channel('room-3').on('broadcast', { event: 'etat' }, (m) => got.push(m));
    await subscribed(ch);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {}); // realtime-js warns about the fallback
    try {
      // The game key is not the service credential.
      expect(await jsClient().channel('room-3').send({ type: 'broadcast', event: 'etat', payload: {} })).toBe('error');
      const notJoined = jsClient({ params: { apikey: await sign({ role: 'service_role' }) } }).channel('room-3');
      expect(await notJoined.send({ type: 'broadcast', event: 'etat', payload: { via: 'rest' } })).toBe('ok');
      const denied = new RealtimeClient(stack.realtime.url, { params: { apikey: 'wrong' }, transport: WebSocket as unknown as RealtimeClientOptions['transport'] });
      expect(await denied.channel('room-3').send({ type: 'broadcast', event: 'etat', payload: {} })).toBe('error');
    } finally {
      warn.mockRestore();
    }
    await waitUntil(() => got.length === 1, 'REST broadcast');
    expect(got[0]).toEqual({ type: 'broadcast', event: 'etat', payload: { via: 'rest' } });
  }, T);

  it('presence: track/untrack reach the other client, a closed socket leaves', async () => {
    const a = jsClient();
    const b = jsClient();
    const events: Array<{ event: string; key: string; newPresences?: any[]; leftPresences?: any[] }> = [];
    const chA = a.channel('lobby', { config: { presence: { key: 'alice' } } });
    const chB = b.channel('lobby', { config: { presence: { key: 'bob' } } })
      .on('presence', { event: 'join' }, (p) => events.push(p as never))
      .on('presence', { event: 'leave' }, (p) => events.push(p as never));
    await Promise.all([subscribed(chA), subscribed(chB)]);

    expect(await chA.track({ pseudo: 'Alice', pret: true })).toBe('ok');
    const join = await waitUntil(() => events.find((e) => e.event === 'join' && e.key === 'alice'), 'alice join');
    expect(join.newPresences?.[0]).toMatchObject({ pseudo: 'Alice', pret: true, presence_ref: expect.any(String) });
    expect(chB.presenceState()).toMatchObject({ alice: [{ pseudo: 'Alice', pret: true }] });

    // A raw vsn 1.0.0 client joining with presence enabled gets presence_state.
    const raw = await RawClient.open('1.0.0');
    raw.push('realtime:lobby', 'phx_join', { config: { presence: { key: 'godot', enabled: true } } }, '1', '1');
    const state = await raw.waitFor((m) => m.event === 'presence_state', 'presence_state');
    expect(state.payload).toEqual({ alice: { metas: [{ pseudo: 'Alice', pret: true, phx_ref: expect.any(String) }] } });
    expect(state).not.toHaveProperty('join_ref'); // V1 never writes join_ref

    expect(await chA.untrack()).toBe('ok');
    await waitUntil(() => events.find((e) => e.event === 'leave' && e.key === 'alice'), 'alice leave');
    await raw.waitFor((m) => m.event === 'presence_diff' && !!m.payload.leaves.alice, 'raw leave diff');

    // Tracked again, then the socket goes away: a leave diff for the others.
    events.length = 0;
    await chA.track({ pseudo: 'Alice', pret: false });
    await waitUntil(() => events.find((e) => e.event === 'join' && e.key === 'alice'), 'alice join again');
    await a.disconnect();
    const leave = await waitUntil(() => events.find((e) => e.event === 'leave' && e.key === 'alice'), 'alice leave on disconnect');
    expect(leave.leftPresences?.[0]).toMatchObject({ pseudo: 'Alice', pret: false });
    expect(chB.presenceState()).not.toHaveProperty('alice');
  }, T);
});

describe('local realtime: hand-written clients', () => {
  it('vsn 1.0.0 JSON objects: heartbeat, join, broadcasts both ways with realtime-js, leave', async () => {
    const raw = await RawClient.open('1.0.0');
    raw.push('phoenix', 'heartbeat', {}, 7);
    expect(await raw.waitFor(isReply(7))).toEqual({ topic: 'phoenix', event: 'phx_reply', payload: { status: 'ok', response: {} }, ref: 7 });

    raw.push('realtime:match-1', 'phx_join', { config: { broadcast: { self: false, ack: true }, presence: { key: '', enabled: false }, private: false, postgres_changes: [] } }, '1', '1');
    expect((await raw.waitFor(isReply('1'))).payload).toEqual({ status: 'ok', response: { postgres_changes: [] } });
    raw.push('realtime:match-1', 'access_token', { access_token: await sign({ role: 'anon' }) }, '2', '1'); // verified, no reply

    const js = jsClient();
    const got: unknown[] = [];
    const ch = js.channel('match-1').on('broadcast', { event: 'action' }, (m) => got.push(m));
    await subscribed(ch);

    // realtime-js -> raw: the binary user broadcast is converted to JSON for V1.
    await ch.send({ type: 'broadcast', event: 'etat', payload: { tour: 3 } });
    const etat = await raw.waitFor(broadcastOf('etat'), 'etat on raw');
    expect(etat).toEqual({ topic: 'realtime:match-1', event: 'broadcast', payload: { event: 'etat', payload: { tour: 3 }, type: 'broadcast' }, ref: null });

    // raw -> realtime-js, with the ack reply (ack: true).
    raw.push('realtime:match-1', 'broadcast', { type: 'broadcast', event: 'action', payload: { coup: 'e4' } }, '3', '1');
    expect((await raw.waitFor(isReply('3'))).payload).toEqual({ status: 'ok', response: {} });
    await waitUntil(() => got.length === 1, 'action on realtime-js');
    expect(got[0]).toEqual({ type: 'broadcast', event: 'action', payload: { coup: 'e4' } });
    expect(raw.messages.some(isReply('2'))).toBe(false);

    // Messages on a topic that is not joined.
    raw.push('realtime:other', 'broadcast', { type: 'broadcast', event: 'x', payload: {} }, '4', null);
    expect((await raw.waitFor(isReply('4'))).payload).toEqual({ status: 'error', response: { reason: 'unmatched topic' } });

    raw.push('realtime:match-1', 'phx_leave', {}, '5', '1');
    expect((await raw.waitFor(isReply('5'))).payload).toEqual({ status: 'ok', response: {} });
    await raw.waitFor((m) => m.event === 'phx_close' && m.topic === 'realtime:match-1', 'phx_close');
    await ch.send({ type: 'broadcast', event: 'etat', payload: { tour: 4 } });
    await sleep(200);
    expect(raw.messages.filter(broadcastOf('etat'))).toHaveLength(1);
  }, T);

  it('vsn 2.0.0 JSON arrays and binary frames', async () => {
    const raw = await RawClient.open('2.0.0');
    raw.push('realtime:match-2', 'phx_join', { config: { broadcast: { self: true, ack: true } } }, '1', '1');
    await raw.waitFor(isReply('1'));
    expect(raw.frames[0]).toBe('["1","1","realtime:match-2","phx_reply",{"response":{"postgres_changes":[]},"status":"ok"}]');
    // No presence config at all -> presence enabled (Join.presence_enabled?) -> presence_state pushed with join_ref.
    expect(await raw.waitFor((m) => m.event === 'presence_state')).toMatchObject({ join_ref: '1', ref: null, payload: {} });

    raw.push('realtime:match-2', 'broadcast', { type: 'broadcast', event: 'action', payload: { a: 1 } }, '2', '1');
    const own = await raw.waitFor(broadcastOf('action'), 'own broadcast (self)');
    expect(own).toEqual({ join_ref: null, ref: null, topic: 'realtime:match-2', event: 'broadcast', payload: { type: 'broadcast', event: 'action', payload: { a: 1 } } });
    expect(await raw.waitFor(isReply('2'))).toMatchObject({ join_ref: '1', payload: { status: 'ok', response: {} } });

    // realtime-js sends a binary user broadcast push (kind 3); V2 subscribers get kind 4.
    const js = jsClient();
    const ch = js.channel('match-2');
    await subscribed(ch);
    await ch.send({ type: 'broadcast', event: 'etat', payload: { tour: 1 } });
    const bin = await raw.waitFor((m) => m.binary?.event === 'etat', 'binary etat');
    expect(bin.binary).toEqual({ kind: 4, topic: 'realtime:match-2', event: 'etat', encoding: 1, payload: { tour: 1 } });
  }, T);

  it('a rejected or missing apikey is refused with 401 at the handshake', async () => {
    for (const query of ['apikey=wrong&vsn=1.0.0', 'vsn=2.0.0']) {
      const ws = new WebSocket(`${stack.realtime.url}/websocket?${query}`);
      ws.on('error', () => {});
      const [, res] = (await once(ws, 'unexpected-response')) as [unknown, { statusCode: number }];
      expect(res.statusCode).toBe(401);
      ws.terminate();
    }
    const bad = new RealtimeClient(stack.realtime.url, { params: { apikey: 'wrong' }, transport: WebSocket as unknown as RealtimeClientOptions['transport'], timeout: 2_000 });
    jsClients.push(bad);
    await expect(subscribed(bad.channel('room-x'))).rejects.toThrow(/CHANNEL_ERROR|TIMED_OUT/);
  }, T);

  it('survives garbage: bad frames are logged and the socket keeps working', async () => {
    const v2 = await RawClient.open('2.0.0');
    const v1 = await RawClient.open('1.0.0');
    for (const g of ['not json', '{"a":1}', '[1,2]', '[null,null,1,2,{}]', '']) v2.send(g);
    v2.send(Buffer.from([0xff, 1, 2, 3]));
    v2.send(Buffer.from([3, 200, 200, 200, 200, 200, 1, 65])); // truncated user broadcast push
    for (const g of ['[]', '{"topic":"realtime:x"}', 'garbage', '42', 'null']) v1.send(g);
    v1.push('realtime:g', 'phx_join', 'not an object', '1', '1'); // payload not a map -> defaults
    v1.push('realtime:g', 'broadcast', 'not an object', '2', '1');
    v1.push('realtime:g', 'presence', { event: 'track', payload: [1, 2] }, '3', '1');
    v2.push('phoenix', 'heartbeat', {}, 'hb');
    v1.push('phoenix', 'heartbeat', {}, 'hb');
    await v2.waitFor(isReply('hb'));
    await v1.waitFor(isReply('hb'));
    expect((await v1.waitFor(isReply('1'))).payload.status).toBe('ok');
    expect((await v1.waitFor(isReply('3'))).payload).toEqual({ status: 'error', response: { reason: 'Presence track payload must be a map' } });
    expect(v1.ws.readyState).toBe(WebSocket.OPEN);
    expect(v2.ws.readyState).toBe(WebSocket.OPEN);
    expect(stack.logs.filter((l) => l.msg.includes('MalformedWebSocketMessage')).length).toBeGreaterThanOrEqual(10);
  }, T);
});

describe('local realtime: realtime.send from the database', () => {
  async function subscribers(topic: string) {
    const js = jsClient();
    const got: Array<{ event: string; payload: any; type: string; meta?: { id: string } }> = [];
    const ch = js.channel(topic)
      .on('broadcast', { event: 'action' }, (m) => got.push(m as never))
      .on('broadcast', { event: 'etat' }, (m) => got.push(m as never))
      .on('broadcast', { event: 'fin' }, (m) => got.push(m as never));
    await subscribed(ch);
    const raw = await RawClient.open('1.0.0');
    raw.push(`realtime:${topic}`, 'phx_join', { config: { broadcast: { self: false }, presence: { key: '', enabled: false }, private: false } }, '1', '1');
    await raw.waitFor(isReply('1'));
    return { got, raw };
  }

  it('delivers after COMMIT only, in order, to realtime-js and vsn 1.0.0 clients', async () => {
    const { got, raw } = await subscribers('partie:42');
    const tx = new pg.Client({ connectionString: stack.databaseUrl });
    await tx.connect();
    try {
      await tx.query('begin');
      await tx.query(`select realtime.send('{"coup": "e4"}'::jsonb, 'action', 'partie:42', false)`);
      await tx.query(`select realtime.send('{"tour": 2, "grand": 12345678901234567890}'::jsonb, 'etat', 'partie:42', false)`);
      await sleep(300);
      expect(got).toHaveLength(0); // not committed yet
      await tx.query('commit');
    } finally {
      await tx.end();
    }
    await waitUntil(() => got.length === 2, 'two messages on realtime-js');
    expect(got.map((m) => m.event)).toEqual(['action', 'etat']);
    // realtime.send adds the message's id to a payload that has none (as Supabase's does).
    const id = got[1]!.meta!.id;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(got[1]).toEqual({ type: 'broadcast', event: 'etat', payload: { tour: 2, grand: 12345678901234567890, id }, meta: { id } });

    await waitUntil(() => raw.messages.filter((m) => m.event === 'broadcast').length === 2, 'two messages on raw');
    const rawBroadcasts = raw.messages.filter((m) => m.event === 'broadcast');
    expect(rawBroadcasts.map((m) => m.payload.event)).toEqual(['action', 'etat']);
    expect(rawBroadcasts[0]).toEqual({
      topic: 'realtime:partie:42', event: 'broadcast', ref: null,
      payload: { event: 'action', meta: { id: got[0]?.meta?.id }, payload: { coup: 'e4', id: got[0]?.meta?.id }, type: 'broadcast' },
    });
    // The jsonb text is forwarded verbatim (no float rounding of big integers).
    expect(raw.frames.find((f) => typeof f === 'string' && f.includes('"grand"'))).toContain('12345678901234567890');
  }, T);

  it('never delivers a send whose transaction rolls back', async () => {
    const { got, raw } = await subscribers('partie:43');
    await stack.db.query('begin');
    await stack.db.query(`select realtime.send('{"n": 1}'::jsonb, 'etat', 'partie:43', false)`);
    await stack.db.query('rollback');
    await stack.db.query(`select realtime.send('{"n": 2}'::jsonb, 'fin', 'partie:43', false)`); // autocommit marker
    await waitUntil(() => got.some((m) => m.event === 'fin'), 'fin');
    await raw.waitFor(broadcastOf('fin'));
    expect(got.map((m) => m.event)).toEqual(['fin']);
    expect(raw.messages.filter((m) => m.event === 'broadcast')).toHaveLength(1);
  }, T);

  it('private sends reach private channels only, public sends public channels only', async () => {
    // Private channels need a token whose role the RLS policies on realtime.messages let read.
    await stack.db.query(`create policy "partie 44 readers" on realtime.messages for select to authenticated
                          using (realtime.topic() = 'partie:44')`);
    const js = jsClient();
    const pub: string[] = [];
    const priv: string[] = [];
    const chPub = js.channel('partie:44').on('broadcast', { event: '*' }, (m) => pub.push(m.event as string));
    // realtime-js keeps one channel per topic name, so the private one lives on another client.
    const privClient = jsClient();
    await privClient.setAuth(await sign({ role: 'authenticated', sub: 'someone' }));
    const chPriv = privClient.channel('partie:44', { config: { private: true } }).on('broadcast', { event: '*' }, (m) => priv.push(m.event as string));
    await Promise.all([subscribed(chPub), subscribed(chPriv)]);
    await stack.db.query(`select realtime.send('{}'::jsonb, 'secret', 'partie:44')`); // private defaults to true
    await stack.db.query(`select realtime.send('{}'::jsonb, 'public', 'partie:44', false)`);
    await waitUntil(() => pub.length === 1 && priv.length === 1, 'one message each');
    await sleep(100);
    expect(pub).toEqual(['public']);
    expect(priv).toEqual(['secret']);
  }, T);

  it('reads by logical replication on a temporary slot, reconnects when its connection is killed, and close() releases it', async () => {
    const admin = new pg.Client({ connectionString: stack.adminUrl });
    await admin.connect();
    try {
      // Realtime's publication, and one temporary pgoutput slot, active.
      const pub = await admin.query(`select tablename from pg_publication_tables where pubname = 'supabase_realtime_messages_publication'`);
      expect(pub.rows.length).toBeGreaterThan(0);
      expect(pub.rows.every((r) => /^messages(_\d{4}_\d{2}_\d{2})?$/.test(r.tablename))).toBe(true);
      const slots = async () => (await admin.query(`select slot_name, plugin, temporary, active from pg_replication_slots
        where database = current_database() and slot_name like 'supabase_realtime_messages_replication_slot_%'`)).rows;
      expect(await slots()).toEqual([{ slot_name: expect.any(String), plugin: 'pgoutput', temporary: true, active: true }]);
      const [before] = await slots();

      const { got } = await subscribers('partie:45');
      const reconnects = () => stack.logs.filter((l) => l.msg.includes('replication connection re-established')).length;
      const seen = reconnects();
      const killed = await admin.query(`select pg_terminate_backend(pid) from pg_stat_activity
        where application_name = 'realtime_replication_connection' and datname = current_database()`);
      expect(killed.rowCount).toBe(1);
      await waitUntil(() => reconnects() > seen, 'reconnect', 10_000);
      await stack.db.query(`select realtime.send('{"apres": "coupure"}'::jsonb, 'etat', 'partie:45', false)`);
      await waitUntil(() => got.length === 1, 'message after reconnect');
      // The slot went with its connection and was created again by the new one.
      expect(await slots()).toEqual([{ ...before, active: true }]);

      // A second instance keeps the partitions as Realtime's janitor does: yesterday to three
      // days ahead, and a partition older than 72 hours dropped.
      const day = (d: number) => new Date(Date.now() + d * 86_400_000).toISOString().slice(0, 10);
      const old = `messages_${day(-5).replaceAll('-', '_')}`;
      await admin.query(`create table realtime.${old} partition of realtime.messages for values from ('${day(-5)}') to ('${day(-4)}')`);
      const second = await startLocalRealtime({ port: 0, databaseUrl: stack.adminUrl, jwtSecret: JWT_SECRET, authorize: () => true, log: () => {} });
      const partitions = (await admin.query(`select c.relname from pg_inherits i join pg_class c on c.oid = i.inhrelid
        where i.inhparent = 'realtime.messages'::regclass order by 1`)).rows.map((r) => r.relname);
      expect(partitions).not.toContain(old);
      for (let d = -1; d <= 3; d++) expect(partitions).toContain(`messages_${day(d).replaceAll('-', '_')}`);
      expect(await slots()).toHaveLength(2);
      await second.close();
      expect(await slots()).toHaveLength(1); // a temporary slot ends with its connection
      const conns = await admin.query(`select count(*)::int as n from pg_stat_activity
        where datname = current_database() and application_name in ('realtime_replication_connection', 'realtime_janitor')`);
      expect(conns.rows[0].n).toBe(1); // only the main instance's replication connection
      await expect(new Promise((resolve, reject) => {
        const ws = new WebSocket(`${second.url}/websocket?apikey=x&vsn=1.0.0`);
        ws.on('open', resolve);
        ws.on('error', reject);
      })).rejects.toThrow(/ECONNREFUSED/);
    } finally {
      await admin.end();
    }
  }, T);
});
