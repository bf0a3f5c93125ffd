// api.match_action against its limit, in one run on one throwaway Postgres 17:
//   node bin/run-ts.js bench/match-action.ts [--matches 10] [--seconds 5] [--rules libre] [--waits]
//
// Two modes of one game, each measured on its own: `duel` (--rules, no timer, no rating, no
// reward: the match row, the history and the room's events only) and `1v1`, the demo's 1v1
// settings (examples/demo/game.json: a 30 s turn timer, server Elo, rewards, spectators,
// actions_min 2, the victory leaderboard) with tour_par_tour rules, so that the turn changes
// hands on every move, as in morpion, and a match never ends.
//
// `action`: C connections (one per match) call api.match_action as the façade does (as
// manette_api, one call per action, two players taking turns). `minimal`: the same
// connections run the smallest transaction doing the same writes, in one statement: update
// the match row (its board, turn number, last history number and time; for `1v1` also the
// player on turn and the turn's deadline, as a move there must), insert the history row, two
// realtime.send (the `action` and `etat` events), no authentication, no rules, no RLS (as
// superuser). Both with commits not flushed (synchronous_commit off) and durable (on; fsync
// on). Prints actions/s and the ratio action / minimal for each.
//
// --waits: during each measured loop, another connection (the twin's superuser, direct)
// reads pg_stat_activity every 5 ms and counts what the loop's active backends wait on
// (wait_event_type:wait_event, `CPU` when none); printed as shares of the active backends
// seen. The sampler costs a little CPU: compare ratios from runs without it.
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { startEmbeddedPostgres } from '../twin/postgres/embedded.js';
import { migrate } from '../api/db/migrate.js';
import { applyGameFile } from '../api/config/apply.js';
import { closedLoop, freePort, reportRatio, sessionPooler, type RatioGoal } from './support.js';

