// Turn timers (docs/matches.md, Turn timers) end to end, on TWO real API processes
// (`node bin/manette.js start`) sharing one database, each with its own local Realtime and
// its own sweep of expired turns: a player who stops playing loses by timeout, and the
// other player receives `action` (delai_depasse) then `etat` through the unmodified
// @supabase/realtime-js; and both processes' sweeps and reads through both processes race
// on the same expiries, which are applied exactly once each (one history row per expired
// turn). No timed assertion: every wait is for an event or a condition (bounded only so a
// failure ends); the game file's delays are small (1 s).
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import WebSocket from 'ws';
import { RealtimeClient, type RealtimeChannel, type RealtimeClientOptions } from '@supabase/realtime-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyGameFile } from '../api/config/apply.js';
import { parseGameConfig } from '../api/config/game-config.js';
import { client, freshDatabase, query } from './support/harness.js';
import { startManette, stopManette, type ManetteProcess } from './support/manette-process.js';

const GAME = {
  jeu: 'timers', nom: 'Timers',
  classements: { victoires: { operateur: 'somme' } },
  modes: {
    abandon: { equipes: 2, joueurs_par_equipe: 1, regles: 'tour_par_tour', delai_tour_s: 1, classement_victoires: 'victoires', elo_ecart_initial: 10000 },
    passe: { equipes: 2, joueurs_par_equipe: 1, regles: 'tour_par_tour', delai_tour_s: 1, sur_delai: 'passe', elo_ecart_initial: 10000 },
    // A delay no request of a test comes near: only the expiry the test makes (by moving maj_le back) is due.
    passe_lent: { equipes: 2, joueurs_par_equipe: 1, regles: 'tour_par_tour', delai_tour_s: 60, sur_delai: 'passe', elo_ecart_initial: 10000 },
  },
};

let dir: string;
let databaseUrl: string;
let apiKey: string;
const bases: string[] = [];
const running: ManetteProcess[] = [];

/** `manette start` number `n` on the test's database; resolves with its base URL. */
async function startProcess(n: number): Promise<string> {
  const r = await startManette(databaseUrl, path.join(dir, `data-${n}`), { MANETTE_WORKERS: '1' });
  running[n] = r;
  return r.base;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'manette-timers-'));
  await chmod(dir, 0o755);
  databaseUrl = await freshDatabase();
  const file = path.join(dir, 'game.json');
  await writeFile(file, JSON.stringify(GAME));
  apiKey = (await applyGameFile(databaseUrl, file)).api_key;
  // One after the other: each start sets up its local Realtime's publication on the database.
  bases.push(await startProcess(0));
  bases.push(await startProcess(1));
}, 180_000);

