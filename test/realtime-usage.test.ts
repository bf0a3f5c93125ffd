// The month's Realtime messages (twin/realtime/usage.ts, docs/capacity.md): the local Realtime
// counts every message as Supabase bills it (each message sent, plus one per subscriber it
// reaches), keeps the count in `_realtime.usage_monthly` across its restarts, and past the
// month's quota acts as a suspended tenant (Supabase Realtime's `suspend`): sockets closed,
// new ones refused with 403, HTTP broadcasts refused, until the next calendar month.
// Against real parts: a twin of a hosted database, the stand-in over real WebSockets and
// HTTP, raw clients and the unmodified @supabase/realtime-js; then the real façade and a
// morpion match played by two subscribed players: the messages and the bytes of
// `realtime.messages` one action costs (printed, and the figures of docs/capacity.md).
import { once } from 'node:events';
import pg from 'pg';
import WebSocket from 'ws';
import { SignJWT } from 'jose';
import { RealtimeClient, type RealtimeChannel, type RealtimeClientOptions } from '@supabase/realtime-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startLocalRealtime, type LocalRealtime, type LocalRealtimeOptions } from '../twin/realtime/server.js';
import { monthlyQuotaFrom, monthOf } from '../twin/realtime/usage.js';
import { readSettings } from '../api/config/settings.js';
import { startBlankTwin, type BlankTwin } from './support/blank-twin.js';
import { client, startTestApp, type TestApp } from './support/harness.js';
import { waitUntil as waitFor } from './support/wait.js';
import { joinPlayerRoom } from './support/player-room.js';
// A bound only turns a hang into a failure: generous, the machine is shared.
const waitUntil = <V>(fn: () => V | undefined | false | Promise<V | undefined | false>, what = 'condition', timeoutMs = 20_000, everyMs = 50) =>
  waitFor(fn, what, timeoutMs, everyMs);

const API_KEY = 'usage-test-key';
const JWT_SECRET = 'usage-test-secret-of-at-least-thirty-two-characters';
const T = 60_000;

describe('settings', () => {
  it('the monthly quota is the plan\'s with its spend cap (Free 2 M, Pro 5 M), none without cap; MANETTE_REALTIME_MONTHLY_QUOTA replaces it', () => {
    const q = (env: Record<string, string>) => monthlyQuotaFrom(readSettings(env));
    expect(q({})).toBe(2_000_000);
    expect(q({ MANETTE_REALTIME_PLAN: 'pro' })).toBe(5_000_000);
    expect(q({ MANETTE_REALTIME_PLAN: 'pro-no-cap' })).toBeUndefined();
    expect(q({ MANETTE_REALTIME_MONTHLY_QUOTA: 'off' })).toBeUndefined();
    expect(q({ MANETTE_REALTIME_PLAN: 'pro-no-cap', MANETTE_REALTIME_MONTHLY_QUOTA: '300' })).toBe(300);
    expect(() => readSettings({ MANETTE_REALTIME_MONTHLY_QUOTA: '0' })).toThrow(/MANETTE_REALTIME_MONTHLY_QUOTA/);
    expect(() => readSettings({ MANETTE_REALTIME_MONTHLY_QUOTA: 'unlimited' })).toThrow(/MANETTE_REALTIME_MONTHLY_QUOTA/);
    expect(monthOf(new Date('2026-12-31T23:59:59.999Z'))).toEqual({ month: '2026-12-01', nextMs: Date.parse('2027-01-01T00:00:00Z') });
  });
});

