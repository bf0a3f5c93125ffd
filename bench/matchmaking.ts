// Matchmaking benchmark: N players (default 1000) join a 2v2 mode through real API
// processes on a throwaway embedded Postgres, then poll until everyone is matched.
//
//   node bin/run-ts.js bench/matchmaking.ts [--players 1000] [--processes 2] [--concurrency 64]
//                                           [--spread 400] [--window 100] [--widening 10]
//
// Reports joins per second (all joins fired with `concurrency` requests in flight), the
// time from the last join's response to every player having seen `matched`, and request
// latencies. Elos are spread evenly over [1000, 1000 + spread) in a shuffled order.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir, cpus } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startEmbeddedPostgres } from '../api/local/embedded.js';
import { migrate } from '../api/db/migrate.js';
import { applyGameFile } from '../api/config/apply.js';
import { freePort, pool, percentile } from './support.js';

const { values: opts } = parseArgs({
  options: {
    players: { type: 'string', default: '1000' },
    processes: { type: 'string', default: '2' },
    concurrency: { type: 'string', default: '64' },
    spread: { type: 'string', default: '400' },
    window: { type: 'string', default: '100' },
    widening: { type: 'string', default: '10' },
  },
});
const PLAYERS = Number(opts.players);
const PROCESSES = Number(opts.processes);
const CONCURRENCY = Number(opts.concurrency);
const SPREAD = Number(opts.spread);

const dir = await mkdtemp(path.join(tmpdir(), 'manette-bench-'));
await chmod(dir, 0o755);
const procs: ChildProcess[] = [];
let stopPg: (() => Promise<void>) | undefined;

async function cleanup() {
  for (const p of procs) {
    if (p.exitCode === null && p.signalCode === null) {
      await new Promise<void>((resolve) => {
        p.once('exit', () => resolve());
        try { process.kill(-p.pid!, 'SIGTERM'); } catch { resolve(); }
        setTimeout(() => { try { process.kill(-p.pid!, 'SIGKILL'); } catch { /* gone */ } resolve(); }, 10_000).unref();
      });
    }
  }
  await stopPg?.().catch(() => {});
  await rm(dir, { recursive: true, force: true });
}

