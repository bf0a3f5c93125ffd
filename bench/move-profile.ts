// Where one accepted move's time goes, on one throwaway Postgres 17 (the twin):
//   npm run bench -- bench/move-profile.ts [--matches 100] [--top 14] [--timer on|off]
//
// The game is the demo's (examples/demo/game.json: its `1v1` mode plays morpion with a turn
// timer, server Elo, rewards, spectators, actions_min 2 and the victory leaderboard; web
// push notifications declared). `--matches` matches of two registered players are made
// through the api functions; each is played to its end in five moves: four ordinary ones
// (X 0, O 4, X 1, O 5) then the move that ends it (X 2). The four ordinary moves of every
// match are measured as one phase, the ending moves as another, each as the façade calls
// api.match_action (one call per move, as manette_api, commits durable), one connection.
//
// For each phase, per move: the call's time as the client sees it (median) and as Postgres
// counts it, and the CPU its server process used (/proc: the figure to compare across runs
// on a loaded machine); every function and trigger that ran (pg_stat_user_functions, track_functions
// = all): calls and time per move; the statements (pg_stat_statements, track = all, so the
// statements inside functions are there too); the rows written per table (pg_stat_user_tables:
// inserts, updates and how many of those were not HOT, i.e. wrote an entry in every index);
// WAL records, bytes and full-page images (pg_stat_wal), and by record type (pg_walinspect);
// WAL syncs (fsyncs); transaction ids assigned (1 for the move, plus one per subtransaction
// that wrote: realtime.send's).
//
// Method note: `postgres` is not a superuser on the twin (nor on a hosted project), so
// track_functions and pg_stat_statements cannot be set by a session. This bench sets them
// in its throwaway cluster only (ALTER SYSTEM as the twin's superuser, then a restart):
// shared_preload_libraries = pg_stat_statements, pg_stat_statements.track = all,
// track_functions = all. They add a little time to every call: read the times as shares.
import { chmod, mkdtemp, rm, writeFile, readFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { startEmbeddedPostgres, type RunningPostgres } from '../twin/postgres/embedded.js';
import { migrate } from '../api/db/migrate.js';
import { applyGameFile } from '../api/config/apply.js';
import { freePort, percentile } from './support.js';
import { statFields } from '../twin/procs.js';

const { values: opts } = parseArgs({
  options: {
    matches: { type: 'string', default: '100' },
    top: { type: 'string', default: '14' },
    // off: the same game with the 1v1 mode's turn timer removed (what the timer costs a move).
    timer: { type: 'string', default: 'on' },
  },
});
const MATCHES = Number(opts.matches);
const TOP = Number(opts.top);
const ROOT = path.resolve(import.meta.dirname, '..');

const dir = await mkdtemp(path.join(tmpdir(), 'manette-bench-profile-'));
await chmod(dir, 0o755);
const dataDir = path.join(dir, 'pg');
const port = await freePort();
let server: RunningPostgres = await startEmbeddedPostgres({ dataDir, port, persistent: true });

type Row = Record<string, string | number | null>;
function table(head: string[], rows: (string | number)[][]): void {
  const cells = [head, ...rows.map((r) => r.map(String))];
  const widths = head.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  for (const r of cells) console.log(r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '));
}
const f1 = (x: number) => x.toFixed(1);
const f2 = (x: number) => x.toFixed(2);

try {
  {
    const admin = new pg.Client({ connectionString: server.adminUrl });
    await admin.connect();
    await admin.query(`alter system set shared_preload_libraries = 'pg_stat_statements'`);
    await admin.query(`alter system set pg_stat_statements.track = 'all'`);
    await admin.query(`alter system set track_functions = 'all'`);
    await admin.end();
    await server.stop();
    server = await startEmbeddedPostgres({ dataDir, port, persistent: true });
  }
  const admin = new pg.Client({ connectionString: server.adminUrl });
  admin.on('error', () => {}); // the server's stop at the end
  await admin.connect();
  await admin.query('create extension if not exists pg_stat_statements with schema extensions');
  await admin.query('create extension if not exists pg_walinspect with schema extensions');

  await migrate(server.url);
  const gameFile = path.join(dir, 'demo.json');
  const demo = JSON.parse(await readFile(path.join(ROOT, 'examples', 'demo', 'game.json'), 'utf8'));
  if (opts.timer === 'off') {
    delete demo.modes['1v1'].delai_tour_s;
    delete demo.modes['1v1'].sur_delai;
  }
  await writeFile(gameFile, JSON.stringify(demo));
  const key = (await applyGameFile(server.url, gameFile)).api_key;

  // The moves' connection: the twin's superuser acting as manette_api (as the façade's
  // role), so that it can also force its statistics out between phases.
  const c = new pg.Client({ connectionString: server.adminUrl });
  c.on('error', () => {});
  await c.connect();
  await c.query('set role manette_api');
  // Its server process: the CPU it uses per move (/proc), which the machine's load does not inflate as it does times.
  const backend = Number((await c.query('select pg_backend_pid() as p')).rows[0].p);
  const backendCpu = () => { const f = statFields(backend); return f ? (Number(f[11]) + Number(f[12])) / 100 : NaN; };
  const call = async (fn: string, ctx: object, body: object) =>
    (await c.query(`select api.${fn}($1::jsonb, $2::jsonb) as r`, [JSON.stringify(ctx), JSON.stringify(body)])).rows[0].r;

  const matches: { id: string; tokens: [string, string] }[] = [];
  const make = async (i: number) => {
    const tokens = [0, 1].map((k) => `pt_${String(i).padStart(5, '0')}${k}${'c'.repeat(42)}`) as [string, string];
    for (const [k, token] of tokens.entries()) {
      await call('players_register', { key }, { pseudo: `p${i}_${k}`, email: `p${i}_${k}@bench.test`, password_hash: 'scrypt$bench', token });
    }
    await call('matchmaking_join', { key, token: tokens[0] }, { mode_jeu: '1v1', elo_actuel: 1000 });
    const joined = await call('matchmaking_join', { key, token: tokens[1] }, { mode_jeu: '1v1', elo_actuel: 1000 });
    if (joined.status !== 'matched') throw new Error(`not matched: ${JSON.stringify(joined)}`);
    // The first seat (X) plays first.
    const first = (await call('match_state', { key, token: tokens[0] }, { partie_id: joined.partie_id }));
    const turn = (first.partie ?? first).tour_joueur as string;
    const x = (first.partie ?? first).participants[0].joueur_id as string;
    if (turn !== x) throw new Error(`unexpected first player: ${JSON.stringify(first)}`);
    return { id: joined.partie_id as string, tokens };
  };
  const ORDINARY = [0, 4, 1, 5];
  const ENDING = 2;
  const move = async (m: { id: string; tokens: [string, string] }, n: number, cell: number) => {
    const t0 = performance.now();
    const r = await call('match_action', { key, token: m.tokens[n % 2] }, { partie_id: m.id, action: 'jouer', donnees: { case: cell } });
    const ms = performance.now() - t0;
    if (!r.partie) throw new Error(`move refused: ${JSON.stringify(r)}`);
    return { ms, partie: r.partie };
  };

  // Warm-up: a few whole matches (plans cached in this session, pages in memory).
  for (let i = 0; i < 10; i++) {
    const m = await make(100000 + i);
    for (const [n, cell] of ORDINARY.entries()) await move(m, n, cell);
    await move(m, 4, ENDING);
  }
  for (let i = 0; i < MATCHES; i++) matches.push(await make(i));
  // Only the moves in pg_stat_statements (the migrations' thousands of statements evicted).
  await admin.query('select extensions.pg_stat_statements_reset()');

  type Snap = { fns: Row[]; stmts: Row[]; tables: Row[]; wal: Row; next: bigint; lsn: string; cpu: number };
  const snapshot = async (): Promise<Snap> => {
    const cpu = backendCpu();
    await c.query('reset role');
    await c.query('select pg_stat_force_next_flush()');
    await c.query('set role manette_api');
    await sleep(300);
    await admin.query('select pg_stat_clear_snapshot()');
    const q = async (sql: string) => (await admin.query(sql)).rows as Row[];
    return {
      fns: await q(`select schemaname || '.' || funcname as name, calls::float8 as calls, total_time as total, self_time as self from pg_stat_user_functions`),
      stmts: await q(`select queryid::text as id, toplevel::text as top, regexp_replace(query, '\\s+', ' ', 'g') as query,
                             calls::float8 as calls, total_exec_time as total, rows::float8 as rows
                      from extensions.pg_stat_statements where dbid = (select oid from pg_database where datname = current_database())`),
      tables: await q(`select schemaname || '.' || relname as name, n_tup_ins::float8 as ins, n_tup_upd::float8 as upd,
                              n_tup_hot_upd::float8 as hot, n_tup_del::float8 as del,
                              (select count(*) from pg_index i join pg_class ic on ic.oid = i.indexrelid join pg_am am on am.oid = ic.relam
                               where i.indrelid = t.relid and am.amname <> 'brin')::float8 as indexes
                       from pg_stat_user_tables t`),
      wal: (await q(`select wal_records::float8 as records, wal_fpi::float8 as fpi, wal_bytes::float8 as bytes,
                            wal_write::float8 as writes, wal_sync::float8 as syncs from pg_stat_wal`))[0]!,
      next: BigInt((await q(`select txid_snapshot_xmax(txid_current_snapshot())::text as x`))[0]!.x as string),
      lsn: (await q('select pg_current_wal_lsn()::text as l'))[0]!.l as string,
      cpu,
    };
  };
  const byKey = (rows: Row[], k: string) => new Map(rows.map((r) => [String(r[k]), r]));
  const diff = <K extends string>(a: Row | undefined, b: Row, cols: K[]) =>
    Object.fromEntries(cols.map((col) => [col, Number(b[col] ?? 0) - Number(a?.[col] ?? 0)])) as Record<K, number>;

  const summary: (string | number)[][] = [];
  const report = async (label: string, before: Snap, after: Snap, times: number[], moves: number) => {
    times.sort((x, y) => x - y);
    const walBytes = Number((await admin.query('select pg_wal_lsn_diff($1, $2)::float8 as d', [after.lsn, before.lsn])).rows[0].d);
    const top = after.stmts.filter((s) => s.top === 'true' && String(s.query).includes('api.match_action'));
    const topBefore = byKey(before.stmts, 'id');
    const serverMs = top.reduce((s, r) => s + diff(topBefore.get(String(r.id)), r, ['total']).total!, 0) / moves;
    const w = diff(before.wal, after.wal, ['records', 'fpi', 'bytes', 'writes', 'syncs']);
    console.log(`\n## ${label}: ${moves} moves, one connection, durable`);
    table(['per move', 'value'], [
      ['time, client (median / p90 ms)', `${f2(percentile(times, 0.5))} / ${f2(percentile(times, 0.9))}`],
      ['time, server (mean ms, pg_stat_statements)', f2(serverMs)],
      ['CPU of the server process (ms, /proc: user + system)', f2((after.cpu - before.cpu) * 1000 / moves)],
      ['WAL records', f1(w.records! / moves)],
      ['WAL bytes (pg_stat_wal / LSN diff)', `${(w.bytes! / moves).toFixed(0)} / ${(walBytes / moves).toFixed(0)}`],
      ['WAL full-page images', f2(w.fpi! / moves)],
      ['WAL writes / syncs (fsyncs)', `${f2(w.writes! / moves)} / ${f2(w.syncs! / moves)}`],
      ['transaction ids assigned (1 + subtransactions that wrote)', f2(Number(after.next - before.next) / moves)],
    ]);

    const kinds = (await admin.query(
      `select "resource_manager/record_type" as kind, count::float8 as n, combined_size::float8 as bytes
       from extensions.pg_get_wal_stats($1::pg_lsn, $2::pg_lsn, true) where count > 0 order by combined_size desc`,
      [before.lsn, after.lsn])).rows as { kind: string; n: number; bytes: number }[];
    console.log('\nWAL by record type (pg_walinspect; the whole machine\'s, over the phase)');
    table(['record', 'records/move', 'bytes/move'], kinds.filter((k) => k.n / moves >= 0.05)
      .map((k) => [k.kind, f2(k.n / moves), (k.bytes / moves).toFixed(0)]));

    const fb0 = byKey(before.fns, 'name');
    const triggersRun = after.fns.filter((r) => /^manette\.(match_(count_end|credit_victory|rate|reward|players_sync_live|turn_timer|announce|keep_initial_board)|notify_(match|seat))$/.test(String(r.name)))
      .reduce((n, r) => n + diff(fb0.get(String(r.name)), r, ['calls']).calls, 0);
    summary.push([label.split(' (')[0]!, f2(percentile(times, 0.5)), f2(serverMs), f2((after.cpu - before.cpu) * 1000 / moves), (w.bytes! / moves).toFixed(0), f1(w.records! / moves),
      f2(w.syncs! / moves), f2(Number(after.next - before.next) / moves), f2(triggersRun / moves)]);

    const fb = byKey(before.fns, 'name');
    const fns = after.fns.map((r) => ({ name: String(r.name), ...diff(fb.get(String(r.name)), r, ['calls', 'total', 'self']) }))
      .filter((r) => r.calls! > 0 && !r.name.startsWith('extensions.')).sort((a, b) => b.total! - a.total!);
    console.log('\nfunctions and triggers (track_functions = all)');
    table(['function', 'calls/move', 'total µs/move', 'self µs/move'],
      fns.map((r) => [r.name, f2(r.calls! / moves), f1(r.total! * 1000 / moves), f1(r.self! * 1000 / moves)]));

    const sb = byKey(before.stmts, 'id');
    const stmts = after.stmts.map((r) => ({ query: String(r.query), top: r.top, ...diff(sb.get(String(r.id)), r, ['calls', 'total', 'rows']) }))
      .filter((r) => r.calls! > 0 && r.top === 'false').sort((a, b) => b.total! - a.total!);
    console.log(`\nstatements inside the call (pg_stat_statements, track = all; nested ones include their callees' time), top ${TOP}`);
    table(['statement', 'calls/move', 'µs/move'],
      stmts.slice(0, TOP).map((r) => [r.query.length > 110 ? `${r.query.slice(0, 107)}...` : r.query, f2(r.calls! / moves), f1(r.total! * 1000 / moves)]));
    console.log(`(${stmts.length} distinct statements ran; ${f1(stmts.reduce((s, r) => s + r.calls!, 0) / moves)} statement executions per move)`);

    const tb = byKey(before.tables, 'name');
    const tabs = after.tables.map((r) => ({ name: String(r.name), indexes: Number(r.indexes), ...diff(tb.get(String(r.name)), r, ['ins', 'upd', 'hot', 'del']) }))
      .filter((r) => r.ins! + r.upd! + r.del! > 0).sort((a, b) => a.name.localeCompare(b.name));
    console.log('\nrows written per table (index entries: inserts and non-HOT updates × the table\'s btree indexes, partial ones included: at most)');
    table(['table', 'inserted', 'updated', 'of which HOT', 'deleted', 'index entries'],
      tabs.map((r) => [r.name, f2(r.ins! / moves), f2(r.upd! / moves), f2(r.hot! / moves), f2(r.del! / moves),
        f2((r.ins! + r.upd! - r.hot!) * r.indexes / moves)]));
  };

  // Ordinary moves: the four of every match.
  let before = await snapshot();
  const ordinaryTimes: number[] = [];
  for (const m of matches) {
    for (const [n, cell] of ORDINARY.entries()) ordinaryTimes.push((await move(m, n, cell)).ms);
  }
  let after = await snapshot();
  await report('Ordinary move (the match goes on)', before, after, ordinaryTimes, ordinaryTimes.length);

  // The moves that end a match (X wins): victory, Elo, rewards, live list, notifications.
  before = after;
  const endingTimes: number[] = [];
  for (const m of matches) {
    const r = await move(m, 4, ENDING);
    if (r.partie.statut !== 'terminee') throw new Error(`the match did not end: ${JSON.stringify(r.partie)}`);
    endingTimes.push(r.ms);
  }
  after = await snapshot();
  await report('Move that ends the match (X wins)', before, after, endingTimes, endingTimes.length);

  console.log('\n## Per move, in short');
  table(['move', 'client p50 ms', 'server ms', 'server CPU ms', 'WAL bytes', 'WAL records', 'fsyncs', 'xids', 'trigger calls'], summary);
  console.log(`\nload average during the run: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  await c.end();
  await admin.end();
} finally {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
}
