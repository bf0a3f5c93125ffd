// Match benchmark: M matches (default 100) played at once through one API process started
// like `npm start` (`manette start` on a throwaway embedded Postgres, with the local
// Realtime), every player subscribed to its room with @supabase/realtime-js.
//
//   node bin/run-ts.js bench/match.ts [--matches 100] [--moves 20] [--rules tour_par_tour] [--durable]
//     [--events etat_aux_autres|etat|action_etat] [--server facade|bare] [--sql api|minimal]
// (--durable: Postgres flushes every commit; by default the throwaway cluster does not.
// --events: the game file's realtime.evenements: action_etat (the setting's default) and etat
// send two events and one per move on the match's room, which the players subscribe to;
// etat_aux_autres (the demo's) one `etat` per move on the other player's own channel, which
// each player subscribes to instead.
// --server bare: the moves go to bench/bare-server.ts (node:http + pg, as many processes and
// connections as the façade, nothing else) instead of the façade; the rest (setup, the
// local Realtime) is `manette start`'s. With --sql minimal it makes only a move's writes
// (the match row, the history row, the realtime rows), not api.match_action: the floor of a
// relay through Postgres and Realtime on this machine, Manette's code aside.)
//
// In each match the two players alternate: the player whose turn it is sends
// POST /match/action (with numero_tour); the other player plays as soon as its realtime
// client receives the `etat` of that move. Reports accepted actions per second, the HTTP
// latency of POST /match/action, the latency from sending the POST to the `etat`
// arriving at the other player (median and p99), and the CPU each process (Postgres, the
// API's, this load generator) used per action during the moves (Linux /proc).
// Rooms are private (the default): each player joins with the token of GET /realtime/config,
// so every join runs the RLS policies of realtime.messages. After the run, the price of
// that authorization, against its limit measured in the same run: joins one at a time,
// private room vs the public channel of the same name (no authorization); and per event in
// Postgres, manette.broadcast (which picks the channel kind) vs realtime_send alone.
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { availableParallelism, tmpdir, cpus, loadavg } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import WebSocket from 'ws';
import { RealtimeClient, type RealtimeClientOptions } from '@supabase/realtime-js';
import { startEmbeddedPostgres } from '../twin/postgres/embedded.js';
import { migrate } from '../api/db/migrate.js';
import { applyGameFile } from '../api/config/apply.js';
import { cpuByGroup, cpuSnapshot, freePort, percentile, pool, processTree, standInEnv, startManette, sessionPooler } from './support.js';

const { values: opts } = parseArgs({
  options: {
    matches: { type: 'string', default: '100' },
    moves: { type: 'string', default: '20' },
    rules: { type: 'string', default: 'tour_par_tour' },
    durable: { type: 'boolean', default: false },
    events: { type: 'string', default: 'action_etat' },
    server: { type: 'string', default: 'facade' },
    sql: { type: 'string', default: 'api' },
  },
});
if (opts.server !== 'facade' && opts.server !== 'bare') throw new Error('--server facade or bare');
if (opts.sql !== 'api' && opts.sql !== 'minimal') throw new Error('--sql api or minimal');
if (opts.sql === 'minimal' && (opts.server !== 'bare' || opts.events === 'etat_aux_autres')) throw new Error('--sql minimal: with --server bare, on the room (--events action_etat or etat)');
const EVENTS = opts.events!;
if (!['etat_aux_autres', 'etat', 'action_etat'].includes(EVENTS)) throw new Error('--events etat_aux_autres, etat or action_etat');
const MATCHES = Number(opts.matches);
const MOVES = Number(opts.moves);
if (opts.rules !== 'tour_par_tour' && opts.rules !== 'libre') throw new Error('--rules tour_par_tour or libre');

const dir = await mkdtemp(path.join(tmpdir(), 'manette-bench-match-'));
await chmod(dir, 0o755);
let proc: ChildProcess | undefined;
let bare: ChildProcess | undefined;
let stopPg: (() => Promise<void>) | undefined;
let agent: http.Agent | undefined;
const realtimeClients: RealtimeClient[] = [];

async function cleanup() {
  for (const c of realtimeClients) c.disconnect();
  bare?.kill('SIGTERM');
  agent?.destroy();
  if (proc && proc.exitCode === null && proc.signalCode === null) {
    await new Promise<void>((resolve) => {
      proc!.once('exit', () => resolve());
      try { process.kill(-proc!.pid!, 'SIGTERM'); } catch { resolve(); }
      setTimeout(() => { try { process.kill(-proc!.pid!, 'SIGKILL'); } catch { /* gone */ } resolve(); }, 10_000).unref();
    });
  }
  await stopPg?.().catch(() => {});
  await rm(dir, { recursive: true, force: true });
}