try {
  const server = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: await freePort(), persistent: false });
  stopPg = server.stop;
  const databaseUrl = server.url;
  await migrate(databaseUrl);
  const gameFile = path.join(dir, 'bench.json');
  await writeFile(gameFile, JSON.stringify({
    jeu: 'bench', nom: 'Bench',
    modes: { '2v2': { equipes: 2, joueurs_par_equipe: 2, regles: 'tour_par_tour',
      elo_ecart_initial: Number(opts.window), elo_elargissement_par_s: Number(opts.widening) } },
  }));
  const apiKey = (await applyGameFile(databaseUrl, gameFile)).api_key;

  const bases = await Promise.all(Array.from({ length: PROCESSES }, async (_, n) => {
    const port = await freePort();
    const proc = spawn(process.execPath, ['bin/manette.js', 'start'], {
      env: {
        ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1',
        MANETTE_DATA_DIR: path.join(dir, `data-${n}`), MANETTE_RATE_LIMIT_RPS: '1000000',
        MANETTE_RATE_LIMIT_BURST: '1000000', MANETTE_SCRYPT_N: '1024', MANETTE_REALTIME_PORT: '0',
        MANETTE_DB_POOL_SIZE: '20', LOG_LEVEL: 'warn',
      },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    procs.push(proc);
    let out = '';
    return new Promise<string>((resolve, reject) => {
      proc.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /API\s+(http\S+)/.exec(out);
        if (m && /Base\s+DATABASE_URL/.test(out)) resolve(m[1]!);
      });
      proc.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
      proc.on('exit', (code) => reject(new Error(`API process exited ${code}:\n${out}`)));
    });
  }));

  let failed = 0;
  async function call(base: string, method: string, url: string, token?: string, body?: unknown) {
    const res = await fetch(base + url, {
      method,
      headers: { 'x-api-key': apiKey, ...(token ? { 'x-player-token': token } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = await res.json() as any;
    if (!res.ok) { failed++; if (failed <= 5) console.error(`${method} ${url} → ${res.status} ${JSON.stringify(json)}`); }
    return json;
  }

  // Players, with elos spread evenly and shuffled (deterministic).
  const elos = Array.from({ length: PLAYERS }, (_, i) => 1000 + (i * SPREAD) / PLAYERS);
  for (let i = elos.length - 1, seed = 42; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const j = seed % (i + 1);
    [elos[i], elos[j]] = [elos[j]!, elos[i]!];
  }
  const players: { i: number; token: string; elo: number; matched: boolean }[] = [];
  await pool(Array.from({ length: PLAYERS }, (_, i) => i), 32, async (i) => {
    const r = await call(bases[i % PROCESSES]!, 'POST', '/players/register', undefined,
      { pseudo: `bench_${i}`, email: `bench_${i}@example.test`, password: 'motdepasse-solide' });
    players.push({ i, token: r.token, elo: elos[i]!, matched: false });
  });
  players.sort((a, b) => a.i - b.i);

  // Baseline: the same number of authenticated requests that do no matchmaking.
  const baseStart = performance.now();
  await pool(players, CONCURRENCY, async (p) => { await call(bases[p.i % PROCESSES]!, 'GET', '/players/me', p.token); });
  const baseline = performance.now() - baseStart;

  // Joins.
  const joinLatency: number[] = [];
  const joinStart = performance.now();
  await pool(players, CONCURRENCY, async (p) => {
    const t = performance.now();
    const r = await call(bases[p.i % PROCESSES]!, 'POST', '/matchmaking/join', p.token, { mode_jeu: '2v2', elo_actuel: p.elo });
    joinLatency.push(performance.now() - t);
    if (r.status === 'matched') p.matched = true;
  });
  const lastJoin = performance.now();
  const matchedAtJoin = players.filter((p) => p.matched).length;
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const placedAtJoin = Number((await db.query('select count(*) as n from manette.match_players')).rows[0].n);

  // Polls until everyone has seen `matched`.
  const pollLatency: number[] = [];
  let rounds = 0;
  let allButOnePercent: number | undefined;
  const progress: string[] = [];
  while (players.some((p) => !p.matched)) {
    rounds++;
    if (performance.now() - lastJoin > 300_000) throw new Error('not settled after 300 s');
    const roundStart = performance.now();
    await pool(players.filter((p) => !p.matched), CONCURRENCY, async (p) => {
      const t = performance.now();
      const r = await call(bases[(p.i + rounds) % PROCESSES]!, 'GET', '/matchmaking/status', p.token);
      pollLatency.push(performance.now() - t);
      if (r.status === 'matched') p.matched = true;
    });
    const left = players.filter((p) => !p.matched).length;
    if (allButOnePercent === undefined && left <= PLAYERS / 100) allButOnePercent = performance.now() - lastJoin;
    progress.push(`${((performance.now() - lastJoin) / 1000).toFixed(1)}s:${players.filter((p) => !p.matched).length}`);
    // A client polls about every 250 ms.
    const wait = 250 - (performance.now() - roundStart);
    if (wait > 0 && players.some((p) => !p.matched)) await new Promise((r) => setTimeout(r, wait));
  }
  const settled = performance.now();
  const rooms = (await db.query(`select count(*)::int as rooms, sum(n)::int as seats,
      (select count(distinct player_id)::int from manette.match_players) as players,
      (select count(*)::int from manette.queue_entries) as queued,
      round(avg(spread))::int as avg_elo_spread, max(spread)::int as max_elo_spread
    from (select match_id, count(*) as n, max(elo) - min(elo) as spread from manette.match_players group by match_id) r`)).rows[0];
  await db.end();

  joinLatency.sort((a, b) => a - b);
  pollLatency.sort((a, b) => a - b);
  const ms = (x: number) => `${x.toFixed(0)} ms`;
  console.log(JSON.stringify({
    players: PLAYERS, processes: PROCESSES, concurrency: CONCURRENCY, cpus: cpus().length,
    elo_spread: SPREAD, window: Number(opts.window), widening_per_s: Number(opts.widening),
  }));
  console.log([
    `joins:            ${PLAYERS} in ${ms(lastJoin - joinStart)} = ${(PLAYERS / ((lastJoin - joinStart) / 1000)).toFixed(0)} joins/s`,
    `baseline:         ${PLAYERS} GET /players/me in ${ms(baseline)} = ${(PLAYERS / (baseline / 1000)).toFixed(0)} requests/s`,
    `join latency:     p50 ${ms(percentile(joinLatency, 0.5))}, p99 ${ms(percentile(joinLatency, 0.99))}`,
    `during the joins: ${placedAtJoin} players placed in rooms (${matchedAtJoin} saw matched in their join response)`,
    `last join → 99 % seen matched: ${ms(allButOnePercent ?? 0)}`,
    `last join → all seen matched:  ${ms(settled - lastJoin)} (${rounds} poll rounds, ${pollLatency.length} polls)`,
    `rooms:            ${JSON.stringify(rooms)}`,
    `poll latency:     p50 ${ms(percentile(pollLatency, 0.5))}, p99 ${ms(percentile(pollLatency, 0.99))}`,
    `failed requests:  ${failed}`,
    `still waiting after each poll round (time since last join: players): ${progress.join(' ')}`,
  ].join('\n'));
} finally {
  await cleanup();
}
