// Matchmaking benchmark: N players (default 1000) join a 2v2 mode through real API
// processes on a throwaway embedded Postgres, then poll until everyone is matched.
//
//   node bin/run-ts.js bench/matchmaking.ts [--players 1000] [--processes 2] [--concurrency 64]
//                                           [--spread 400] [--window 100] [--widening 10]
//                                           [--sql-clients 8] [--sql-rounds 3] [--migrations dir]
//
// Reports joins per second (all joins fired with `concurrency` requests in flight), the
// time from the last join's response to every player having seen `matched`, and request
// latencies. Elos are spread evenly over [1000, 1000 + spread) in a shuffled order.
//
// Then, in Postgres alone (no HTTP), the ratio of issue 12: `select api.matchmaking_join`
// against its limit, a transaction doing the same writes (insert the queue entry; every
// fourth join also inserts the match and its four seats, deletes the four entries and
// sends four `matched` with realtime.send), both through `--sql-clients` connections,
// commits not flushed (the throwaway Postgres runs with synchronous_commit off).
import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir, cpus } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startEmbeddedPostgres } from '../twin/postgres/embedded.js';
import { migrate } from '../api/db/migrate.js';
import { applyGameFile } from '../api/config/apply.js';
import { freePort, percentile, pool, standInEnv, sessionPooler } from './support.js';

const { values: opts } = parseArgs({
  options: {
    players: { type: 'string', default: '1000' },
    processes: { type: 'string', default: '2' },
    concurrency: { type: 'string', default: '64' },
    spread: { type: 'string', default: '400' },
    window: { type: 'string', default: '100' },
    widening: { type: 'string', default: '10' },
    'sql-clients': { type: 'string', default: '8' },
    'sql-rounds': { type: 'string', default: '3' },
    // Another migrations folder (e.g. a copy without a migration), for a before/after.
    migrations: { type: 'string' },
  },
});
const PLAYERS = Number(opts.players);
const PROCESSES = Number(opts.processes);
const CONCURRENCY = Number(opts.concurrency);
const SPREAD = Number(opts.spread);
const SQL_CLIENTS = Number(opts['sql-clients']);
const SQL_ROUNDS = Number(opts['sql-rounds']);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * api.matchmaking_join against a transaction doing the same writes, in the same database,
 * rounds alternated. Players of their own (tokens made in SQL), the mode `2v2_sql`; each
 * round ends the matches it made so the same players join again.
 */
