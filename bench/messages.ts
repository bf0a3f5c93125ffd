// Realtime messages per action for each setting of the game file's realtime.evenements
// (issue 32, point 2; docs/matches.md, "Events per action"), measured, not computed: a
// throwaway embedded Postgres 17 and `manette start` (local Realtime stand-in, without
// quotas), one game per setting, 1v1 matches formed through /matchmaking/join and played
// move after move, every player subscribed with realtime-js as the SDK subscribes (the
// match room in action_etat and etat; its own channel manette_joueur_<id>, joined before
// matchmaking, in etat_aux_autres), then once more with one spectator on each room (a mode
// with spectators). Counted as Supabase bills Realtime: each realtime.messages row the
// actions committed (read from the database) plus each broadcast a subscribed socket
// received (counted at the sockets).
//   node bin/run-ts.js bench/messages.ts [--matches 10] [--moves 10]
import type { ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { RealtimeClient, type RealtimeClientOptions } from '@supabase/realtime-js';
import pg from 'pg';
import { startEmbeddedPostgres } from '../twin/postgres/embedded.js';
import { migrate } from '../api/db/migrate.js';
import { applyGameFile } from '../api/config/apply.js';
import { freePort, standInEnv, startManette } from './support.js';

const { values: opts } = parseArgs({ options: { matches: { type: 'string', default: '10' }, moves: { type: 'string', default: '10' } } });
const MATCHES = Number(opts.matches);
const MOVES = Number(opts.moves);
const SETTINGS = ['action_etat', 'etat', 'etat_aux_autres'] as const;
type Setting = typeof SETTINGS[number];
/** Issue 32's goal for a two-player action in the economical setting. */
const GOAL = 3;

const dir = await mkdtemp(path.join(tmpdir(), 'manette-bench-messages-'));
await chmod(dir, 0o755);
let proc: ChildProcess | undefined;
const clients: RealtimeClient[] = [];
const server = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: await freePort(), persistent: true });
let failed = false;
try {
  await migrate(server.url);
  const keys = new Map<Setting, string>();
  for (const s of SETTINGS) {
    const file = path.join(dir, `${s}.json`);
    await writeFile(file, JSON.stringify({
      jeu: `msg-${s.replace(/_/g, '-')}`, nom: s, ...(s === 'action_etat' ? {} : { realtime: { evenements: s } }),
      modes: {
        duel: { equipes: 2, joueurs_par_equipe: 1, regles: 'tour_par_tour', elo_ecart_initial: 10000 },
        vue: { equipes: 2, joueurs_par_equipe: 1, regles: 'tour_par_tour', elo_ecart_initial: 10000, spectateurs: true },
      },
    }));
    keys.set(s, (await applyGameFile(server.url, file)).api_key);
  }
  const api = startManette({
    ...process.env, DATABASE_URL: server.url, ...standInEnv(server.adminUrl), PORT: String(await freePort()), HOST: '127.0.0.1',
    MANETTE_DATA_DIR: path.join(dir, 'data'), MANETTE_RATE_LIMIT_RPS: '1000000', MANETTE_RATE_LIMIT_BURST: '1000000',
    MANETTE_MAX_CONNECTIONS_PER_ADDRESS: '100000', MANETTE_ARGON2_MEMORY_KIB: '1024', MANETTE_ARGON2_ITERATIONS: '1',
    MANETTE_REALTIME_PORT: String(await freePort()), LOG_LEVEL: 'warn',
  });
  proc = api.proc;
  const base = await api.base;
  const admin = new pg.Client({ connectionString: server.adminUrl });
  admin.on('error', () => {});
  await admin.connect();
  const rowsOf = async () => Number((await admin.query(`select count(*) as n from realtime.messages where event in ('action', 'etat')`)).rows[0].n);

  let deliveries = 0; // every `action` or `etat` a subscribed socket received
  let n = 0;
  async function run(s: Setting, spectator: boolean) {
    const key = keys.get(s)!;
    const call = async (method: string, url: string, token?: string, body?: unknown) => {
      const res = await fetch(base + url, {
        method,
        headers: { 'x-api-key': key, ...(token ? { 'x-player-token': token } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, body: await res.json() as any };
    };
    const register = async () => {
      const r = (await call('POST', '/players/register', undefined, { pseudo: `msg_${++n}`, email: `msg_${n}@bench.test`, password: 'motdepasse-solide' })).body;
      return { token: r.token as string, id: r.data.joueur.id as string };
    };
    const listen = async (token: string, topic: string, onEvent: () => void = () => { deliveries++; }) => {
      const cfg = (await call('GET', '/realtime/config', token)).body;
      if ((cfg.evenements ?? 'action_etat') !== s) throw new Error(`GET /realtime/config says ${cfg.evenements}, not ${s}`);
      const rt = new RealtimeClient(cfg.url, { params: { apikey: cfg.key }, transport: WebSocket as unknown as RealtimeClientOptions['transport'], timeout: 10_000 });
      clients.push(rt);
      await rt.setAuth(cfg.token);
      const ch = rt.channel(topic, { config: { private: true } });
      ch.on('broadcast', { event: 'action' }, onEvent).on('broadcast', { event: 'etat' }, onEvent);
      await new Promise<void>((resolve, reject) => ch.subscribe((status, err) => {
        if (status === 'SUBSCRIBED') resolve(); else if (status !== 'CLOSED') reject(new Error(`${status} ${err?.message ?? ''}`));
      }));
    };
    const mode = spectator ? 'vue' : 'duel';
    const matches: { id: string; seats: { token: string; id: string }[] }[] = [];
    for (let m = 0; m < MATCHES; m++) {
      const pair = [await register(), await register()];
      // etat_aux_autres: each player's own channel, joined while it waits (as the SDK does) and kept.
      if (s === 'etat_aux_autres') for (const p of pair) await listen(p.token, `manette_joueur_${p.id}`);
      let r: any;
      for (const p of pair) r = (await call('POST', '/matchmaking/join', p.token, { mode_jeu: mode, elo_actuel: 1000 })).body;
      if (r.status !== 'matched') throw new Error(`match ${m}: ${JSON.stringify(r)}`);
      const seats = r.participants.map((x: any) => pair.find((p) => p.id === x.joueur_id)!);
      if (s !== 'etat_aux_autres') for (const p of seats) await listen(p.token, `manette_partie_${r.partie_id}`);
      if (spectator) await listen((await register()).token, `manette_partie_${r.partie_id}`);
      matches.push({ id: r.partie_id, seats });
    }
    // Settle: what the setup sent (nothing of action/etat) is delivered before counting.
    await new Promise((r) => setTimeout(r, 500));
    const [rows0, deliveries0] = [await rowsOf(), deliveries];
    for (let move = 0; move < MOVES; move++) {
      await Promise.all(matches.map(async (m) => {
        const r = await call('POST', '/match/action', m.seats[move % 2]!.token, { partie_id: m.id, action: 'coup', donnees: { n: move } });
        if (r.status !== 200) throw new Error(`action refused: ${JSON.stringify(r.body)}`);
      }));
    }
    const actions = MATCHES * MOVES;
    const rows = (await rowsOf()) - rows0;
    // Measured, not computed: wait until the sockets have received nothing more for 1 s.
    let last = -1;
    while (deliveries !== last) { last = deliveries; await new Promise((r) => setTimeout(r, 1000)); }
    const got = deliveries - deliveries0;
    return { s, spectator, actions, rows: rows / actions, deliveries: got / actions, messages: (rows + got) / actions };
  }

  const results = [];
  for (const s of SETTINGS) for (const spectator of [false, true]) results.push(await run(s, spectator));
  await admin.end();
  console.log(`Realtime messages per 1v1 action, as Supabase bills them (rows + deliveries), ${MATCHES} matches × ${MOVES} moves per case`);
  console.log('realtime.evenements   subscribers                  rows   deliveries   messages per action');
  for (const r of results) {
    console.log(`${r.s.padEnd(20)}  ${(r.spectator ? '2 players + 1 spectator' : '2 players').padEnd(27)}  ${r.rows.toFixed(2).padStart(4)}   ${r.deliveries.toFixed(2).padStart(10)}   ${r.messages.toFixed(2)}`);
  }
  const economical = results.find((r) => r.s === 'etat_aux_autres' && !r.spectator)!;
  const ok = economical.messages <= GOAL;
  console.log(`goal: ≤ ${GOAL} messages per two-player action in the economical setting (etat_aux_autres): ${economical.messages.toFixed(2)} — ${ok ? 'met' : 'NOT MET'}`);
  if (!ok) failed = true;
} finally {
  for (const c of clients) c.disconnect();
  if (proc && proc.exitCode === null) {
    try { process.kill(-proc.pid!, 'SIGTERM'); } catch { /* gone */ }
    await new Promise((r) => { proc!.once('exit', r); setTimeout(r, 10_000).unref(); });
  }
  await server.stop();
  await rm(dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