describe('the stand-in alone', () => {
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

  const stands: LocalRealtime[] = [];
  const sockets: WebSocket[] = [];
  const jsClients: RealtimeClient[] = [];
  afterEach(async () => {
    for (const ws of sockets.splice(0)) ws.terminate();
    await Promise.all(jsClients.splice(0).map(async (c) => { await c.removeAllChannels(); c.disconnect(); }));
    for (const rt of stands.splice(0)) await rt.close();
  });

  async function stand(tenant: string, opts: Partial<LocalRealtimeOptions> = {}): Promise<{ rt: LocalRealtime; logs: string[] }> {
    const logs: string[] = [];
    const rt = await startLocalRealtime({
      port: 0, databaseUrl: twin.adminUrl, jwtSecret: JWT_SECRET, authorize: (k) => k === API_KEY,
      log: (level, msg) => logs.push(`${level}: ${msg}`), privateOnly: 'off', usageTenant: tenant, ...opts,
    });
    stands.push(rt);
    return { rt, logs };
  }
  const stored = async (tenant: string) => (await db.query<{ month: string; messages: string }>(
    `select to_char(month, 'YYYY-MM-DD') as month, messages from _realtime.usage_monthly where tenant = $1 order by month`, [tenant])).rows
    .map((r) => ({ month: r.month, messages: Number(r.messages) }));

  /** A raw vsn 1.0.0 socket joined to a public topic; what it receives, and whether it closed. */
  async function rawJoined(rt: LocalRealtime, topic: string) {
    const ws = new WebSocket(`${rt.url}/websocket?apikey=${API_KEY}&vsn=1.0.0`);
    sockets.push(ws);
    const got: any[] = [];
    let closed = false;
    ws.on('message', (d: Buffer) => got.push(JSON.parse(d.toString())));
    ws.on('close', () => { closed = true; });
    await once(ws, 'open');
    ws.send(JSON.stringify({ topic: `realtime:${topic}`, event: 'phx_join', payload: { config: { private: false } }, ref: '1', join_ref: '1' }));
    await waitUntil(() => got.find((m) => m.event === 'phx_reply' && m.ref === '1'), 'joined');
    return { broadcasts: () => got.filter((m) => m.event === 'broadcast'), closed: () => closed };
  }
  function jsJoined(rt: LocalRealtime, topic: string) {
    const c = new RealtimeClient(rt.url, { params: { apikey: API_KEY }, transport: WebSocket as unknown as RealtimeClientOptions['transport'], timeout: 5_000 });
    jsClients.push(c);
    const got: unknown[] = [];
    const ch: RealtimeChannel = c.channel(topic, { config: { private: false } }).on('broadcast', { event: '*' }, (m) => got.push(m.payload));
    return new Promise<{ c: RealtimeClient; got: unknown[] }>((resolve, reject) => ch.subscribe((status, err) => {
      if (status === 'SUBSCRIBED') resolve({ c, got });
      else if (status !== 'CLOSED') reject(new Error(`${status} ${err?.message ?? ''}`));
    }));
  }
  const handshake = async (rt: LocalRealtime): Promise<{ status: number; body: unknown }> => {
    const ws = new WebSocket(`${rt.url}/websocket?apikey=${API_KEY}&vsn=1.0.0`);
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
  const httpBroadcast = async (rt: LocalRealtime) => {
    const service = await new SignJWT({ role: 'service_role', exp: Math.floor(Date.now() / 1000) + 600 })
      .setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(JWT_SECRET));
    const res = await fetch(`${rt.url.replace(/^ws/, 'http')}/api/broadcast`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${service}` },
      body: JSON.stringify({ messages: [{ topic: 'salle', event: 'http', payload: {} }] }),
    });
    return { status: res.status, body: res.status === 202 ? null : await res.json() };
  };

  it('counts each realtime.messages row and each delivery, and stores the month\'s count in _realtime.usage_monthly', async () => {
    const { rt } = await stand('count');
    const a = await rawJoined(rt, 'salle');
    const b = await jsJoined(rt, 'salle');
    const before = rt.messagesThisMonth();
    for (let i = 0; i < 3; i++) await db.query(`select realtime.send(jsonb_build_object('i', ${i}), 'ev', 'salle', false)`);
    await waitUntil(() => a.broadcasts().length === 3 && b.got.length === 3, 'three rows at both subscribers');
    // Each row: 1 read + 2 deliveries.
    expect(rt.messagesThisMonth() - before).toBe(9);
    // An HTTP broadcast: 1 sent + 2 deliveries.
    expect((await httpBroadcast(rt)).status).toBe(202);
    await waitUntil(() => a.broadcasts().length === 4 && b.got.length === 4, 'the HTTP broadcast at both');
    expect(rt.messagesThisMonth() - before).toBe(12);
    // Stored within a flush (every 5 s), exactly what was counted, in this UTC month's row.
    const total = rt.messagesThisMonth();
    await waitUntil(async () => ((await stored('count'))[0]?.messages ?? 0) >= total, 'the count stored', 30_000, 100);
    // And at close, all of it.
    await rt.close();
    stands.splice(stands.indexOf(rt), 1);
    expect(await stored('count')).toEqual([{ month: monthOf(new Date()).month, messages: rt.messagesThisMonth() }]);
  }, T);

  it('past the month\'s quota: sockets closed, 403 to new ones and to HTTP broadcasts, across a restart, until the next month', async () => {
    const { rt, logs } = await stand('quota', { monthlyQuota: 10 });
    const a = await rawJoined(rt, 'salle');
    const b = await jsJoined(rt, 'salle');
    // Rows one after the other, each delivered to both (3 messages a row), until the quota
    // is reached: then both sockets are closed (Realtime's disconnect of a suspended tenant).
    let sent = 0;
    while (!a.closed()) {
      await db.query(`select realtime.send(jsonb_build_object('i', ${sent}), 'ev', 'salle', false)`);
      sent++;
      await waitUntil(() => a.closed() || (a.broadcasts().length === sent && b.got.length === sent), `row ${sent} at both, or the socket closed`);
    }
    await waitUntil(() => !b.c.isConnected(), 'realtime-js disconnected');
    expect(sent).toBeGreaterThanOrEqual(3);
    // Not one message past the quota: the delivery that reaches it is the last.
    expect(rt.messagesThisMonth()).toBe(10);
    expect(logs.some((l) => l.includes('RealtimeDisabledForTenant'))).toBe(true);
    expect(await handshake(rt)).toEqual({ status: 403, body: { error: 'Realtime was disabled for this tenant' } });
    expect(await httpBroadcast(rt)).toEqual({ status: 403, body: { message: 'Tenant is suspended' } });

    // A restart of the stand-in: the count is read back from the table, still refused.
    await rt.close();
    stands.splice(stands.indexOf(rt), 1);
    expect(await stored('quota')).toEqual([{ month: monthOf(new Date()).month, messages: 10 }]);
    const again = await stand('quota', { monthlyQuota: 10 });
    expect(again.rt.messagesThisMonth()).toBe(10);
    expect(await handshake(again.rt)).toEqual({ status: 403, body: { error: 'Realtime was disabled for this tenant' } });
    // Without a quota (MANETTE_REALTIME_MONTHLY_QUOTA=off, or Pro without spend cap): counted, never refused.
    const uncapped = await stand('quota');
    expect(uncapped.rt.messagesThisMonth()).toBe(10);
    expect((await handshake(uncapped.rt)).status).toBe(101);
    await uncapped.rt.close();
    stands.splice(stands.indexOf(uncapped.rt), 1);

    // The next calendar month (the stand-in's clock moved): a new count, Realtime enabled again.
    let clock = new Date();
    let joined = 0;
    const next = await stand('quota', { monthlyQuota: 10, clock: () => clock });
    expect((await handshake(next.rt)).status).toBe(403);
    clock = new Date(monthOf(new Date()).nextMs + 1000);
    expect((await handshake(next.rt)).status).toBe(101);
    const c = await rawJoined(next.rt, 'salle');
    joined = next.rt.messagesThisMonth(); // the join's presence_state sync counts as a presence message
    await db.query(`select realtime.send('{"i": 4}'::jsonb, 'ev', 'salle', false)`);
    await waitUntil(() => c.broadcasts().length === 1, 'delivered again');
    expect(next.rt.messagesThisMonth() - joined).toBe(2);
    await next.rt.close();
    stands.splice(stands.indexOf(next.rt), 1);
    expect(await stored('quota')).toEqual([
      { month: monthOf(new Date()).month, messages: 10 },
      { month: monthOf(clock).month, messages: joined + 2 },
    ]);
  }, 2 * T);
});

describe('a morpion action, through the façade', () => {
  let app: TestApp;
  let api: ReturnType<typeof client>;
  let n = 0;
  beforeAll(async () => {
    app = await startTestApp({}, undefined, { realtime: true });
    api = client(app.baseUrl, await app.applyGame({
      jeu: 'capacite', nom: 'Capacité', modes: { '1v1': { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', elo_ecart_initial: 10000 } },
    }));
  }, T);
  afterAll(async () => { await app?.close(); });

  const jsClients: RealtimeClient[] = [];
  afterAll(async () => { await Promise.all(jsClients.map(async (c) => { await c.removeAllChannels(); c.disconnect(); })); });

  interface Player { token: string; id: string }
  async function match(): Promise<{ id: string; x: Player; o: Player }> {
    const ps: Player[] = [];
    let last: any;
    for (let i = 0; i < 2; i++) {
      const r = await api.register(`cap_${++n}_${Math.random().toString(36).slice(2, 8)}`);
      ps.push({ token: r.token, id: r.data.joueur.id });
      last = (await api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1000 }, { token: r.token })).body;
    }
    expect(last.status).toBe('matched');
    const first = last.participants[0].joueur_id as string;
    const [x, o] = ps[0]!.id === first ? [ps[0]!, ps[1]!] : [ps[1]!, ps[0]!];
    return { id: last.partie_id, x, o };
  }
  // Eight moves of a drawn game, before its last: the match stays in progress (no end-of-match events).
  const CELLS = [0, 1, 2, 4, 3, 5, 7, 6];
  async function play(m: { id: string; x: Player; o: Player }): Promise<void> {
    for (const [i, cell] of CELLS.entries()) {
      const p = i % 2 === 0 ? m.x : m.o;
      const r = await api.post('/match/action', { partie_id: m.id, action: 'jouer', donnees: { case: cell } }, { token: p.token });
      expect(r.status).toBe(200);
    }
  }
  const subscribe = (p: Player, room: string) => joinPlayerRoom(api, p.token, room, jsClients);

  it('costs 6 Realtime messages with both players subscribed: 2 rows (action, etat), each delivered to 2', async () => {
    const m = await match();
    const gotX = await subscribe(m.x, m.id);
    const gotO = await subscribe(m.o, m.id);
    const before = app.realtime!.messagesThisMonth();
    await play(m);
    await waitUntil(() => gotX.length === 2 * CELLS.length && gotO.length === 2 * CELLS.length, 'every move at both players');
    const perAction = (app.realtime!.messagesThisMonth() - before) / CELLS.length;
    console.log(`[capacity] Realtime messages per morpion action, 2 players subscribed: ${perAction}`);
    expect(perAction).toBe(6);
  }, T);

  it('stores about 1.5 KB of realtime.messages per action (table and indexes), measured over 240 actions', async () => {
    const size = async () => Number((await app.sql<{ b: string }>(
      `select coalesce(sum(pg_total_relation_size(i.inhrelid)), 0) + pg_total_relation_size('realtime.messages') as b
       from pg_inherits i where i.inhparent = 'realtime.messages'::regclass`))[0]!.b);
    const rows = async () => Number((await app.sql<{ n: string }>(`select count(*) as n from realtime.messages`))[0]!.n);
    // Manette's own history of the actions, kept for good (match replays, the console).
    const history = async () => Number((await app.sql<{ b: string }>(`select pg_total_relation_size('manette.match_actions') as b`))[0]!.b);
    const matches = [];
    for (let i = 0; i < 30; i++) matches.push(await match());
    const [bytes0, rows0, hist0] = [await size(), await rows(), await history()];
    for (const m of matches) await play(m);
    const [bytes1, rows1, hist1] = [await size(), await rows(), await history()];
    const actions = matches.length * CELLS.length;
    const perRow = (await app.sql<{ event: string; b: string }>(
      `select event, round(avg(pg_column_size(m.*)))::text as b from realtime.messages m
       where event in ('action', 'etat') group by 1 order by 1`)).map((r) => `${r.event} ${r.b} B`).join(', ');
    const perAction = (bytes1 - bytes0) / actions;
    console.log(`[capacity] realtime.messages per morpion action: ${Math.round(perAction)} bytes with indexes `
      + `(${bytes1 - bytes0} bytes over ${actions} actions, ${rows1 - rows0} rows); row sizes: ${perRow}; `
      + `manette.match_actions: ${Math.round((hist1 - hist0) / actions)} bytes per action with indexes`);
    expect(rows1 - rows0).toBe(2 * actions);
    expect(perAction).toBeGreaterThan(600);
    expect(perAction).toBeLessThan(4000);
    expect(hist1 - hist0).toBeGreaterThan(0);
  }, 4 * T);
});