async function compareWithMinimalWrites(databaseUrl: string, db: pg.Client, apiKey: string, elos: number[]) {
  const n = elos.length;
  const tokens = Array.from({ length: n }, (_, i) => `pt_sqlbench${String(i).padStart(39, '0')}`);
  await db.query('set role manette_api');
  for (let i = 0; i < n; i++) {
    await db.query('select api.players_register($1, $2)', [{ key: apiKey },
      { pseudo: `sql_${i}`, email: `sql_${i}@example.test`, password_hash: 'scrypt$bench', token: tokens[i] }]);
  }
  await db.query('reset role');
  const ids = (await db.query(`select g.id as game, m.id as mode,
      (select array_agg(p.id order by substr(p.pseudo, 5)::integer) from manette.players p
       where p.game_id = g.id and p.pseudo like 'sql\\_%') as players
    from manette.games g join manette.modes m on m.game_id = g.id and m.code = '2v2_sql'`)).rows[0];
  const clients = await Promise.all(Array.from({ length: SQL_CLIENTS }, async () => {
    const c = new pg.Client({ connectionString: databaseUrl });
    await c.connect();
    return c;
  }));
  const reset = async () => {
    await db.query(`update manette.matches set status = 'terminee' where game_id = $1 and mode = '2v2_sql' and status = 'en_cours'`, [ids.game]);
    await db.query(`delete from manette.queue_entries where mode_id = $1`, [ids.mode]);
    await db.query('vacuum analyze manette.queue_entries, manette.matches, manette.match_players');
  };
  const lit = (v: string) => `'${v}'`;
  const code = () => Array.from({ length: 6 }, () => 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'[Math.floor(Math.random() * 32)]).join('');
  const results: { round: number; api: number; minimal: number; placed: number }[] = [];
  try {
    for (let round = 1; round <= SQL_ROUNDS; round++) {
      await reset();
      // The real thing: one call per join, as the façade's role.
      for (const c of clients) await c.query('set role manette_api');
      let next = 0;
      let t = performance.now();
      await Promise.all(clients.map(async (c) => {
        while (next < n) {
          const i = next++;
          await c.query('select api.matchmaking_join($1, $2)', [{ key: apiKey, token: tokens[i] }, { mode_jeu: '2v2_sql', elo_actuel: elos[i] }]);
        }
      }));
      const api = n / ((performance.now() - t) / 1000);
      const placed = Number((await db.query(`select count(*) as n from manette.match_players mp join manette.matches m on m.id = mp.match_id
        where m.mode = '2v2_sql' and m.status = 'en_cours'`)).rows[0].n);
      for (const c of clients) await c.query('reset role');
      await reset();

      // Its limit: the same writes, one round trip per join (a multi-statement query is one
      // transaction). Each connection takes players four by four; the fourth forms the room.
      let group = 0;
      t = performance.now();
      await Promise.all(clients.map(async (c) => {
        while (group * 4 < n) {
          const first = 4 * group++;
          const members = Array.from({ length: Math.min(4, n - first) }, (_, k) => first + k);
          for (const [k, i] of members.entries()) {
            const insert = `insert into manette.queue_entries (game_id, mode_id, player_id, elo, joined_at, seen_at)
              values (${lit(ids.game)}, ${lit(ids.mode)}, ${lit(ids.players[i])}, ${elos[i]}, now(), now())`;
            if (k < 3) {
              await c.query(insert);
              continue;
            }
            const players = `array[${members.map((m) => lit(ids.players[m])).join(', ')}]::uuid[]`;
            const participants = JSON.stringify(members.map((m, seat) => ({ joueur_id: ids.players[m], pseudo: `sql_${m}`, equipe: seat < 2 ? 1 : 2 })));
            await c.query(`${insert};
              with m as (
                  insert into manette.matches (game_id, mode, rules, status, turn_player_id, turn_number, board, room_code)
                  values (${lit(ids.game)}, '2v2_sql', 'tour_par_tour', 'en_cours', ${lit(ids.players[members[0]!])}, 1, '{}', ${lit(code())})
                  returning id, room_code),
                seats as (
                  insert into manette.match_players (match_id, player_id, game_id, team, seat, elo)
                  select m.id, p.id, ${lit(ids.game)}, case when p.seat <= 2 then 1 else 2 end, p.seat, 1000
                  from m, unnest(${players}) with ordinality p(id, seat)
                  returning player_id, team, seat),
                gone as (delete from manette.queue_entries where mode_id = ${lit(ids.mode)} and player_id = any(${players}))
              select realtime.send(jsonb_build_object('status', 'matched', 'partie_id', m.id, 'code_salon', m.room_code,
                                     'equipe', seats.team, 'participants', ${lit(participants)}::jsonb),
                                   'matched', 'manette_joueur_' || seats.player_id, true)
              from m, seats order by seats.seat`);
          }
        }
      }));
      const minimal = n / ((performance.now() - t) / 1000);
      results.push({ round, api, minimal, placed });
    }
  } finally {
    await reset();
    await Promise.all(clients.map((c) => c.end()));
  }
  return results;
}

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
  // Reached as on a project: through the session pooler (PgBouncer playing Supavisor).
  const pooler = await sessionPooler(server);
  stopPg = async () => { await pooler.stop(); await server.stop(); };
  const databaseUrl = pooler.url(server.url);
  await migrate(databaseUrl, opts.migrations ?? undefined);
  const gameFile = path.join(dir, 'bench.json');
  await writeFile(gameFile, JSON.stringify({
    jeu: 'bench', nom: 'Bench',
    modes: {
      '2v2': { equipes: 2, joueurs_par_equipe: 2, regles: 'tour_par_tour',
        elo_ecart_initial: Number(opts.window), elo_elargissement_par_s: Number(opts.widening) },
      // The SQL-level comparison's own queue.
      '2v2_sql': { equipes: 2, joueurs_par_equipe: 2, regles: 'tour_par_tour',
        elo_ecart_initial: Number(opts.window), elo_elargissement_par_s: Number(opts.widening) },
    },
  }));
  const apiKey = (await applyGameFile(databaseUrl, gameFile)).api_key;

  const bases = await Promise.all(Array.from({ length: PROCESSES }, async (_, n) => {
    const port = await freePort();
    const proc = spawn(process.execPath, ['bin/manette.js', 'start'], {
      env: {
        ...process.env, DATABASE_URL: databaseUrl, ...standInEnv(server.adminUrl), PORT: String(port), HOST: '127.0.0.1',
        MANETTE_DATA_DIR: path.join(dir, `data-${n}`), MANETTE_RATE_LIMIT_RPS: '1000000',
        MANETTE_RATE_LIMIT_BURST: '1000000', MANETTE_ARGON2_MEMORY_KIB: '1024', MANETTE_ARGON2_ITERATIONS: '1', MANETTE_REALTIME_PORT: '0',
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
        if (m && /(Base|Database)\s+DATABASE_URL/.test(out)) resolve(m[1]!);
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
  const sqlLevel = await compareWithMinimalWrites(databaseUrl, db, apiKey, elos);
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
    '',
    `In Postgres alone, ${PLAYERS} joins per round, ${SQL_CLIENTS} connections, ${SQL_ROUNDS} rounds each, alternated:`,
    ...sqlLevel.map((r) => `  round ${r.round}: api.matchmaking_join ${r.api.toFixed(0)} joins/s (${r.placed} placed during the joins) · same writes ${r.minimal.toFixed(0)} joins/s · ratio ${(r.api / r.minimal).toFixed(2)}`),
    `  median ratio: ${median(sqlLevel.map((r) => r.api / r.minimal)).toFixed(2)}`,
  ].join('\n'));
} finally {
  await cleanup();
}
