// api.match_action against its limit, in one run on one throwaway Postgres 17:
//   node bin/run-ts.js bench/match-action.ts [--matches 10] [--seconds 5] [--rules libre]
//
// `action`: C connections (one per match) call api.match_action as the façade does (as
// manette_api, one call per action, two players taking turns). `minimal`: the same
// connections run the smallest transaction doing the same writes, in one statement: update
// the match row (its last history number too), insert the history row, two realtime.send (the `action` and `etat`
// events), no authentication, no rules, no RLS (as superuser). Both with commits not
// flushed (synchronous_commit off) and durable (on; fsync on). Prints actions/s and the
// ratio action / minimal for each.
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startEmbeddedPostgres } from '../twin/postgres/embedded.js';
import { migrate } from '../api/db/migrate.js';
import { applyGameFile } from '../api/config/apply.js';
import { closedLoop, freePort, sessionPooler } from './support.js';

const { values: opts } = parseArgs({
  options: {
    matches: { type: 'string', default: '10' },
    seconds: { type: 'string', default: '5' },
    rules: { type: 'string', default: 'libre' },
  },
});
const MATCHES = Number(opts.matches);
const SECONDS = Number(opts.seconds);

const dir = await mkdtemp(path.join(tmpdir(), 'manette-bench-action-'));
await chmod(dir, 0o755);
// Durable server (fsync on); each phase sets synchronous_commit per session.
const server = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: await freePort(), persistent: true });
// Reached as on a project: through the session pooler (PgBouncer playing Supavisor).
const pooler = await sessionPooler(server);
const dbUrl = pooler.url(server.url);
try {
  await migrate(dbUrl);
  const gameFile = path.join(dir, 'bench.json');
  await writeFile(gameFile, JSON.stringify({
    jeu: 'bench', nom: 'Bench', modes: { duel: { equipes: 2, joueurs_par_equipe: 1, regles: opts.rules, elo_ecart_initial: 10000 } },
  }));
  const key = (await applyGameFile(dbUrl, gameFile)).api_key;

  // Players and matches through the api functions, as the façade calls them.
  // A direct connection of its own: a session-level role is safe here (no pooler).
  const api = new pg.Client({ connectionString: dbUrl });
  await api.connect();
  await api.query('set role manette_api');
  const call = async (fn: string, ctx: object, body: object) =>
    (await api.query(`select api.${fn}($1::jsonb, $2::jsonb) as r`, [JSON.stringify(ctx), JSON.stringify(body)])).rows[0].r;
  const matches: { id: string; tokens: [string, string] }[] = [];
  for (let i = 0; i < MATCHES; i++) {
    const tokens = [0, 1].map((k) => `pt_${String(i).padStart(4, '0')}${k}${'b'.repeat(43)}`) as [string, string];
    for (const [k, token] of tokens.entries()) {
      await call('players_register', { key }, { pseudo: `p${i}_${k}`, email: `p${i}_${k}@bench.test`, password_hash: 'scrypt$bench', token });
    }
    await call('matchmaking_join', { key, token: tokens[0] }, { mode_jeu: 'duel', elo_actuel: 1000 });
    const joined = await call('matchmaking_join', { key, token: tokens[1] }, { mode_jeu: 'duel', elo_actuel: 1000 });
    if (joined.status !== 'matched') throw new Error(`not matched: ${JSON.stringify(joined)}`);
    matches.push({ id: joined.partie_id, tokens });
  }
  await api.end();


  const action = (m: typeof matches[number], n: number): [string, unknown[]] => [
    'select api.match_action($1::jsonb, $2::jsonb)',
    [JSON.stringify({ key, token: m.tokens[n % 2] }), JSON.stringify({ partie_id: m.id, action: 'jouer', donnees: { n } })],
  ];
  const minimal = (m: typeof matches[number], n: number): [string, unknown[]] => [
    `with moved as (
       update manette.matches set board = $2::jsonb, turn_number = turn_number + 1, updated_at = clock_timestamp(),
         last_action_seq = last_action_seq + 1
       where id = $1 returning id, game_id, turn_number, board, last_action_seq),
     logged as (
       insert into manette.match_actions (match_id, seq, game_id, player_id, action, data, turn_number)
       select id, last_action_seq, game_id, null, 'jouer', $2::jsonb, turn_number
       from moved)
     select realtime.send(jsonb_build_object('action', 'jouer', 'donnees', $2::jsonb), 'action', 'manette_partie_' || id, true),
            realtime.send(jsonb_build_object('etat_plateau', board, 'numero_tour', turn_number), 'etat', 'manette_partie_' || id, true)
     from moved`,
    [m.id, JSON.stringify({ n })],
  ];

  const rows: string[][] = [];
  for (const durable of [false, true]) {
    await closedLoop(dbUrl, matches, { role: 'api', durable, seconds: SECONDS }, action); // warm-up (plans, caches)
    const a = await closedLoop(dbUrl, matches, { role: 'api', durable, seconds: SECONDS }, action);
    const b = await closedLoop(dbUrl, matches, { role: 'admin', durable, seconds: SECONDS }, minimal);
    rows.push([`api.match_action (${opts.rules}, ${MATCHES} matches, ${durable ? 'durable' : 'commits not flushed'})`,
      a.toFixed(0), b.toFixed(0), (a / b).toFixed(2)]);
  }
  const widths = [0, 1, 2, 3].map((i) => Math.max(...[['path', 'actions/s', 'limit/s', 'ratio'], ...rows].map((r) => r[i]!.length)));
  for (const r of [['path', 'actions/s', 'limit/s', 'ratio'], ...rows]) console.log(r.map((c, i) => c.padEnd(widths[i]!)).join('  '));
  console.log(`load average during the run: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
} finally {
  await pooler.stop();
  await server.stop();
  await rm(dir, { recursive: true, force: true });
}