try {
  const server = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: await freePort(), persistent: opts.durable });
  // Reached as on a project: through the session pooler (PgBouncer playing Supavisor).
  const pooler = await sessionPooler(server);
  stopPg = async () => { await pooler.stop(); await server.stop(); };
  if (!opts.durable) {
    // Realtime reads realtime.messages by logical replication, which sends a transaction once
    // its WAL is flushed: with commits not flushed, every `etat` would wait for the WAL writer
    // (200 ms by default). It flushes every millisecond here, so that this comparison still
    // measures commits that do not wait for the disk.
    const admin = new pg.Client({ connectionString: server.adminUrl });
    await admin.connect();
    await admin.query(`alter system set wal_writer_delay = '1ms'`);
    await admin.query('select pg_reload_conf()');
    await admin.end();
  }
  const databaseUrl = pooler.url(server.url);
  await migrate(databaseUrl);
  const gameFile = path.join(dir, 'bench.json');
  await writeFile(gameFile, JSON.stringify({
    jeu: 'bench', nom: 'Bench',
    modes: { duel: { equipes: 2, joueurs_par_equipe: 1, regles: opts.rules, elo_ecart_initial: 10000 } },
    realtime: { evenements: EVENTS },
  }));
  const apiKey = (await applyGameFile(databaseUrl, gameFile)).api_key;

  // One API process, as `npm start` runs it (local Realtime included).
  const port = await freePort();
  const api = startManette({
    // Public channels allowed: the join pricing below joins the public channel of the same name.
    ...process.env, DATABASE_URL: databaseUrl, ...standInEnv(server.adminUrl), MANETTE_REALTIME_PRIVATE_ONLY: 'off', PORT: String(port), HOST: '127.0.0.1',
      MANETTE_DATA_DIR: path.join(dir, 'data'), MANETTE_RATE_LIMIT_RPS: '1000000',
      MANETTE_RATE_LIMIT_BURST: '1000000', MANETTE_ARGON2_MEMORY_KIB: '1024', MANETTE_ARGON2_ITERATIONS: '1', MANETTE_REALTIME_PORT: String(await freePort()),
      LOG_LEVEL: 'warn',
      // The stand-in writes when each committed row arrived and went out (per-stage timing below).
      MANETTE_REALTIME_TRACE: path.join(dir, 'trace.tsv'),
    });
  proc = api.proc;
  const base = await api.base;
  // --server bare: the moves' server (its primary says 'ready' once every process listens).
  let movesBase = base;
  if (opts.server === 'bare') {
    const barePort = await freePort();
    bare = fork(path.join(import.meta.dirname, '..', 'bin', 'run-ts.js'), [path.join(import.meta.dirname, 'bare-server.ts'), databaseUrl,
      String(barePort), String(availableParallelism()), 'node', opts.sql === 'api' ? 'api' : opts.events === 'etat' ? 'minimal-etat' : 'minimal'], { stdio: 'ignore' });
    await new Promise<void>((resolve, reject) => {
      bare!.once('message', () => resolve());
      bare!.once('exit', (code) => reject(new Error(`bench/bare-server.ts exited (${code})`)));
    });
    movesBase = `http://127.0.0.1:${barePort}/api/public/v1`;
  }

  // The players' HTTP client: node:http on keep-alive connections. (fetch, undici's, took
  // about 0.7 ms of CPU per request here: this load generator shares the 2 cores with the
  // server it measures, as the peer's client does.)
  let failed = 0;
  agent = new http.Agent({ keepAlive: true, maxSockets: 128 });
  function call(method: string, url: string, token?: string, body?: unknown, server = base): Promise<any> {
    const data = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = http.request(server + url, {
        method, agent,
        headers: { 'x-api-key': apiKey, ...(token ? { 'x-player-token': token } : {}), ...(data ? { 'content-type': 'application/json' } : {}) },
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          try {
            const json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
            if (res.statusCode! >= 400) { failed++; if (failed <= 5) console.error(`${method} ${url} → ${res.statusCode} ${JSON.stringify(json)}`); }
            resolve(json);
          } catch (err) { reject(err); }
        });
        res.on('error', reject);
      });
      req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${url}: no answer in 30 s`)));
      req.on('error', reject);
      req.end(data);
    });
  }

  const config = await call('GET', '/realtime/config') as { url: string; key: string; channel_prefix: string };

  // Players and matches (through /matchmaking/join, two by two).
  interface Player { i: number; token: string; id: string; realtimeToken?: string }
  const players: Player[] = [];
  await pool(Array.from({ length: 2 * MATCHES }, (_, i) => i), 32, async (i) => {
    const r = await call('POST', '/players/register', undefined,
      { pseudo: `bench_${i}`, email: `bench_${i}@example.test`, password: 'motdepasse-solide' });
    players.push({ i, token: r.token, id: r.data.joueur.id });
  });
  players.sort((a, b) => a.i - b.i);
  // sentAt, answeredAt, etatAt: by the numero_tour the move leads to (performance.now() of this process).
  interface Match {
    id: string; seats: Player[]; done: Promise<void>; finish: () => void;
    sentAt: Map<number, number>; answeredAt: Map<number, number>; etatAt: Map<number, number>;
  }
  const matches: Match[] = [];
  for (let m = 0; m < MATCHES; m++) {
    const [a, b] = [players[2 * m]!, players[2 * m + 1]!];
    await call('POST', '/matchmaking/join', a.token, { mode_jeu: 'duel', elo_actuel: 1000 });
    const r = await call('POST', '/matchmaking/join', b.token, { mode_jeu: 'duel', elo_actuel: 1000 });
    if (r.status !== 'matched') throw new Error(`match ${m} not formed: ${JSON.stringify(r)}`);
    const byId = new Map([[a.id, a], [b.id, b]]);
    let finish!: () => void;
    const done = new Promise<void>((resolve) => { finish = resolve; });
    matches.push({ id: r.partie_id, seats: r.participants.map((p: any) => byId.get(p.joueur_id)!), done, finish,
      sentAt: new Map(), answeredAt: new Map(), etatAt: new Map() });
  }

  // Every player subscribes to its private room with realtime-js, configured from
  // /realtime/config (its token included); joins are timed, private and public.
  const joinLatency = { private: [] as number[], public: [] as number[] };
  const subscribe = async (rt: RealtimeClient, topic: string, isPrivate: boolean, onEtat?: (msg: any) => void) => {
    const channel = rt.channel(topic, { config: { private: isPrivate } });
    if (onEtat) channel.on('broadcast', { event: 'etat' }, onEtat);
    const t = performance.now();
    await new Promise<void>((resolve, reject) => {
      channel.subscribe((status, err) => {
        if (status === 'SUBSCRIBED') resolve();
        else if (status !== 'CLOSED') reject(new Error(`${status} ${err?.message ?? ''}`));
      });
    });
    joinLatency[isPrivate ? 'private' : 'public'].push(performance.now() - t);
    return channel;
  };
  const etatLatency: Array<[number, number]> = [];   // [sent at, latency]
  const httpLatency: Array<[number, number]> = [];
  let accepted = 0;
  let started = 0;
  let endedAt = 0;
  const play = async (match: Match, seat: number, turn: number) => {
    const p = match.seats[seat]!;
    const t = performance.now();
    match.sentAt.set(turn + 1, t);
    const r = await call('POST', '/match/action', p.token,
      { partie_id: match.id, action: 'coup', donnees: { [`c${turn}`]: seat }, numero_tour: turn }, movesBase);
    const answered = performance.now();
    match.answeredAt.set(turn + 1, answered);
    httpLatency.push([t, answered - t]);
    if (r.ok) accepted++;
  };
  await pool(matches, 16, async (match) => {
    for (const [seat, p] of match.seats.entries()) {
      const rt = new RealtimeClient(config.url, {
        params: { apikey: config.key }, transport: WebSocket as unknown as RealtimeClientOptions['transport'], timeout: 10_000,
      });
      realtimeClients.push(rt);
      await rt.setAuth((await call('GET', '/realtime/config', p.token)).token);
      // etat_aux_autres: the other player's moves come on this player's own channel.
      const topic = EVENTS === 'etat_aux_autres' ? `manette_joueur_${p.id}` : config.channel_prefix + match.id;
      await subscribe(rt, topic, true, (msg: any) => {
        const partie = msg.payload;
        // The players alternate (seat 1 plays turn 1, seat 2 turn 2, ...; tour_joueur in tour_par_tour).
        if ((partie.numero_tour - 1) % 2 !== seat) return;
        const sent = match.sentAt.get(partie.numero_tour);
        const now = performance.now();
        match.etatAt.set(partie.numero_tour, now);
        if (sent !== undefined) etatLatency.push([sent, now - sent]);
        if (partie.numero_tour > MOVES) { endedAt = Math.max(endedAt, performance.now()); match.finish(); return; }
        void play(match, seat, partie.numero_tour);
      });
    }
  });

  const load = loadavg()[0]!;
  const cpuBefore = cpuSnapshot();
  started = performance.now();
  for (const match of matches) void play(match, 0, 1);
  const timeout = setTimeout(() => { console.error('not finished after 300 s'); process.exitCode = 1; for (const m of matches) m.finish(); }, 300_000);
  await Promise.all(matches.map((m) => m.done));
  clearTimeout(timeout);
  const elapsed = endedAt - started;
  // Where the machine's CPU went during the moves, per accepted action (Linux /proc).
  // Only this run's processes (this one and those below it): the machine is shared.
  const cpuAfter = cpuSnapshot();
  const ours = processTree(cpuAfter, process.pid);
  const cpu = cpuByGroup(cpuBefore, cpuAfter, (pid, cmd) => {
    if (pid === process.pid) return 'load generator (this process: node:http, realtime-js)';
    if (!ours.has(pid)) return undefined;
    if (cmd.startsWith('postgres: walsender')) return 'Postgres walsender (logical decoding for Realtime)';
    if (/^postgres: (walwriter|checkpointer|background writer|autovacuum|logical replication launcher|io worker)/.test(cmd)) return 'Postgres background (WAL writer, checkpointer, autovacuum)';
    if (cmd.startsWith('postgres')) return 'Postgres backends (SQL)';
    if (cmd.includes('pgbouncer')) return 'PgBouncer (session pooler)';
    if (cmd.includes('manette-worker.js')) return 'API workers';
    if (cmd.includes('manette.js start')) return 'API primary (local Realtime, shared rate limits)';
    if (cmd.includes('bare-server.ts')) return 'bare server (node:http + pg, --server bare)';
    return undefined;
  });
  const cpuTotal = [...cpu.values()].reduce((a, b) => a + b, 0);
  const cpuLine = cpu.size === 0 ? 'CPU per action: not measured (no /proc)'
    : `CPU per action, ms: ${[...cpu].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${((v * 1000) / accepted).toFixed(2)}`).join(', ')}; `
      + `in all ${((cpuTotal * 1000) / accepted).toFixed(2)} (${((100 * cpuTotal) / ((elapsed / 1000) * cpus().length)).toFixed(0)} % of the ${cpus().length} cores during the moves)`;

  // Where a steady move's time went, stage by stage (medians), from this process's clock and
  // the stand-in's trace (MANETTE_REALTIME_TRACE: each etat row's commit time, its arrival
  // in the stand-in, its frames handed to the sockets; all epoch times of this machine).
  await new Promise((r) => setTimeout(r, 400)); // the trace is appended every 200 ms
  const stages = { sentToCommit: [] as number[], commitToAnswer: [] as number[], commitToStandIn: [] as number[], standIn: [] as number[], toPlayer: [] as number[] };
  {
    const epoch = (t: number) => performance.timeOrigin + t;
    // A room's topic names its match; a player's own channel (etat_aux_autres) its player.
    const byId = new Map<string, Match>(matches.flatMap((m) => [[m.id, m], ...m.seats.map((p): [string, Match] => [p.id, m])]));
    const steadyFrom = started + elapsed / 5;
    let text = '';
    try { text = await readFile(path.join(dir, 'trace.tsv'), 'utf8'); } catch { /* no trace: stages not shown */ }
    for (const line of text.split('\n')) {
      const [topic, event, turnText, committed, received, handed] = line.split('\t');
      if (event !== 'etat' || !turnText || !committed) continue;
      const m = byId.get(topic!.slice(topic!.lastIndexOf('_') + 1));
      const turn = Number(turnText);
      const sent = m?.sentAt.get(turn);
      if (!m || sent === undefined || sent < steadyFrom) continue;
      const [c, r, h] = [Number(committed), Number(received), Number(handed)];
      stages.sentToCommit.push(c - epoch(sent));
      const answered = m.answeredAt.get(turn);
      if (answered !== undefined) stages.commitToAnswer.push(epoch(answered) - c);
      stages.commitToStandIn.push(r - c);
      stages.standIn.push(h - r);
      const at = m.etatAt.get(turn);
      if (at !== undefined) stages.toPlayer.push(epoch(at) - h);
    }
    for (const xs of Object.values(stages)) xs.sort((a, b) => a - b);
  }

  // The price of authorization, one at a time (nothing else running now).
  const priced = { private: [] as number[], public: [] as number[] };
  {
    const [p] = matches[0]!.seats;
    const rt = new RealtimeClient(config.url, {
      params: { apikey: config.key }, transport: WebSocket as unknown as RealtimeClientOptions['transport'], timeout: 10_000,
    });
    realtimeClients.push(rt);
    await rt.setAuth((await call('GET', '/realtime/config', p!.token)).token);
    for (let i = 0; i < 200; i++) {
      for (const isPrivate of [false, true]) {
        const before = joinLatency[isPrivate ? 'private' : 'public'].length;
        await rt.removeChannel(await subscribe(rt, config.channel_prefix + matches[0]!.id, isPrivate));
        priced[isPrivate ? 'private' : 'public'].push(joinLatency[isPrivate ? 'private' : 'public'][before]!);
      }
    }
  }
  const perEvent = async (sql: string) => {
    const c = new pg.Client({ connectionString: databaseUrl });
    await c.connect();
    try {
      await c.query('begin');
      await c.query(`set local role manette_engine`);
      await c.query(`select set_config('manette.game_id', (select game_id::text from manette.matches where id = $1), true)`, [matches[0]!.id]);
      const t = performance.now();
      await c.query(sql, [`manette_partie_${matches[0]!.id}`]);
      return ((performance.now() - t) * 1000) / 5000;
    } finally {
      await c.query('rollback').catch(() => {});
      await c.end();
    }
  };
  const sendOnly = await perEvent(`select count(manette.realtime_send($1, 'x', '{"n": 1}', true)) from generate_series(1, 5000)`);
  const broadcast = await perEvent(`select count(manette.broadcast($1, 'x', '{"n": 1}')) from generate_series(1, 5000)`);

  // Check: every match has exactly MOVES actions and numero_tour MOVES + 1.
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const check = (await db.query(`select count(*)::int as matches, min(turn_number)::int as min_turn, max(turn_number)::int as max_turn,
      (select count(*)::int from manette.match_actions) as actions from manette.matches`)).rows[0];
  await db.end();

  // All samples, and the steady state (moves sent after the first fifth of the run: the
  // opening burst of MATCHES simultaneous first moves is over).
  const sorted = (xs: Array<[number, number]>, from = 0) => xs.filter(([at]) => at >= from).map(([, l]) => l).sort((a, b) => a - b);
  const steadyFrom = started + elapsed / 5;
  const ms = (x: number) => `${x.toFixed(1)} ms`;
  const line = (xs: number[]) => `p50 ${ms(percentile(xs, 0.5))}, p99 ${ms(percentile(xs, 0.99))} (${xs.length} samples)`;
  console.log(JSON.stringify({ matches: MATCHES, moves_per_match: MOVES, rules: opts.rules, durable: opts.durable, events: EVENTS, server: opts.server, sql: opts.sql, cpus: cpus().length, load_before: Number(load.toFixed(2)) }));
  console.log([
    `accepted actions: ${accepted} in ${ms(elapsed)} = ${(accepted / (elapsed / 1000)).toFixed(0)} actions/s`,
    `POST /match/action latency, all:            ${line(sorted(httpLatency))}`,
    `POST /match/action latency, steady:         ${line(sorted(httpLatency, steadyFrom))}`,
    `POST sent → etat at the other player, all:  ${line(sorted(etatLatency))}`,
    `POST sent → etat at the other player, steady: ${line(sorted(etatLatency, steadyFrom))}`,
    `join during setup (16 at once), private:   ${line([...joinLatency.private].slice(0, 2 * MATCHES).sort((a, b) => a - b))}`,
    `join one at a time, public (no authorization): ${line([...priced.public].sort((a, b) => a - b))}`,
    `join one at a time, private (RLS policies run): ${line([...priced.private].sort((a, b) => a - b))}`,
    cpuLine,
    stages.sentToCommit.length === 0 ? 'stages: not measured (no trace from the stand-in)'
      : `stages of a steady move, p50 ms (${stages.sentToCommit.length} moves): POST sent → commit (client, façade, pooler, SQL) `
        + `${percentile(stages.sentToCommit, 0.5).toFixed(1)}; commit → POST answered ${percentile(stages.commitToAnswer, 0.5).toFixed(1)}; `
        + `commit → row in the stand-in (WAL flush, walsender decode) ${percentile(stages.commitToStandIn, 0.5).toFixed(1)}; `
        + `stand-in (authorized fan-out) ${percentile(stages.standIn, 0.5).toFixed(2)}; `
        + `frames handed → etat at the other player (WebSocket, realtime-js) ${percentile(stages.toPlayer, 0.5).toFixed(1)}`,
    `per event in Postgres: realtime_send alone ${sendOnly.toFixed(1)} µs, manette.broadcast ${broadcast.toFixed(1)} µs`,
    `database check: ${JSON.stringify(check)}`,
    `failed requests: ${failed}`,
  ].join('\n'));
} finally {
  await cleanup();
}