const { values: opts } = parseArgs({
  options: {
    matches: { type: 'string', default: '10' },
    seconds: { type: 'string', default: '5' },
    rules: { type: 'string', default: 'libre' },
    waits: { type: 'boolean', default: false },
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
    jeu: 'bench', nom: 'Bench',
    monnaies: { or: { nom: 'Or', depart: 0 } },
    classements: { victoires: { ordre: 'desc', operateur: 'somme' } },
    modes: {
      duel: { equipes: 2, joueurs_par_equipe: 1, regles: opts.rules, elo_ecart_initial: 10000 },
      '1v1': {
        equipes: 2, joueurs_par_equipe: 1, regles: 'tour_par_tour', elo_ecart_initial: 10000,
        classement_victoires: 'victoires', elo: 'serveur', delai_tour_s: 30, sur_delai: 'abandon', spectateurs: true, actions_min: 2,
        recompenses: { victoire: { monnaies: { or: 50 } }, nul: { monnaies: { or: 20 } }, defaite: { monnaies: { or: 10 } } },
      },
    },
  }));
  const key = (await applyGameFile(dbUrl, gameFile)).api_key;

  // Players and matches through the api functions, as the façade calls them.
  // A direct connection of its own: a session-level role is safe here (no pooler).
  const api = new pg.Client({ connectionString: dbUrl });
  await api.connect();
  await api.query('set role manette_api');
  const call = async (fn: string, ctx: object, body: object) =>
    (await api.query(`select api.${fn}($1::jsonb, $2::jsonb) as r`, [JSON.stringify(ctx), JSON.stringify(body)])).rows[0].r;
  // `moves`: the moves applied so far by either loop; the player on turn plays the next one.
  type Match = { id: string; tokens: [string, string]; players: [string, string]; moves: number };
  const makeMatches = async (mode: string, offset: number): Promise<Match[]> => {
    const made: Match[] = [];
    for (let i = offset; i < offset + MATCHES; i++) {
      const tokens = [0, 1].map((k) => `pt_${String(i).padStart(4, '0')}${k}${'b'.repeat(43)}`) as [string, string];
      for (const [k, token] of tokens.entries()) {
        await call('players_register', { key }, { pseudo: `p${i}_${k}`, email: `p${i}_${k}@bench.test`, password_hash: 'scrypt$bench', token });
      }
      await call('matchmaking_join', { key, token: tokens[0] }, { mode_jeu: mode, elo_actuel: 1000 });
      const joined = await call('matchmaking_join', { key, token: tokens[1] }, { mode_jeu: mode, elo_actuel: 1000 });
      if (joined.status !== 'matched') throw new Error(`not matched: ${JSON.stringify(joined)}`);
      // Who plays first: the loop's move n is played by tokens[n % 2].
      const state = await call('match_state', { key, token: tokens[0] }, { partie_id: joined.partie_id });
      const partie = state.partie ?? state;
      const id = (k: number) => (partie.participants as { joueur_id: string; pseudo: string }[]).find((p) => p.pseudo === `p${i}_${k}`)!.joueur_id;
      const swap = partie.tour_joueur === id(1);
      made.push({
        id: joined.partie_id,
        tokens: swap ? [tokens[1], tokens[0]] : tokens,
        players: swap ? [id(1), id(0)] : [id(0), id(1)],
        moves: 0,
      });
    }
    return made;
  };


  const action = (m: Match, n: number): [string, unknown[]] => [
    'select api.match_action($1::jsonb, $2::jsonb)',
    [JSON.stringify({ key, token: m.tokens[m.moves++ % 2] }), JSON.stringify({ partie_id: m.id, action: 'jouer', donnees: { n } })],
  ];
  // The same writes as a move: the match row, the history row, the two realtime rows; `timed`:
  // with a turn timer and a turn that changes hands, the player on turn and its deadline too.
  const minimalMove = (timed: boolean) => (m: Match, n: number): [string, unknown[]] => [
    `with moved as (
       update manette.matches set board = $2::jsonb, turn_number = turn_number + 1, updated_at = clock_timestamp(),
         last_action_seq = last_action_seq + 1${timed ? `, turn_player_id = $3::uuid,
         turn_expires_at = clock_timestamp() + interval '30 seconds'` : ''}
       where id = $1 returning id, game_id, turn_number, board, last_action_seq),
     logged as (
       insert into manette.match_actions (match_id, seq, game_id, player_id, action, data, turn_number)
       select id, last_action_seq, game_id, null, 'jouer', $2::jsonb, turn_number
       from moved)
     select realtime.send(jsonb_build_object('action', 'jouer', 'donnees', $2::jsonb), 'action', 'manette_partie_' || id, true),
            realtime.send(jsonb_build_object('etat_plateau', board, 'numero_tour', turn_number), 'etat', 'manette_partie_' || id, true)
     from moved`,
    timed ? [m.id, JSON.stringify({ n }), m.players[++m.moves % 2]] : [m.id, JSON.stringify({ n })],
  ];
  const minimal = minimalMove(false);
  const minimalTimed = minimalMove(true);

  // --waits: what the loop's active backends wait on, sampled from pg_stat_activity.
  const waitRows: { label: string; samples: number; counts: Map<string, number> }[] = [];
  const withWaits = async <T,>(label: string, run: () => Promise<T>): Promise<T> => {
    if (!opts.waits) return run();
    const sampler = new pg.Client({ connectionString: server.adminUrl });
    await sampler.connect();
    const counts = new Map<string, number>();
    let samples = 0;
    let stop = false;
    const sampling = (async () => {
      while (!stop) {
        const r = await sampler.query<{ w: string; n: string }>(
          `select coalesce(wait_event_type || ':' || wait_event, 'CPU') as w, count(*) as n
           from pg_stat_activity
           where state = 'active' and backend_type = 'client backend' and pid <> pg_backend_pid()
             and usename <> 'pgbouncer'
           group by 1`);
        samples++;
        for (const row of r.rows) counts.set(row.w, (counts.get(row.w) ?? 0) + Number(row.n));
        await sleep(5);
      }
    })();
    try {
      return await run();
    } finally {
      stop = true;
      await sampling;
      await sampler.end();
      waitRows.push({ label, samples, counts });
    }
  };
  const rows: string[][] = [];
  const ratios: [string, number, RatioGoal][] = [];
  for (const [label, mode, offset, limit] of [
    [`${opts.rules}, no timer`, 'duel', 0, minimal], ['demo 1v1 settings, tour_par_tour', '1v1', 1000, minimalTimed],
  ] as const) {
    // Made just before their loops: a 1v1 turn left 30 s unplayed ends its match.
    const matches = await makeMatches(mode, offset);
    for (const durable of [false, true]) {
      await closedLoop(dbUrl, matches, { role: 'api', durable, seconds: SECONDS }, action); // warm-up (plans, caches)
      const name = `api.match_action (${label}, ${MATCHES} matches, ${durable ? 'durable' : 'commits not flushed'})`;
      const a = await withWaits(name, () => closedLoop(dbUrl, matches, { role: 'api', durable, seconds: SECONDS }, action));
      const b = await withWaits(`its minimal transaction (${label}, ${durable ? 'durable' : 'not flushed'})`,
        () => closedLoop(dbUrl, matches, { role: 'admin', durable, seconds: SECONDS }, limit));
      rows.push([name, a.toFixed(0), b.toFixed(0), (a / b).toFixed(2)]);
      // The goals: ≥ 1/3 not flushed and ≥ 0.6 durable (the plain mode); ≥ 0.33 durable with the demo's 1v1 settings.
      const goal: RatioGoal | undefined = mode === 'duel' ? { atLeast: durable ? 0.6 : 0.33 } : durable ? { atLeast: 0.33 } : undefined;
      if (goal) ratios.push([`${name} / its minimal transaction`, a / b, goal]);
    }
  }
  await api.end();
  const widths = [0, 1, 2, 3].map((i) => Math.max(...[['path', 'actions/s', 'limit/s', 'ratio'], ...rows].map((r) => r[i]!.length)));
  for (const r of [['path', 'actions/s', 'limit/s', 'ratio'], ...rows]) console.log(r.map((c, i) => c.padEnd(widths[i]!)).join('  '));
  for (const [name, value, goal] of ratios) reportRatio(name, value, goal);
  for (const w of waitRows) {
    const seen = [...w.counts.values()].reduce((x, y) => x + y, 0);
    const top = [...w.counts.entries()].sort((x, y) => y[1] - x[1]).slice(0, 8)
      .map(([k, n]) => `${k} ${(100 * n / Math.max(seen, 1)).toFixed(1)} %`).join(', ');
    console.log(`waits, ${w.label}: ${w.samples} samples, ${(seen / Math.max(w.samples, 1)).toFixed(2)} active backends per sample: ${top}`);
  }
  console.log(`load average during the run: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
} finally {
  await pooler.stop();
  await server.stop();
  await rm(dir, { recursive: true, force: true });
}