const realtimeClients: RealtimeClient[] = [];
afterAll(async () => {
  await Promise.all(realtimeClients.map(async (c) => { await c.removeAllChannels(); c.disconnect(); }));
  // SIGTERM: each process stops its sweep, then its pool, cleanly.
  await Promise.all(running.map((r) => stopManette(r.proc)));
  await rm(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Polls `check` until it returns a value; bounded only so that a failure ends. */
async function waitFor<V>(check: () => Promise<V | undefined | false> | V | undefined | false, what: string, ms = 30_000): Promise<V> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}\n${running.map((r) => r.out()).join('\n')}`);
    await sleep(50);
  }
}

let counter = 0;
interface Player { id: string; token: string; api: ReturnType<typeof client> }
async function player(base: string): Promise<Player> {
  const api = client(base, apiKey);
  const r = await api.register(`tm_${++counter}_${Math.random().toString(36).slice(2, 7)}`);
  return { id: r.data.joueur.id, token: r.token, api };
}
/** Two players matched in `mode`, in seat order (the first seat is on turn). */
async function match(mode: string, on = [bases[0]!, bases[1]!]): Promise<{ id: string; seats: Player[] }> {
  const ps = [await player(on[0]!), await player(on[1]!)];
  let last: any;
  for (const p of ps) last = (await p.api.post('/matchmaking/join', { mode_jeu: mode, elo_actuel: 1000 }, { token: p.token })).body;
  expect(last.status).toBe('matched');
  const byId = new Map(ps.map((p) => [p.id, p]));
  return { id: last.partie_id, seats: last.participants.map((x: any) => byId.get(x.joueur_id)!) };
}
const stateOf = async (p: Player, id: string, base?: string) => {
  const api = base ? client(base, apiKey) : p.api;
  const r = await api.get(`/match/state?partie_id=${id}`, { token: p.token });
  expect(r.status).toBe(200);
  return r.body.partie;
};

describe('the game file', () => {
  const mode = { equipes: 2, joueurs_par_equipe: 1, regles: 'libre' };
  const parse = (m: Record<string, unknown>, lang: 'fr' | 'en' = 'fr') => parseGameConfig({ jeu: 'x', nom: 'X', modes: { m: { ...mode, ...m } } }, lang);
  it('takes delai_tour_s (1 to 86400) and sur_delai (abandon or passe), and refuses sur_delai without delai_tour_s, naming the field', () => {
    expect(parse({ delai_tour_s: 30, sur_delai: 'passe' })).toMatchObject({ ok: true, config: { modes: { m: { delai_tour_s: 30, sur_delai: 'passe' } } } });
    expect(parse({ delai_tour_s: 86400 }).ok).toBe(true);
    expect(parse({ sur_delai: 'passe' })).toEqual({ ok: false,
      error: 'fichier de jeu invalide :\n  modes.m.sur_delai: sur_delai demande delai_tour_s (sans délai, aucun tour n’expire)' });
    expect(parse({ sur_delai: 'abandon' }, 'en')).toEqual({ ok: false,
      error: 'invalid game file:\n  modes.m.sur_delai: sur_delai needs delai_tour_s (without a delay, no turn expires)' });
    for (const bad of [{ delai_tour_s: 0 }, { delai_tour_s: 86401 }, { delai_tour_s: 1.5 }, { delai_tour_s: 5, sur_delai: 'attendre' }]) {
      expect(parse(bad).ok, JSON.stringify(bad)).toBe(false);
    }
  });
});

describe('turn timers across two API processes', () => {
  it('a player stops playing: the match ends by timeout, and the other player receives action then etat', async () => {
    const { id, seats: [away, waiting] } = await match('abandon');
    const start = await stateOf(waiting!, id);
    expect(start.tour_joueur).toBe(away!.id);
    expect(Date.parse(start.tour_expire_le) - Date.parse(start.maj_le)).toBe(1000);

    // The waiting player watches the room with realtime-js, configured from GET /realtime/config.
    const config = (await waiting!.api.get('/realtime/config', { token: waiting!.token })).body;
    const rt = new RealtimeClient(config.url, {
      params: { apikey: config.key },
      transport: WebSocket as unknown as RealtimeClientOptions['transport'],
      timeout: 5_000,
    });
    realtimeClients.push(rt);
    await rt.setAuth(config.token);
    const got: { event: string; payload: any }[] = [];
    const channel: RealtimeChannel = rt.channel(config.channel_prefix + id, { config: { private: config.private } })
      .on('broadcast', { event: '*' }, (m: any) => got.push({ event: m.event, payload: m.payload }));
    await new Promise<void>((resolve, reject) => channel.subscribe((status, err) => {
      if (status === 'SUBSCRIBED') resolve();
      else if (status !== 'CLOSED') reject(new Error(`${status} ${err?.message ?? ''}`));
    }));

    // Nobody reads the match: the sweep of one process or the other ends it.
    await waitFor(() => got.some((m) => m.event === 'etat' && m.payload.statut === 'terminee'), 'the final etat');
    expect(got.map((m) => m.event)).toEqual(['action', 'etat']);
    expect(got[0]!.payload).toMatchObject({
      joueur_id: null, action: 'delai_depasse', numero_tour: 1, donnees: { joueur_id: away!.id, sur_delai: 'abandon' },
    });
    const final = got[1]!.payload;
    expect(final).toMatchObject({ id, statut: 'terminee', gagnant_id: waiting!.id, tour_joueur: null, tour_expire_le: null });
    // Its instant is the expired tour_expire_le itself, not when it was noticed.
    expect(final.maj_le).toBe(start.tour_expire_le);
    expect(final.termine_le).toBe(start.tour_expire_le);
    // GET /match/state through the other process says the same (participants compared by
    // seat: their `elo` is added by the rating change to every place that lists them).
    const read = await stateOf(away!, id, bases[1]);
    const seatsOf = (p: any) => p.participants.map((x: any) => [x.joueur_id, x.equipe]);
    expect({ ...read, participants: seatsOf(read) }).toEqual({ ...final, participants: seatsOf(final) });

    const history = (await waiting!.api.get(`/match/history?partie_id=${id}`, { token: waiting!.token })).body;
    expect(history.actions).toEqual([{ numero: 1, joueur_id: null, action: 'delai_depasse', numero_tour: 1,
      donnees: { joueur_id: away!.id, sur_delai: 'abandon' }, cree_le: start.tour_expire_le }]);
    // The winner by timeout is credited on the mode's victory board.
    const board = (await waiting!.api.get('/leaderboards/victoires/scores', { token: waiting!.token })).body;
    expect(JSON.stringify(board)).toContain(waiting!.id);
    // Both players are free again.
    const again = (await away!.api.get('/matchmaking/status', { token: away!.token })).body;
    expect(again.status).not.toBe('matched');
  }, 60_000);

  it('two processes\' sweeps and reads through both race on the same expiries: each is applied once', async () => {
    // Matches whose turns expire every second, and whose players keep reading them through
    // both processes (each read applies what is due), while both sweeps run.
    const abandons: { id: string; seats: Player[] }[] = [];
    const passes: { id: string; seats: Player[] }[] = [];
    for (let i = 0; i < 4; i++) abandons.push(await match('abandon'));
    for (let i = 0; i < 4; i++) passes.push(await match('passe'));
    let reading = true;
    const readers = [...abandons, ...passes].flatMap((m) => m.seats.flatMap((p) => bases.map(async (base) => {
      const api = client(base, apiKey);
      while (reading) {
        const r = await api.get(`/match/state?partie_id=${m.id}`, { token: p.token });
        expect(r.status).toBe(200);
        await api.get(`/match/history?partie_id=${m.id}`, { token: p.token });
      }
    })));
    // Each abandon match ends; each passe match goes through at least three expiries.
    await waitFor(async () => {
      const rows = await query<{ id: string; status: string; turn_number: number }>(databaseUrl,
        'select id, status, turn_number from manette.matches where id = any($1::uuid[])', [[...abandons, ...passes].map((m) => m.id)]);
      return rows.every((r) => (abandons.some((m) => m.id === r.id) ? r.status === 'terminee' : r.turn_number >= 4));
    }, 'every abandon match ended and every passe match passed three turns');
    reading = false;
    await Promise.all(readers);

    const rows = await query<{ match_id: string; seq: number; player_id: string | null; action: string; turn_number: number; data: any }>(databaseUrl,
      'select match_id, seq, player_id, action, turn_number, data from manette.match_actions where match_id = any($1::uuid[]) order by match_id, seq',
      [[...abandons, ...passes].map((m) => m.id)]);
    for (const m of abandons) {
      const mine = rows.filter((r) => r.match_id === m.id);
      expect(mine, `abandon match ${m.id}`).toEqual([{ match_id: m.id, seq: 1, player_id: null, action: 'delai_depasse', turn_number: 1,
        data: { joueur_id: m.seats[0]!.id, sur_delai: 'abandon' } }]);
    }
    for (const m of passes) {
      const mine = rows.filter((r) => r.match_id === m.id);
      // One row per expired turn: turns 1, 2, 3, ... each once, the seats alternating.
      expect(mine.map((r) => r.turn_number)).toEqual(mine.map((_, i) => i + 1));
      expect(mine.map((r) => r.seq)).toEqual(mine.map((_, i) => i + 1));
      expect(mine.map((r) => r.data.joueur_id)).toEqual(mine.map((_, i) => m.seats[i % 2]!.id));
      expect(mine.every((r) => r.player_id === null && r.action === 'delai_depasse' && r.data.sur_delai === 'passe')).toBe(true);
      const s = await stateOf(m.seats[0]!, m.id);
      expect(s.numero_tour).toBeGreaterThanOrEqual(mine.length + 1);
    }
  }, 120_000);

  it('one sweep at a time: while a runner holds the sweep\'s lock, another returns 0 at once and applies nothing', async () => {
    const holder = new pg.Client({ connectionString: databaseUrl });
    const other = new pg.Client({ connectionString: databaseUrl });
    await holder.connect();
    await other.connect();
    try {
      // A sweep under way elsewhere: its transaction holds the lock (as postgres, as pg_cron runs it).
      await holder.query('begin');
      await holder.query(`select pg_advisory_xact_lock(hashtextextended('manette.sweep_expired_turns', 0))`);
      // (The match is made once the lock is held, so no process's sweep can reach it before.)
      const { id } = await match('abandon');
      // The match's turn is due (its last change moved 5 s back); nobody reads it.
      await other.query(`update manette.matches set updated_at = clock_timestamp() - interval '5 s' where id = $1`, [id]);
      expect((await other.query('select manette.sweep_expired_turns() as n')).rows[0].n).toBe(0);
      expect((await other.query('select status from manette.matches where id = $1', [id])).rows[0].status).toBe('en_cours');
      await holder.query('commit');
      // Released: the next sweep (this one, or a process's) applies it, once.
      await other.query('select manette.sweep_expired_turns()');
      await waitFor(async () => (await other.query('select status from manette.matches where id = $1', [id])).rows[0].status === 'terminee', 'the sweep after the lock');
      expect((await other.query('select count(*)::int as n from manette.match_actions where match_id = $1', [id])).rows[0].n).toBe(1);
    } finally {
      await holder.end();
      await other.end();
    }
  }, 60_000);

  it('each process\'s sweeps are recorded in manette.sweep_runs: path api, as the URL\'s login role, with the turns they applied', async () => {
    const rows = await query<{ path: string; ran_by: string; runs: number; turns: number }>(databaseUrl,
      `select path, ran_by::text, count(*)::int as runs, sum(turns)::int as turns from manette.sweep_runs group by 1, 2 order by 1, 2`);
    const api = rows.find((r) => r.path === 'api');
    expect(api).toMatchObject({ ran_by: decodeURIComponent(new URL(databaseUrl).username) });
    // The matches the sweeps ended above (nobody read some of them): their expired turns.
    expect(api!.turns).toBeGreaterThan(0);
    expect(rows.reduce((n, r) => n + r.runs, 0)).toBeLessThanOrEqual(1000);
  });

  it('a late player\'s action applies the expired turn first: 409 with its reason, and the expiry stays', async () => {
    const holder = new pg.Client({ connectionString: databaseUrl });
    await holder.connect();
    try {
      // No sweep meanwhile (its lock is held), so the action itself meets the expiry (one:
      // the next one is 60 s later).
      await holder.query('begin');
      await holder.query(`select pg_advisory_xact_lock(hashtextextended('manette.sweep_expired_turns', 0))`);
      const { id, seats: [late, next] } = await match('passe_lent');
      await query(databaseUrl, `update manette.matches set updated_at = clock_timestamp() - interval '61 s' where id = $1`, [id]);
      const r = await late!.api.post('/match/action', { partie_id: id, action: 'coup', donnees: {} }, { token: late!.token });
      expect(r.status).toBe(409);
      expect(r.body).toMatchObject({ ok: false, error: 'action_refusee', reason: 'pas_ton_tour' });
      const history = (await next!.api.get(`/match/history?partie_id=${id}`, { token: next!.token })).body;
      expect(history.actions.map((a: any) => [a.joueur_id, a.action, a.donnees.joueur_id])).toEqual([[null, 'delai_depasse', late!.id]]);
      // The player now on turn plays, in time.
      const ok = await next!.api.post('/match/action', { partie_id: id, action: 'coup', donnees: {} }, { token: next!.token });
      expect(ok.status).toBe(200);
      expect(ok.body.partie).toMatchObject({ numero_tour: 3, tour_joueur: late!.id });
      await holder.query('commit');
    } finally {
      await holder.end();
    }
  }, 60_000);

  it('a process stopped by SIGTERM stops its sweep first and exits cleanly', async () => {
    const proc = running[1]!.proc;
    const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
    process.kill(-proc.pid!, 'SIGTERM');
    expect(await exited).toBe(0);
    expect(running[1]!.out()).not.toMatch(/sweep of expired turns failed/);
    // The other process still sweeps alone: a new match still ends by timeout.
    const { id, seats: [away, waiting] } = await match('abandon', [bases[0]!, bases[0]!]);
    await waitFor(async () => (await query<{ status: string }>(databaseUrl, 'select status from manette.matches where id = $1', [id]))[0]!.status === 'terminee',
      'the match ended by the remaining process\'s sweep');
    expect((await stateOf(waiting!, id)).gagnant_id).toBe(waiting!.id);
    expect(away).toBeDefined();
  }, 60_000);
});
