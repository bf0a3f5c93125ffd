// Realtime latency, open loop: M matches (default 100) through `manette start` (local
// Realtime stand-in), every player subscribed to its private room with realtime-js. Actions
// are sent at a fixed rate whatever the answers (not back to back), round robin over the
// matches, the two players of a match taking turns. Measured: from sending POST
// /match/action to the `etat` of that action arriving at the OTHER player.
//   node bin/run-ts.js bench/realtime.ts [--matches 100] [--seconds 10] [--rates 100,200,400,800]
// The first rate is the goal's load (100 matches, one action per match per second:
// p50 < 10 ms, p99 < 50 ms); the capacity is the highest rate whose p99 stays under 100 ms.
// The stand-in runs without quotas here (this measures the machine); what a project's plan
// allows is computed from what is counted: the Realtime messages one action costs (the
// realtime.messages rows it commits, and each delivery of them to each subscribed socket,
// as Supabase counts them), the connections and joins of a match, and each plan's quotas
// (twin/realtime/quotas.ts): how many matches fit at a given action rate.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { RealtimeClient, type RealtimeClientOptions } from '@supabase/realtime-js';
import pg from 'pg';
import { startEmbeddedPostgres } from '../twin/postgres/embedded.js';
import { PLANS, type Plan } from '../twin/realtime/quotas.js';
import { migrate } from '../api/db/migrate.js';
import { applyGameFile } from '../api/config/apply.js';
import { freePort, pool, percentile, standInEnv, startManette, sessionPooler } from './support.js';

const { values: opts } = parseArgs({
  options: {
    matches: { type: 'string', default: '100' },
    seconds: { type: 'string', default: '10' },
    rates: { type: 'string', default: '100,200,400,800' },
  },
});
const MATCHES = Number(opts.matches);
const SECONDS = Number(opts.seconds);
const RATES = opts.rates!.split(',').map(Number);
const ROOT = path.resolve(import.meta.dirname, '..');

