// Where issue 20's parts meet, end to end, on the real Node server (`node bin/manette.js
// start`: the façade, its local Realtime and its own sweep of expired turns) and a fresh
// database:
// - the SDK's replay (sdk/src/replay.ts) against the server's own actions: real matches with
//   a chain of `delai_depasse` / `passe` (several applied in one go, then one by one), a
//   `delai_depasse` / `abandon`, `fin_admin` (a winner through the real CLI, a draw through
//   manette_admin.match_end called as the CLI calls it) and `annulation_admin` (the real
//   CLI), in modes with `delai_tour_s` so `tour_expire_le` is in every state. Every state the
//   server sent is recorded (its answers, and every `etat` on the room through the unmodified
//   @supabase/realtime-js: the only way to see the states the server produced on its own),
//   and `match(id).replay()` must rebuild each exactly, in order;
// - an operator's end on a match whose turns are due: the passes first, then the end;
// - the "Done when": a player walks away, the sweep ends the match by timeout, the
//   winner and a spectator receive `action` (delai_depasse) then `etat`, the winner is
//   credited and both are re-rated exactly by the documented Elo formula, and the spectator
//   replays the whole match.
// No timed assertion: every wait is for an event or a condition (bounded only so a failure
// ends).
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import WebSocket from 'ws';
import { RealtimeClient, type RealtimeChannel, type RealtimeClientOptions } from '@supabase/realtime-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyGameFile } from '../api/config/apply.js';
import { asAdmin } from '../api/db/admin.js';
import { createClient, type ManetteClient, type Partie, type ShippedRules } from '../sdk/src/index.js';
import { client, freshDatabase, query } from './support/harness.js';
import { runManetteJson } from './support/manette-cli.js';
import { startManette, stopManette, type ManetteProcess } from './support/manette-process.js';

const WIDE = { elo_ecart_initial: 10000 };
const GAME = {
  jeu: 'cycle', nom: 'Cycle de vie',
  classements: { victoires: { operateur: 'somme' } },
  modes: {
    passe: { equipes: 2, joueurs_par_equipe: 1, regles: 'tour_par_tour', delai_tour_s: 1, sur_delai: 'passe', ...WIDE },
    abandon: { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', delai_tour_s: 3, sur_delai: 'abandon', ...WIDE },
    // A delay no test comes near: `tour_expire_le` is in every state, nothing expires.
    lent: { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', delai_tour_s: 3600, ...WIDE },
    lent_tpt: { equipes: 2, joueurs_par_equipe: 1, regles: 'tour_par_tour', delai_tour_s: 3600, ...WIDE },
    // The "Done when".
    classe: { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', delai_tour_s: 2, sur_delai: 'abandon', elo: 'serveur',
      spectateurs: true, classement_victoires: 'victoires', ...WIDE },
  },
};
const K = 32; // elo_k's default

let dir: string;
let databaseUrl: string;
let apiKey: string;
let base: string;
let server: ManetteProcess | undefined;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'manette-lifecycle-'));
  await chmod(dir, 0o755);
  databaseUrl = await freshDatabase();
  const file = path.join(dir, 'game.json');
  await writeFile(file, JSON.stringify(GAME));
  apiKey = (await applyGameFile(databaseUrl, file)).api_key;
  server = await startManette(databaseUrl, path.join(dir, 'data'), { MANETTE_WORKERS: '1' });
  base = server.base;
}, 180_000);

