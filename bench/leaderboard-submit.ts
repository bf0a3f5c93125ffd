// api.leaderboards_submit against its limit, in one run on one throwaway Postgres 17:
//   node bin/run-ts.js bench/leaderboard-submit.ts [--players 16] [--seconds 5]
//
// `submit`: C connections (one per player) call api.leaderboards_submit as the façade does
// (as manette_api, one call each), every value an improvement on a `meilleur` board, so
// every call writes. `minimal`: the same connections run the smallest statement doing the
// same write: the entry's upsert (its triggers keep the bucket counters, as for the API),
// no authentication, no checks, no rank (as superuser). Commits not flushed, then durable.
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startEmbeddedPostgres } from '../twin/postgres/embedded.js';
import { migrate } from '../api/db/migrate.js';
import { applyGameFile } from '../api/config/apply.js';
import { closedLoop, freePort, sessionPooler } from './support.js';

const { values: opts } = parseArgs({ options: { players: { type: 'string', default: '16' }, seconds: { type: 'string', default: '5' } } });
const PLAYERS = Number(opts.players);
const SECONDS = Number(opts.seconds);

const dir = await mkdtemp(path.join(tmpdir(), 'manette-bench-submit-'));
await chmod(dir, 0o755);
const server = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: await freePort(), persistent: true });
// Reached as on a project: through the session pooler (PgBouncer playing Supavisor).
const pooler = await sessionPooler(server);
const dbUrl = pooler.url(server.url);
try {
  await migrate(dbUrl);
  const gameFile = path.join(dir, 'bench.json');
  await writeFile(gameFile, JSON.stringify({ jeu: 'bench', nom: 'Bench', classements: { score: { ordre: 'desc', operateur: 'meilleur' } } }));
  const key = (await applyGameFile(dbUrl, gameFile)).api_key;
  // A direct connection of its own: a session-level role is safe here (no pooler).
  const api = new pg.Client({ connectionString: dbUrl });
  await api.connect();
  await api.query('set role manette_api');
  const players: { token: string; id: string }[] = [];
  for (let i = 0; i < PLAYERS; i++) {
    const token = `pt_${String(i).padStart(4, '0')}${'s'.repeat(44)}`;
    const r = (await api.query('select api.players_register($1::jsonb, $2::jsonb) as r',
      [JSON.stringify({ key }), JSON.stringify({ pseudo: `sub${i}`, email: `sub${i}@bench.test`, password_hash: 'scrypt$bench', token })])).rows[0].r;
    players.push({ token, id: r.data.joueur.id });
  }
  await api.end();
  const admin = new pg.Client({ connectionString: dbUrl });
  await admin.connect();
  const { rows: [board] } = await admin.query(`select l.id, l.game_id from manette.leaderboards l where l.code = 'score'`);
  await admin.end();

  let value = 0; // shared, increasing: every submission improves its player's best
  const submit = (p: typeof players[number]): [string, unknown[]] => [
    'select api.leaderboards_submit($1::jsonb, $2::jsonb)', [JSON.stringify({ key, token: p.token }), JSON.stringify({ id: 'score', valeur: ++value })]];
  const minimal = (p: typeof players[number]): [string, unknown[]] => [
    `insert into manette.leaderboard_entries as e (leaderboard_id, period_start, player_id, game_id, value, sort_key, reached_at)
     values ($1, '-infinity', $2, $3, $4, -$4::double precision, now())
     on conflict (leaderboard_id, period_start, player_id) do update
       set value = excluded.value, sort_key = excluded.sort_key, reached_at = excluded.reached_at
       where excluded.sort_key < e.sort_key`,
    [board.id, p.id, board.game_id, ++value]];

  const rows: string[][] = [];
  for (const durable of [false, true]) {
    await closedLoop(dbUrl, players, { role: 'api', durable, seconds: SECONDS }, submit); // warm-up
    const a = await closedLoop(dbUrl, players, { role: 'api', durable, seconds: SECONDS }, submit);
    const b = await closedLoop(dbUrl, players, { role: 'admin', durable, seconds: SECONDS }, minimal);
    rows.push([`api.leaderboards_submit (${PLAYERS} players, ${durable ? 'durable' : 'commits not flushed'})`, a.toFixed(0), b.toFixed(0), (a / b).toFixed(2)]);
  }
  const header = ['path', 'submits/s', 'limit/s', 'ratio'];
  const widths = header.map((_, i) => Math.max(...[header, ...rows].map((r) => r[i]!.length)));
  for (const r of [header, ...rows]) console.log(r.map((c, i) => c.padEnd(widths[i]!)).join('  '));
  console.log(`load average during the run: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
} catch (err) {
  console.error(err);
  process.exitCode = 1;
} finally {
  await pooler.stop();
  await server.stop();
  await rm(dir, { recursive: true, force: true });
}
