// Leaderboard benchmark: one board with 1,000,000 entries (one per player) in a throwaway
// embedded Postgres, then the latency of the real api.* functions, called the way the
// façade calls them (callApi, role manette_api, one round trip):
//   - top 10 and pages deep into the board (offsets up to the last entry),
//   - the rank of one player (a submission that does not change the value) and the
//     window around a player (autour=moi), for players at several depths,
//   - concurrent submissions (8 connections, no retry, so a deadlock would show as an
//     error): random players and values; 1,000 players all improving into the same
//     bucket (one hot counter row); players swinging between two buckets in opposite
//     directions on a `dernier` board (crossing counter updates),
// then checks that every bucket counter still equals its entries, and prints the plans of
// the statements inside those functions (auto_explain).
//
//   node bin/run-ts.js bench/leaderboards.ts [--rows 1000000] [--runs 50] [--durable]
//
// The throwaway cluster runs with fsync, synchronous_commit and full_page_writes off,
// like the tests; --durable keeps Postgres's defaults (every commit waits for its WAL
// flush), which is what a counter row updated by every submission has to wait for in
// production: a submission holds its counter rows until its commit is flushed.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { startEmbeddedPostgres } from '../twin/postgres/embedded.js';
import { planLoggingClient } from '../twin/postgres/plans.js';
import { migrate } from '../api/db/migrate.js';
import { apiStatement, callApi, createPool, type RequestContext } from '../api/db/pool.js';
import { freePort, sessionPooler } from './support.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(v) || v < 1) throw new Error(`--${name} expects a positive integer`);
  return v;
}