const realtimeClients: RealtimeClient[] = [];
afterAll(async () => {
  await Promise.all(realtimeClients.map(async (c) => { await c.removeAllChannels(); c.disconnect(); }));
  if (server) await stopManette(server.proc);
  await rm(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Polls `check` until it returns a value; bounded only so that a failure ends. */
async function waitFor<V>(check: () => Promise<V | undefined | false> | V | undefined | false, what: string, ms = 30_000): Promise<V> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}\n${server?.out() ?? ''}`);
    await sleep(25);
  }
}

// Players: the SDK (for replay), its session token for raw HTTP and Realtime ---------------
let counter = 0;
interface Player { id: string; sdk: ManetteClient; token: string; api: ReturnType<typeof client> }
async function player(): Promise<Player> {
  const store = new Map<string, string>();
  const storage = { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => { store.set(k, v); }, removeItem: (k: string) => { store.delete(k); } };
  const sdk = createClient({ baseUrl: base, apiKey, storage });
  const n = ++counter;
  const me = await sdk.auth.register({ pseudo: `lc_${n}_${Math.random().toString(36).slice(2, 6)}`, email: `lc_${n}@example.test`, password: 'motdepasse-solide' });
  return { id: me.id, sdk, token: sdk.auth.token!, api: client(base, apiKey) };
}

interface Heard { event: string; payload: any }
/** Joins the match room with realtime-js, configured from GET /realtime/config only; resolves once SUBSCRIBED. */
async function listen(p: Player, partieId: string): Promise<Heard[]> {
  const config = (await p.api.get('/realtime/config', { token: p.token })).body;
  const rt = new RealtimeClient(config.url, {
    params: { apikey: config.key },
    transport: WebSocket as unknown as RealtimeClientOptions['transport'], // Node 20 has no global WebSocket
    timeout: 5_000,
  });
  realtimeClients.push(rt);
  await rt.setAuth(config.token);
  const heard: Heard[] = [];
  const channel: RealtimeChannel = rt.channel(config.channel_prefix + partieId, { config: { private: config.private } })
    .on('broadcast', { event: '*' }, (m: any) => heard.push({ event: m.event, payload: m.payload }));
  await new Promise<void>((resolve, reject) => channel.subscribe((status, err) => {
    if (status === 'SUBSCRIBED') resolve();
    else if (status !== 'CLOSED') reject(new Error(`${status} ${err?.message ?? ''}`));
  }));
  return heard;
}
const etats = (heard: Heard[]) => heard.filter((h) => h.event === 'etat').map((h) => h.payload as Partie);

/**
 * The sweep held off: a transaction of ours holds the sweep's lock (as a sweep under way
 * would), so every sweep returns 0 until `release()`. Reads and actions still apply what is due.
 */
async function holdSweep() {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  await c.query('begin');
  await c.query(`select pg_advisory_xact_lock(hashtextextended('manette.sweep_expired_turns', 0))`);
  return { async release() { await c.query('commit'); await c.end(); } };
}
/** Seconds since the match's last change, as the database sees it (a read that applies nothing). */
async function dueTurns(id: string): Promise<number> {
  const [row] = await query<{ n: number }>(databaseUrl,
    `select floor(extract(epoch from clock_timestamp() - updated_at) / turn_timeout_s)::int as n from manette.matches where id = $1`, [id]);
  return row!.n;
}

/**
 * A match of `mode` between two new players, in seat order, the first seat's room followed
 * with realtime-js before anything can happen (the sweep is held meanwhile), and every state
 * the server answered over HTTP recorded in `answers`.
 */
async function match(mode: string) {
  const hold = await holdSweep();
  const ps = [await player(), await player()];
  let last: any;
  for (const p of ps) last = (await p.api.post('/matchmaking/join', { mode_jeu: mode, elo_actuel: 1000 }, { token: p.token })).body;
  expect(last.status).toBe('matched');
  const byId = new Map(ps.map((p) => [p.id, p]));
  const seats: Player[] = last.participants.map((x: any) => byId.get(x.joueur_id)!);
  const id: string = last.partie_id;
  const heard = await listen(seats[0]!, id);
  const answers: Partie[] = [await seats[0]!.sdk.match(id).state()];
  await hold.release();
  /** The player on turn plays, in time: on the latest state heard, retried when a pass beat it. */
  const playOnTurn = async (action: string, donnees: Record<string, unknown> = {}) => {
    for (;;) {
      const now = etats(heard).at(-1) ?? answers[0]!;
      const p = seats.find((s) => s.id === now.tour_joueur)!;
      const r = await p.api.post('/match/action', { partie_id: id, action, donnees, numero_tour: now.numero_tour }, { token: p.token });
      if (r.status === 200) { answers.push(r.body.partie); return { by: p, partie: r.body.partie as Partie }; }
      expect(r.body.reason, JSON.stringify(r.body)).toMatch(/^(tour_perime|pas_ton_tour)$/);
      await waitFor(() => (etats(heard).at(-1)?.numero_tour ?? 0) > now.numero_tour, 'the pass that beat the action');
    }
  };
  const act = async (p: Player, action: string, donnees: Record<string, unknown> = {}) => {
    const partie = await p.sdk.match(id).act(action, donnees);
    answers.push(partie);
    return partie;
  };
  return { id, seats, heard, answers, act, playOnTurn };
}
type Match = Awaited<ReturnType<typeof match>>;

/**
 * `reader`'s `match(id).replay()` of the finished match rebuilds every state the server sent:
 * the `etat` events heard, in order, are exactly the replayed states after each action (one
 * per action), every HTTP answer is one of them, and the `action` events are the history.
 */
async function expectReplay(m: Match, regles: ShippedRules, reader: Player = m.seats[1]!, heard: Heard[] = m.heard) {
  const r = await reader.sdk.match(m.id).replay(regles);
  await waitFor(() => etats(heard).length >= r.actions.length, 'an etat for every action');
  // The match as created (the first read may already have applied a 1 s pass: it is then
  // one of the later states, below).
  expect(r.etats[0]).toMatchObject({ id: m.id, statut: 'en_cours', numero_tour: 1, tour_joueur: m.seats[0]!.id, termine_le: null });
  expect(r.etats[0]!.maj_le).toBe(r.etats[0]!.cree_le);
  expect(etats(heard)).toEqual(r.etats.slice(1));
  expect(heard.filter((h) => h.event === 'action').map((h) => { const { id: _, ...rest } = h.payload; return rest; }))
    .toEqual(r.actions.map(({ numero: _, cree_le: __, ...rest }) => rest));
  expect(heard.map((h) => h.event)).toEqual(r.actions.flatMap(() => ['action', 'etat']));
  for (const a of m.answers) expect(r.etats).toContainEqual(a);
  expect(await reader.sdk.match(m.id).state()).toEqual(r.etats.at(-1));
  for (const s of r.etats) expect(s).toHaveProperty('tour_expire_le');
  return r;
}

describe('replay of the server\'s own actions, over HTTP and the real realtime client', () => {
  it('passe: a chain of expiries applied together, then one by one, a move in time, then an operator\'s end (real CLI) applying the due passes first', async () => {
    const m = await match('passe');
    await m.playOnTurn('coup', { a: 1 });
    // Three turns expire while no sweep runs and nobody reads: the next sweep applies them
    // together, each at its own instant.
    const hold = await holdSweep();
    // Counted from the move's own etat (under load it can arrive after the HTTP answer).
    await waitFor(() => (etats(m.heard).at(-1)?.numero_tour ?? 0) >= m.answers.at(-1)!.numero_tour, 'the move\'s etat');
    const before = etats(m.heard).length;
    await waitFor(async () => (await dueTurns(m.id)) >= 3, 'three expired turns');
    await hold.release();
    await waitFor(() => etats(m.heard).length >= before + 3, 'the chain of passes');
    // Then the sweep's own pace: one at a time.
    await waitFor(() => etats(m.heard).length >= before + 5, 'two more passes');
    await m.playOnTurn('coup', { b: 2 });
    await waitFor(() => etats(m.heard).at(-1)!.numero_tour >= m.answers.at(-1)!.numero_tour + 1, 'a pass after the move');
    // The operator ends it while turns are due and no sweep runs: match_end applies them first.
    const hold2 = await holdSweep();
    await waitFor(async () => (await dueTurns(m.id)) >= 2, 'two more expired turns');
    const winner = m.seats[1]!;
    const cli = await runManetteJson(['match', 'end', m.id, '--gagnant', winner.id, '--raison', 'partis'], databaseUrl, 'en_US.UTF-8');
    await hold2.release();
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.body.data.partie).toMatchObject({ statut: 'terminee', gagnant_id: winner.id, gagnant_equipe: 2, tour_expire_le: null });
    await waitFor(() => etats(m.heard).at(-1)!.statut === 'terminee', 'the final etat');

    const r = await expectReplay(m, 'tour_par_tour');
    const kinds = r.actions.map((a) => a.action);
    expect(kinds.filter((k) => k === 'coup')).toHaveLength(2);
    expect(kinds.filter((k) => k === 'delai_depasse').length).toBeGreaterThanOrEqual(8);
    expect(kinds.at(-1)).toBe('fin_admin');
    // The passes due when the operator ended it come before fin_admin, and the end after them.
    const passesBeforeEnd = r.actions.slice(r.actions.map((a) => a.action).lastIndexOf('coup') + 1, -1);
    expect(passesBeforeEnd.length).toBeGreaterThanOrEqual(3);
    expect(passesBeforeEnd.every((a) => a.action === 'delai_depasse' && a.joueur_id === null && a.donnees.sur_delai === 'passe')).toBe(true);
    expect(Date.parse(r.actions.at(-1)!.cree_le)).toBeGreaterThan(Date.parse(passesBeforeEnd.at(-1)!.cree_le));
    // Each pass's instant is the expired tour_expire_le of the state before it.
    for (const [i, a] of r.actions.entries()) {
      if (a.action === 'delai_depasse') expect(a.cree_le).toBe(r.etats[i]!.tour_expire_le);
    }
    expect(cli.body.data.partie.numero_tour).toBe(r.etats.at(-1)!.numero_tour);
  }, 120_000);

  it('abandon: a player stops in a morpion match; the sweep ends it by timeout, and replay rebuilds it', async () => {
    const m = await match('abandon');
    const [x, o] = m.seats;
    await m.act(x!, 'jouer', { case: 4 });
    await m.act(o!, 'jouer', { case: 0 });
    await waitFor(() => etats(m.heard).at(-1)?.statut === 'terminee', 'the timeout', 30_000);
    const r = await expectReplay(m, 'morpion', o);
    expect(r.actions.at(-1)).toMatchObject({ joueur_id: null, action: 'delai_depasse', donnees: { joueur_id: x!.id, sur_delai: 'abandon' }, numero_tour: 3 });
    expect(r.etats.at(-1)).toMatchObject({ statut: 'terminee', gagnant_id: o!.id, gagnant_equipe: 2, tour_joueur: null, numero_tour: 4,
      tour_expire_le: null, termine_le: r.actions.at(-1)!.cree_le });
    expect(r.actions.at(-1)!.cree_le).toBe(r.etats.at(-2)!.tour_expire_le);
  }, 60_000);

  it('fin_admin, a draw: manette_admin.match_end called as the CLI calls it', async () => {
    const m = await match('lent');
    await m.act(m.seats[0]!, 'jouer', { case: 0 });
    await m.act(m.seats[1]!, 'jouer', { case: 8 });
    const r = await asAdmin(databaseUrl, async (c) => (await c.query('select manette_admin.match_end($1, $2, $3, $4) as r', [m.id, null, true, null])).rows[0].r);
    expect(r.partie).toMatchObject({ statut: 'terminee', gagnant_id: null, gagnant_equipe: null, numero_tour: 3, tour_joueur: m.seats[0]!.id, tour_expire_le: null });
    await waitFor(() => etats(m.heard).at(-1)?.statut === 'terminee', 'the final etat');
    const replay = await expectReplay(m, 'morpion');
    expect(replay.actions.at(-1)).toMatchObject({ joueur_id: null, action: 'fin_admin', donnees: { gagnant_id: null, gagnant_equipe: null }, numero_tour: 3 });
    expect(replay.etats.at(-1)).toEqual(r.partie);
  }, 60_000);

  it('annulation_admin: the real CLI cancels', async () => {
    const m = await match('lent_tpt');
    await m.act(m.seats[0]!, 'coup', { n: 1 });
    const cli = await runManetteJson(['match', 'cancel', m.id], databaseUrl, 'fr_FR.UTF-8');
    expect(cli.code, cli.stderr).toBe(0);
    await waitFor(() => etats(m.heard).at(-1)?.statut === 'annulee', 'the final etat');
    const r = await expectReplay(m, 'tour_par_tour');
    expect(r.actions.at(-1)).toMatchObject({ joueur_id: null, action: 'annulation_admin', donnees: {}, numero_tour: 2 });
    expect(r.etats.at(-1)).toMatchObject({ statut: 'annulee', gagnant_id: null, tour_joueur: m.seats[1]!.id, tour_expire_le: null });
    expect(r.etats.at(-1)).toEqual(cli.body.data.partie);
  }, 60_000);

  it('an operator\'s end on a match whose timeout already ended it: match_over, and the sweep applies the timeout as it would have', async () => {
    const m = await match('abandon');
    await m.act(m.seats[0]!, 'jouer', { case: 4 });
    const hold = await holdSweep();
    await waitFor(async () => (await dueTurns(m.id)) >= 1, 'the expired turn');
    const cli = await runManetteJson(['match', 'end', m.id, '--gagnant', m.seats[1]!.id], databaseUrl, 'en_US.UTF-8');
    expect(cli.code).not.toBe(0);
    expect(cli.body).toMatchObject({ ok: false, error: 'match_over' });
    await hold.release();
    await waitFor(() => etats(m.heard).at(-1)?.statut === 'terminee', 'the timeout, by the sweep');
    const r = await expectReplay(m, 'morpion');
    expect(r.actions.map((a) => a.action)).toEqual(['jouer', 'delai_depasse']);
    expect(r.etats.at(-1)).toMatchObject({ gagnant_id: m.seats[0]!.id });
  }, 60_000);
});

describe('done when: a player walks away', () => {
  it('loses by timeout (the sweep), the winner and a spectator hear it, the winner is credited and both are re-rated by the formula, the spectator replays it', async () => {
    const [p1, p2, spectator] = [await player(), await player(), await player()];
    // Different server ratings, as earlier matches would have left them.
    const start = new Map([[p1.id, 1450], [p2.id, 1575]]);
    for (const [pid, rating] of start) {
      await query(databaseUrl, `insert into manette.ratings (game_id, mode_id, player_id, rating, matches_played)
        select m.game_id, m.id, $1, $2, 3 from manette.modes m join manette.games g on g.id = m.game_id
        where g.slug = 'cycle' and m.code = 'classe'`, [pid, rating]);
    }
    const scores = async () => new Map(((await p1.api.get('/leaderboards/victoires/scores?limit=100')).body.data as any[])
      .map((s) => [s.joueur_id, s.valeur]));
    const winsBefore = await scores();

    // Matched (elo_actuel is ignored in a serveur mode), the spectator and both players in the room.
    await p1.api.post('/matchmaking/join', { mode_jeu: 'classe', elo_actuel: 10000 }, { token: p1.token });
    const matched = (await p2.api.post('/matchmaking/join', { mode_jeu: 'classe', elo_actuel: 0 }, { token: p2.token })).body;
    expect(matched.status).toBe('matched');
    const id: string = matched.partie_id;
    const [mover, away] = matched.participants.map((x: any) => (x.joueur_id === p1.id ? p1 : p2)) as [Player, Player];
    const [heardWinner, heardSpectator] = await Promise.all([listen(mover, id), listen(spectator, id)]);
    const initial = await spectator.sdk.match(id).state();
    // The participants carry their start ratings (the server's, not elo_actuel).
    expect(initial.participants.map((x: any) => [x.joueur_id, x.elo])).toEqual([[mover.id, start.get(mover.id)], [away.id, start.get(away.id)]]);
    expect(Date.parse(initial.tour_expire_le!) - Date.parse(initial.maj_le)).toBe(2000);

    // One move, then the other player walks away. Nobody reads the match meanwhile.
    const moved = await mover.sdk.match(id).act('jouer', { case: 4 });
    expect(moved.tour_joueur).toBe(away.id);
    for (const heard of [heardWinner, heardSpectator]) {
      await waitFor(() => etats(heard).at(-1)?.statut === 'terminee', 'the final etat', 30_000);
      expect(heard.slice(-2).map((h) => h.event)).toEqual(['action', 'etat']);
      expect(heard.at(-2)!.payload).toMatchObject({ joueur_id: null, action: 'delai_depasse', numero_tour: 2,
        donnees: { joueur_id: away.id, sur_delai: 'abandon' } });
      expect(heard.at(-1)!.payload).toMatchObject({ id, statut: 'terminee', gagnant_id: mover.id, tour_joueur: null, tour_expire_le: null,
        maj_le: moved.tour_expire_le, termine_le: moved.tour_expire_le });
    }
    // Within delai_tour_s (+ the sweep's period) of the move, as the database dated it.
    expect(Date.parse(etats(heardSpectator).at(-1)!.termine_le!) - Date.parse(moved.maj_le)).toBe(2000);

    // The winner credited once; the loser not.
    const winsAfter = await scores();
    expect(winsAfter.get(mover.id)).toBe((winsBefore.get(mover.id) ?? 0) + 1);
    expect(winsAfter.get(away.id)).toBe(winsBefore.get(away.id));
    // Both re-rated by Elo: E = 1 / (1 + 10^((Rb − Ra) / 400)), R' = R + K × (S − E).
    const ra = start.get(mover.id)!;
    const rb = start.get(away.id)!;
    const expected = 1 / (1 + 10 ** ((rb - ra) / 400));
    const me = async (p: Player) => (await p.api.get('/players/me', { token: p.token })).body.data.elo.classe;
    const [winnerElo, loserElo] = [await me(mover), await me(away)];
    expect(winnerElo.parties).toBe(4);
    expect(loserElo.parties).toBe(4);
    expect(winnerElo.valeur).toBeCloseTo(ra + K * (1 - expected), 9);
    expect(loserElo.valeur).toBeCloseTo(rb - K * (1 - expected), 9);
    expect(winnerElo.valeur + loserElo.valeur).toBeCloseTo(ra + rb, 9);
    expect(await me(spectator)).toEqual({ valeur: 1500, parties: 0 });

    // The spectator replays it: every state, the timeout included, as it heard them.
    const r = await spectator.sdk.match(id).replay('morpion');
    expect(r.etats[0]).toEqual(initial);
    expect(r.etats.slice(1)).toEqual(etats(heardSpectator));
    expect(r.etats.slice(1)).toEqual(etats(heardWinner));
    expect(r.etats[1]).toEqual(moved);
    expect(r.actions.map((a) => [a.joueur_id, a.action])).toEqual([[mover.id, 'jouer'], [null, 'delai_depasse']]);
  }, 90_000);
});
