// Leaderboard benchmark: one board with 1,000,000 entries (one per player) in a throwaway
// embedded Postgres, then the latency of the real api.* functions, called the way the
// façade calls them (callApi, role manette_api, one round trip):
//   - top 10 and a deep page,
//   - the rank of one player (a submission that does not change the value) and the
//     window around a player (autour=moi), for players at several depths,
//   - concurrent submissions,
// and the plans of the statements inside those functions (auto_explain).
//
//   node bin/run-ts.js bench/leaderboards.ts [--rows 1000000] [--runs 50]
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { startEmbeddedPostgres } from '../api/local/embedded.js';
import { migrate } from '../api/db/migrate.js';
import { callApi, createPool, type RequestContext } from '../api/db/pool.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(v) || v < 1) throw new Error(`--${name} expects a positive integer`);
  return v;
}

const ROWS = arg('rows', 1_000_000);
const RUNS = arg('runs', 50);
const KEY = `sk_live_${'B'.repeat(40)}`;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

async function allVisible(db: pg.Client): Promise<number> {
  const { rows } = await db.query(`select relallvisible::float8 / greatest(relpages, 1) as f
                                   from pg_class where oid = 'manette.leaderboard_entries'::regclass`);
  return Number(rows[0].f);
}

interface Stats { n: number; p50: number; p95: number; p99: number; max: number; mean: number }

function stats(samples: number[]): Stats {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  return { n: s.length, p50: at(0.5), p95: at(0.95), p99: at(0.99), max: s[s.length - 1]!, mean: s.reduce((a, b) => a + b, 0) / s.length };
}

async function time(runs: number, fn: () => Promise<unknown>): Promise<Stats> {
  await fn(); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  return stats(samples);
}

const ms = (v: number) => v.toFixed(v < 10 ? 2 : 1);
const rows: string[] = [];
function report(what: string, s: Stats, extra = '') {
  const line = `| ${what} | ${s.n} | ${ms(s.p50)} | ${ms(s.p95)} | ${ms(s.p99)} | ${ms(s.max)} | ${extra} |`;
  rows.push(line);
  console.log(line);
}