const dir = await mkdtemp(path.join(tmpdir(), 'manette-bench-realtime-'));
await chmod(dir, 0o755);
let proc: ChildProcess | undefined;
const clients: RealtimeClient[] = [];
// Durable commits, as on a hosted project: logical replication sends a transaction once its WAL
// is flushed, so with synchronous_commit off every `etat` would wait for the WAL writer (200 ms).
const server = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: await freePort(), persistent: true });
// Reached as on a project: through the session pooler (PgBouncer playing Supavisor).
const pooler = await sessionPooler(server);
const dbUrl = pooler.url(server.url);
try {
  await migrate(dbUrl);
  const gameFile = path.join(dir, 'bench.json');
  await writeFile(gameFile, JSON.stringify({
    jeu: 'bench', nom: 'Bench', modes: { duel: { equipes: 2, joueurs_par_equipe: 1, regles: 'libre', elo_ecart_initial: 10000 } },
  }));
  const apiKey = (await applyGameFile(dbUrl, gameFile)).api_key;

  const api = startManette({
    ...process.env, DATABASE_URL: dbUrl, ...standInEnv(server.adminUrl), PORT: String(await freePort()), HOST: '127.0.0.1',
      MANETTE_DATA_DIR: path.join(dir, 'data'), MANETTE_RATE_LIMIT_RPS: '1000000', MANETTE_RATE_LIMIT_BURST: '1000000',
    // Every player here comes from 127.0.0.1: no per-address cap (real players have their own addresses).
    MANETTE_MAX_CONNECTIONS_PER_ADDRESS: '100000',
      MANETTE_ARGON2_MEMORY_KIB: '1024', MANETTE_ARGON2_ITERATIONS: '1',
      MANETTE_REALTIME_PORT: String(await freePort()), LOG_LEVEL: 'warn',
    });
  proc = api.proc;
  const base = await api.base;
  const call = async (method: string, url: string, token?: string, body?: unknown) => {
    const res = await fetch(base + url, {
      method,
      headers: { 'x-api-key': apiKey, ...(token ? { 'x-player-token': token } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: await res.json() as any };
  };
  const config = (await call('GET', '/realtime/config')).body as { url: string; key: string; channel_prefix: string };

  const tokens: string[] = new Array(2 * MATCHES);
  await pool(Array.from({ length: 2 * MATCHES }, (_, i) => i), 16, async (i) => {
    tokens[i] = (await call('POST', '/players/register', undefined, { pseudo: `rt_${i}`, email: `rt_${i}@bench.test`, password: 'motdepasse-solide' })).body.token;
  });
  interface Match { id: string; tokens: string[]; arrived: Map<number, number> }
  const matches: Match[] = [];
  for (let m = 0; m < MATCHES; m++) {
    const pair = [tokens[2 * m]!, tokens[2 * m + 1]!];
    await call('POST', '/matchmaking/join', pair[0], { mode_jeu: 'duel', elo_actuel: 1000 });
    const r = (await call('POST', '/matchmaking/join', pair[1], { mode_jeu: 'duel', elo_actuel: 1000 })).body;
    if (r.status !== 'matched') throw new Error(`match ${m}: ${JSON.stringify(r)}`);
    matches.push({ id: r.partie_id, tokens: pair, arrived: new Map() });
  }

  // Each player listens to its room; `etat` arrivals are kept per player seat (0, 1) and numero_tour.
  const arrivals = new Map<string, number>();   // `${match}|${seat}|${numero_tour}` → when
  let deliveries = 0; // every broadcast a player's socket receives (action and etat)
  await pool(matches.flatMap((m) => [0, 1].map((seat) => ({ m, seat }))), 16, async ({ m, seat }) => {
    const rt = new RealtimeClient(config.url, {
      params: { apikey: config.key }, transport: WebSocket as unknown as RealtimeClientOptions['transport'], timeout: 10_000,
    });
    clients.push(rt);
    await rt.setAuth((await call('GET', '/realtime/config', m.tokens[seat])).body.token);
    const channel = rt.channel(config.channel_prefix + m.id, { config: { private: true } });
    channel.on('broadcast', { event: 'etat' }, (msg: any) => { arrivals.set(`${m.id}|${seat}|${msg.payload.numero_tour}`, performance.now()); });
    channel.on('broadcast', { event: '*' }, () => { deliveries++; });
    await new Promise<void>((resolve, reject) => channel.subscribe((status, err) => {
      if (status === 'SUBSCRIBED') resolve(); else if (status !== 'CLOSED') reject(new Error(`${status} ${err?.message ?? ''}`));
    }));
  });

  /** Open loop at `rate` actions/s for SECONDS; latencies to the other player's `etat`. */
  async function openLoop(rate: number) {
    const sends: Promise<{ match: Match; other: number; sentAt: number; turn: number } | null>[] = [];
    const refusedBy = new Map<string, number>();
    const start = performance.now();
    const total = Math.round(rate * SECONDS);
    for (let n = 0; n < total; n++) {
      const due = start + (n * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      const match = matches[n % MATCHES]!;
      const seat = Math.floor(n / MATCHES) % 2;
      const sentAt = performance.now();
      sends.push(call('POST', '/match/action', match.tokens[seat], { partie_id: match.id, action: 'coup', donnees: { dernier: n } })
        .then((r) => {
          if (r.status === 200) return { match, other: 1 - seat, sentAt, turn: r.body.partie.numero_tour as number };
          refusedBy.set(`${r.status} ${r.body.error}`, (refusedBy.get(`${r.status} ${r.body.error}`) ?? 0) + 1);
          return null;
        }, (err: Error & { cause?: { code?: string } }) => {
          // Past the machine's capacity the API's connections overflow: counted, not fatal.
          const why = `network ${err.cause?.code ?? err.message}`;
          refusedBy.set(why, (refusedBy.get(why) ?? 0) + 1);
          return null;
        }));
    }
    const sent = await Promise.all(sends);
    await new Promise((r) => setTimeout(r, 2000)); // the last events in flight
    const latencies: number[] = [];
    let lost = 0;
    let refused = 0;
    for (const s of sent) {
      if (!s) { refused++; continue; }
      const at = arrivals.get(`${s.match.id}|${s.other}|${s.turn}`);
      if (at === undefined) lost++; else latencies.push(at - s.sentAt);
    }
    latencies.sort((a, b) => a - b);
    return { rate, accepted: sent.length - refused, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), lost, refused,
      why: [...refusedBy].map(([k, n]) => `${n}× ${k}`).join(', ') };
  }

  // Messages per action, counted as Supabase Realtime counts them (max_events_per_second):
  // each realtime.messages row read from the database, and each delivery to a socket.
  const admin = new pg.Client({ connectionString: server.adminUrl });
  admin.on('error', () => {}); // a failure elsewhere stops Postgres while it is open: that failure is the one to report
  await admin.connect();
  const rowsOf = async () => Number((await admin.query(`select count(*) as n from realtime.messages where topic like 'manette_partie_%'`)).rows[0].n);
  const rowsBefore = await rowsOf();
  const deliveriesBefore = deliveries;
  let accepted = 0;

  const results = [];
  for (const rate of RATES) {
    const r = await openLoop(rate);
    accepted += r.accepted;
    results.push(r);
  }
  const rows = (await rowsOf()) - rowsBefore;
  await admin.end();
  const perAction = { rows: rows / accepted, deliveries: (deliveries - deliveriesBefore) / accepted };
  const eventsPerAction = perAction.rows + perAction.deliveries;
  console.log(`action → etat at the other player, open loop, ${MATCHES} matches, ${SECONDS} s per rate`);
  console.log('rate/s  p50 ms  p99 ms  not received  refused');
  for (const r of results) {
    console.log(`${String(r.rate).padEnd(6)}  ${r.p50.toFixed(1).padEnd(6)}  ${r.p99.toFixed(1).padEnd(6)}  ${String(r.lost).padEnd(12)}  ${r.refused}${r.why ? ` (${r.why})` : ''}`);
  }
  const capacity = results.filter((r) => r.p99 < 100 && r.lost === 0 && r.refused === 0).map((r) => r.rate);
  console.log(`capacity (p99 < 100 ms, nothing lost): ${capacity.length ? `${Math.max(...capacity)} actions/s` : 'below the lowest rate tried'}`);
  console.log(`load average: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);

  // What fits in each plan: a match is 2 players, each with one socket (2 connections) that
  // joins the room (2 joins, plus the player channel while in the queue); at `per` actions per
  // second per match it costs eventsPerAction × per messages per second.
  console.log(`\nRealtime messages per action: ${eventsPerAction.toFixed(2)} `
    + `(${perAction.rows.toFixed(2)} realtime.messages rows + ${perAction.deliveries.toFixed(2)} deliveries to the 2 players; no presence), `
    + `${accepted} actions counted`);
  const perMatchRates = [0.1, 0.2, 0.5, 1];
  console.log(`concurrent 1v1 matches that fit, by plan (messages/s limit ÷ (${eventsPerAction.toFixed(1)} × actions/s per match), capped by connections ÷ 2)`);
  console.log(`plan          ${perMatchRates.map((r) => `${r} act/s`.padStart(10)).join('')}   connections   joins/s (2 per match started)`);
  for (const plan of Object.keys(PLANS) as Plan[]) {
    const q = PLANS[plan];
    const fits = perMatchRates.map((r) => Math.min(Math.floor(q.maxEventsPerSecond / (eventsPerAction * r)), Math.floor(q.maxConnections / 2)));
    console.log(`${plan.padEnd(12)}  ${fits.map((n) => String(n).padStart(10)).join('')}   ${String(q.maxConnections).padStart(11)}   ${q.maxJoinsPerSecond / 2} matches starting per second`);
  }
} finally {
  for (const c of clients) c.disconnect();
  if (proc && proc.exitCode === null) {
    try { process.kill(-proc.pid!, 'SIGTERM'); } catch { /* gone */ }
    await new Promise((r) => { proc!.once('exit', r); setTimeout(r, 10_000).unref(); });
  }
  await pooler.stop();
  await server.stop();
  await rm(dir, { recursive: true, force: true });
}