const ROWS = arg('rows', 1_000_000);
const RUNS = arg('runs', 50);
const DURABLE = process.argv.includes('--durable');
const KEY = `sk_live_${'B'.repeat(40)}`;

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
// `persistent` only chooses the durability flags here: the directory is removed below either way.
const server = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: await freePort(), persistent: DURABLE });
// Reached as on a project: through the session pooler (PgBouncer playing Supavisor).
const pooler = await sessionPooler(server);
const dbUrl = pooler.url(server.url);
const admin = new pg.Client({ connectionString: dbUrl });
const pool = createPool(dbUrl, { role: 'manette_api', max: 8 });
try {
  await admin.connect();
  await migrate(dbUrl);
  const ctx = (token?: string): RequestContext => ({ key: KEY, token, origin: undefined, base_url: 'http://bench' });

  // == Load ===================================================================
  await admin.query(`select manette_admin.apply_game($1, $2)`,
    [JSON.stringify({ jeu: 'bench', nom: 'Bench', classements: {
      points: { ordre: 'desc', operateur: 'meilleur' },
      bascule: { operateur: 'dernier' },
    } }), KEY]);
  const game = (await admin.query(`select id from manette.games where slug = 'bench'`)).rows[0].id as string;
  let t = performance.now();
  await admin.query(`insert into manette.players (game_id, pseudo)
                     select $1, 'joueur_' || i from generate_series(1, $2::integer) i`, [game, ROWS]);
  const playersMs = performance.now() - t;
  t = performance.now();
  // Values 0..99,999: about ten players per value, so ties are everywhere. The statement
  // trigger fills the bucket counters in the same statement.
  await admin.query(`
    insert into manette.leaderboard_entries (leaderboard_id, period_start, player_id, game_id, value, sort_key, reached_at)
    select l.id, '-infinity', p.id, p.game_id, v.value, -v.value, now() - random() * interval '30 days'
    from manette.leaderboards l
    join manette.players p on p.game_id = l.game_id
    cross join lateral (select floor(random() * 100000)::double precision + 0 * length(p.pseudo) as value) v
    where l.game_id = $1 and l.code = 'points'`, [game]);
  const entriesMs = performance.now() - t;
  t = performance.now();
  await admin.query('vacuum (freeze, analyze) manette.players, manette.leaderboard_entries, manette.leaderboard_buckets');
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
           pg_size_pretty(pg_relation_size('manette.leaderboard_entries_player_idx')) as player_idx,
           pg_size_pretty(pg_total_relation_size('manette.leaderboard_buckets')) as buckets,
           (select count(*) from manette.leaderboard_buckets) as bucket_rows,
           (select max(entries) from manette.leaderboard_buckets) as largest_bucket`)).rows[0];
  console.log(`\nloaded ${ROWS.toLocaleString('en')} players in ${(playersMs / 1000).toFixed(1)} s, `
    + `${ROWS.toLocaleString('en')} entries in ${(entriesMs / 1000).toFixed(1)} s, vacuum ${(vacuumMs / 1000).toFixed(1)} s`);
  console.log(`sizes: ${JSON.stringify(sizes)}`);
  console.log(`commits: ${DURABLE ? 'durable (fsync, synchronous_commit on)' : 'not flushed (fsync, synchronous_commit off)'}`);

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
  for (const offset of [...new Set([10_000, Math.floor(ROWS / 2), ROWS - 10])].filter((o) => o > 0 && o < ROWS)) {
    report(`GET scores, limit 10 offset ${offset.toLocaleString('en')}`, await time(RUNS, () =>
      callApi(pool, 'leaderboards_scores', ctx(), { id: 'points', limit: 10, offset })));
  }
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

  // == Concurrent submissions ========================================================
  // 8 connections; the statement callApi sends, without its retries: a deadlock or a
  // serialization failure (class 40) is counted as an error instead of being hidden.
  async function concurrently(what: string, jobs: { token: string; valeur: number; board: string }[]) {
    const latencies: number[] = [];
    const errors: Record<string, number> = {};
    let next = 0;
    const start = performance.now();
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (next < jobs.length) {
        const job = jobs[next++]!;
        const t0 = performance.now();
        try {
          await pool.query(pool.identityPrefix + apiStatement('leaderboards_submit', ctx(job.token), { id: job.board, valeur: job.valeur }));
        } catch (err) {
          const code = (err as { code?: string }).code ?? 'other';
          errors[code] = (errors[code] ?? 0) + 1;
        }
        latencies.push(performance.now() - t0);
      }
    }));
    const wall = performance.now() - start;
    const failed = Object.entries(errors).map(([code, n]) => `${n} × ${code}`).join(', ') || 'no error';
    report(what, stats(latencies), `${Math.round((jobs.length / wall) * 1000)} submissions/s, ${failed}`);
  }

  // Random players and values 0..109,999 (some improve and move between buckets; each
  // answers its exact rank).
  await concurrently('POST submit, random players and values, 8 connections',
    crowd.map((token) => ({ token, board: 'points', valeur: Math.floor(Math.random() * 110_000) })));
  // The same 1,000 players all reach 200,000: each leaves its bucket for the same new one,
  // whose counter row every submission updates.
  await concurrently('POST submit, 1,000 players improving into one bucket (hot counter), 8 connections',
    crowd.map((token) => ({ token, board: 'points', valeur: 200_000 })));
  // `bascule` (dernier): half of the players at 10, half at 20, then everyone swings to
  // the other value and back: moves between the two counters in both directions at once.
  await admin.query(`
    insert into manette.leaderboard_entries (leaderboard_id, period_start, player_id, game_id, value, sort_key, reached_at)
    select l.id, '-infinity', s.player_id, s.game_id, v, -v, now()
    from manette.leaderboards l join manette.sessions s on s.game_id = l.game_id
    cross join lateral (select case when get_byte(s.token_hash, 0) % 2 = 0 then 10 else 20 end::double precision as v) x
    where l.code = 'bascule' and l.game_id = $1
    on conflict do nothing`, [game]);
  const swings = (await admin.query(`
    select t.token, e.value from unnest($1::text[]) t(token)
    join manette.sessions s on s.token_hash = manette.token_hash(t.token)
    join manette.leaderboard_entries e on e.player_id = s.player_id
    join manette.leaderboards l on l.id = e.leaderboard_id and l.code = 'bascule'`, [crowd])).rows as { token: string; value: number }[];
  await concurrently('POST submit, 1,000 players swinging 10 ↔ 20 (crossing counters), 2 × 1,000, 8 connections',
    [...swings.map((s) => ({ token: s.token, board: 'bascule', valeur: s.value === 10 ? 20 : 10 })),
      ...swings.map((s) => ({ token: s.token, board: 'bascule', valeur: s.value }))]);

  // Every counter equals the entries of its bucket after all of that.
  const drift = (await admin.query(`
    select count(*)::int as n from manette.leaderboard_buckets c
    full join (select game_id, leaderboard_id, period_start, bucket, count(*) as n from manette.leaderboard_entries group by 1, 2, 3, 4) x
      using (game_id, leaderboard_id, period_start, bucket)
    where coalesce(c.entries, 0) <> coalesce(x.n, 0)`)).rows[0].n as number;
  console.log(`\nbucket counters that differ from their entries: ${drift}`);
  if (drift !== 0) process.exitCode = 1;

  // == Plans of the statements inside the functions =================================
  const explain = await planLoggingClient(server.adminUrl, { role: 'manette_api' });
  const plans: string[] = [];
  explain.on('notice', (n) => { if (n.message?.includes('Query Text')) plans.push(n.message); });
  const bottom = sample[sample.length - 1]!.token;
  await explain.query('select api.leaderboards_scores($1, $2)', [JSON.stringify(ctx()), JSON.stringify({ id: 'points' })]);
  await explain.query('select api.leaderboards_submit($1, $2)', [JSON.stringify(ctx(bottom)), JSON.stringify({ id: 'points', valeur: 0 })]);
  await explain.query('select api.leaderboards_scores($1, $2)', [JSON.stringify(ctx(bottom)), JSON.stringify({ id: 'points', autour: 'moi' })]);
  await explain.query('select api.leaderboards_scores($1, $2)', [JSON.stringify(ctx()), JSON.stringify({ id: 'points', offset: ROWS - 10 })]);
  await explain.end();
  console.log('\nScans of the entries and counters inside api.leaderboards_scores / api.leaderboards_submit:');
  for (const plan of plans) {
    if (!/leaderboard_(entries|buckets)/.test(plan)) continue;
    const scan = plan.split('\n').filter((l) => /Scan.* on leaderboard_(entries|buckets)|Scan using leaderboard/.test(l)).map((l) => l.trim().replace(/\s+\(cost.*$/, ''));
    const query = (/Query Text: ([\s\S]*?)\n\S/.exec(plan)?.[1] ?? '').replace(/\s+/g, ' ').slice(0, 90);
    console.log(`  ${query}…\n    → ${scan.join('; ') || '(no scan of entries)'}`);
  }
} finally {
  await pool.end().catch(() => {});
  await admin.end().catch(() => {});
  await pooler.stop().catch(() => {});
  await server.stop().catch(() => {});
  await rm(dir, { recursive: true, force: true });
}