const dir = await mkdtemp(path.join(tmpdir(), 'manette-bench-'));
await chmod(dir, 0o755); // as root, Postgres runs as `postgres` and must reach it
const server = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: await freePort(), persistent: false });
const admin = new pg.Client({ connectionString: server.url });
const pool = createPool(server.url, { role: 'manette_api', max: 8 });
try {
  await admin.connect();
  await migrate(server.url);
  const ctx = (token?: string): RequestContext => ({ key: KEY, token, origin: undefined, base_url: 'http://bench' });

  // == Load ===================================================================
  await admin.query(`select manette_admin.apply_game($1, $2)`,
    [JSON.stringify({ jeu: 'bench', nom: 'Bench', classements: { points: { ordre: 'desc', operateur: 'meilleur' } } }), KEY]);
  const game = (await admin.query(`select id from manette.games where slug = 'bench'`)).rows[0].id as string;
  let t = performance.now();
  await admin.query(`insert into manette.players (game_id, pseudo)
                     select $1, 'joueur_' || i from generate_series(1, $2::integer) i`, [game, ROWS]);
  const playersMs = performance.now() - t;
  t = performance.now();
  // Values 0..99,999: about ten players per value, so ties are everywhere.
  await admin.query(`
    insert into manette.leaderboard_entries (leaderboard_id, period_start, player_id, game_id, value, sort_key, reached_at)
    select l.id, '-infinity', p.id, p.game_id, v.value, -v.value, now() - random() * interval '30 days'
    from manette.leaderboards l
    join manette.players p on p.game_id = l.game_id
    cross join lateral (select floor(random() * 100000)::double precision + 0 * length(p.pseudo) as value) v
    where l.game_id = $1 and l.code = 'points'`, [game]);
  const entriesMs = performance.now() - t;
  t = performance.now();
  await admin.query('vacuum (freeze, analyze) manette.players, manette.leaderboard_entries');
  // Index-only scans need the visibility map; a concurrent autovacuum can hold the
  // horizon back during the first pass, so vacuum again until the map is complete.
  for (let i = 0; i < 5 && (await allVisible(admin)) < 0.99; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    await admin.query('vacuum (freeze) manette.leaderboard_entries');
  }
  const vacuumMs = performance.now() - t;
  console.log(`visibility map: ${(100 * (await allVisible(admin))).toFixed(1)} % of entry pages all-visible`);
  const sizes = (await admin.query(`
    select pg_size_pretty(pg_relation_size('manette.leaderboard_entries')) as heap,
           pg_size_pretty(pg_relation_size('manette.leaderboard_entries_ranking_idx')) as ranking_idx,
           pg_size_pretty(pg_relation_size('manette.leaderboard_entries_pkey')) as pkey,
           pg_size_pretty(pg_relation_size('manette.leaderboard_entries_player_idx')) as player_idx`)).rows[0];
  console.log(`\nloaded ${ROWS.toLocaleString('en')} players in ${(playersMs / 1000).toFixed(1)} s, `
    + `${ROWS.toLocaleString('en')} entries in ${(entriesMs / 1000).toFixed(1)} s, vacuum ${(vacuumMs / 1000).toFixed(1)} s`);
  console.log(`sizes: ${JSON.stringify(sizes)}`);

  // Sessions for players at several depths of the ranking (position 1 … last).
  const depths = [...new Set([0, 1000, Math.floor(ROWS / 4), Math.floor(ROWS / 2), Math.floor((3 * ROWS) / 4), ROWS - 1])]
    .filter((d) => d < ROWS);
  const sample: { depth: number; token: string }[] = [];
  for (const depth of depths) {
    const token = `pt_${randomBytes(32).toString('base64url')}`;
    await admin.query(`
      insert into manette.sessions (token_hash, game_id, player_id, expires_at)
      select manette.token_hash($1), e.game_id, e.player_id, now() + interval '1 day'
      from manette.leaderboard_entries e where e.game_id = $2
      order by e.sort_key, e.reached_at, e.player_id offset $3 limit 1`, [token, game, depth]);
    sample.push({ depth, token });
  }
  // And 1,000 random players for the concurrent submissions.
  const crowd: string[] = Array.from({ length: 1000 }, () => `pt_${randomBytes(32).toString('base64url')}`);
  await admin.query(`
    insert into manette.sessions (token_hash, game_id, player_id, expires_at)
    select manette.token_hash(t.token), $2, p.id, now() + interval '1 day'
    from unnest($1::text[]) with ordinality t(token, n)
    join (select r.id, row_number() over () as n
          from (select id from manette.players where game_id = $2 order by random() limit 1000) r) p using (n)`,
  [crowd, game]);

  // == Latency ================================================================
  console.log(`\n| operation | runs | p50 ms | p95 ms | p99 ms | max ms | |\n|---|---|---|---|---|---|---|`);
  report('GET scores, top 10', await time(RUNS * 4, () => callApi(pool, 'leaderboards_scores', ctx(), { id: 'points' })));
  report('GET scores, limit 100', await time(RUNS, () => callApi(pool, 'leaderboards_scores', ctx(), { id: 'points', limit: 100 })));
  report('GET scores, limit 10 offset 10,000', await time(RUNS, () =>
    callApi(pool, 'leaderboards_scores', ctx(), { id: 'points', limit: 10, offset: 10_000 })));
  for (const { depth, token } of sample) {
    let rank = 0;
    const s = await time(RUNS, async () => {
      // 0 never beats a stored value on a desc board: this measures the rank lookup.
      const r = await callApi<{ data: { rang: number } }>(pool, 'leaderboards_submit', ctx(token), { id: 'points', valeur: 0 });
      rank = r.data.rang;
    });
    report(`POST submit (unchanged), player at position ${(depth + 1).toLocaleString('en')}`, s, `rang ${rank.toLocaleString('en')}`);
  }
  for (const { depth, token } of sample) {
    report(`GET scores autour=moi limit 10, position ${(depth + 1).toLocaleString('en')}`, await time(RUNS, () =>
      callApi(pool, 'leaderboards_scores', ctx(token), { id: 'points', autour: 'moi', limit: 10 })));
  }

  // 8 connections, 1,000 submissions of random values by random players (mostly not
  // improving: each costs its rank count, i.e. about half the board on average).
  const latencies: number[] = [];
  let next = 0;
  t = performance.now();
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (next < crowd.length) {
      const token = crowd[next++]!;
      const start = performance.now();
      await callApi(pool, 'leaderboards_submit', ctx(token), { id: 'points', valeur: Math.floor(Math.random() * 110_000) });
      latencies.push(performance.now() - start);
    }
  }));
  const wall = performance.now() - t;
  report('POST submit, random players and values, 8 connections', stats(latencies),
    `${Math.round((crowd.length / wall) * 1000)} submissions/s`);

  // == Plans of the statements inside the functions =================================
  const explain = new pg.Client({ connectionString: server.url });
  await explain.connect();
  const plans: string[] = [];
  explain.on('notice', (n) => { if (n.message?.includes('Query Text')) plans.push(n.message); });
  await explain.query(`load 'auto_explain'`);
  await explain.query(`set auto_explain.log_min_duration = 0; set auto_explain.log_nested_statements = on;
                       set client_min_messages = log; set role manette_api`);
  const bottom = sample[sample.length - 1]!.token;
  await explain.query('select api.leaderboards_scores($1, $2)', [JSON.stringify(ctx()), JSON.stringify({ id: 'points' })]);
  await explain.query('select api.leaderboards_submit($1, $2)', [JSON.stringify(ctx(bottom)), JSON.stringify({ id: 'points', valeur: 0 })]);
  await explain.query('select api.leaderboards_scores($1, $2)', [JSON.stringify(ctx(bottom)), JSON.stringify({ id: 'points', autour: 'moi' })]);
  await explain.end();
  console.log('\nScans of manette.leaderboard_entries inside api.leaderboards_scores / api.leaderboards_submit:');
  for (const plan of plans) {
    if (!plan.includes('leaderboard_entries')) continue;
    const scan = plan.split('\n').filter((l) => /Scan.* on leaderboard_entries|Scan using leaderboard/.test(l)).map((l) => l.trim().replace(/\s+\(cost.*$/, ''));
    const query = (/Query Text: ([\s\S]*?)\n\S/.exec(plan)?.[1] ?? '').replace(/\s+/g, ' ').slice(0, 90);
    console.log(`  ${query}…\n    → ${scan.join('; ') || '(no scan of entries)'}`);
  }
} finally {
  await pool.end().catch(() => {});
  await admin.end().catch(() => {});
  await server.stop().catch(() => {});
  await rm(dir, { recursive: true, force: true });
}
