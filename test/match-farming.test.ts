// Reward and rating farming (docs/matches.md, "Matches that count"), over real HTTP on a real
// database: in a mode with `actions_min`, a match that ends before its players played that many
// actions (abandonner and the server's delai_depasse not counted) keeps its result but pays
// no recompenses, moves no Elo and credits no classement_victoires, and says so
// (`partie.comptee: false`, in the answer, GET /match/state, the history and its replay); one
// that reaches the minimum pays, rates and credits as before; a mode without the key counts
// every match (today's behaviour). The game file names a bad value's field (zod, the SQL
// apply and the CLI), and `manette apply` stores a good one.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../sdk/src/index.js';
import { parseGameConfig } from '../api/config/game-config.js';
import { gameFile as studioGameFile } from '../api/cli/commands/init.js';
import { client, startTestApp, type TestApp } from './support/harness.js';
import { runManette } from './support/manette-cli.js';

let app: TestApp;
let api: ReturnType<typeof client>;
let key: string;
let counter = 0;

const REWARDS = { victoire: { monnaies: { or: 50 } }, defaite: { monnaies: { or: 10 } }, nul: { monnaies: { or: 20 } } };
const COUNTING = { elo: 'serveur', classement_victoires: 'victoires', recompenses: REWARDS, elo_ecart_initial: 10000 };
const GAME = {
  jeu: 'farming-a',
  nom: 'Farming',
  monnaies: { or: { nom: 'Or' } },
  classements: { victoires: { operateur: 'somme' } },
  modes: {
    // The demo's rule: each side has played before the end.
    min2: { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', ...COUNTING, actions_min: 2 },
    // Without the key: every match counts, as before.
    sans: { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', ...COUNTING },
    // Turn timers: an expired turn is the server's action, never counted.
    passe: { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', ...COUNTING, actions_min: 2, delai_tour_s: 600, sur_delai: 'passe' },
    abandon: { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', ...COUNTING, actions_min: 2, delai_tour_s: 600, sur_delai: 'abandon' },
  },
};

beforeAll(async () => {
  app = await startTestApp();
  key = await app.applyGame(GAME);
  api = client(app.baseUrl, key);
});
afterAll(async () => { await app?.close(); });

interface Player { token: string; id: string }
async function player(): Promise<Player> {
  const r = await api.register(`fa_${++counter}_${Math.random().toString(36).slice(2, 8)}`);
  return { token: r.token, id: r.data.joueur.id };
}
/** A match of `mode` between two new players; [X, O] in seat order. */
async function match(mode: string): Promise<{ id: string; x: Player; o: Player }> {
  const ps = [await player(), await player()];
  let last: any;
  for (const p of ps) last = (await api.post('/matchmaking/join', { mode_jeu: mode, elo_actuel: 1000 }, { token: p.token })).body;
  expect(last.status, JSON.stringify(last)).toBe('matched');
  const byId = new Map(ps.map((p) => [p.id, p]));
  const [x, o] = last.participants.map((s: any) => byId.get(s.joueur_id)!) as Player[];
  return { id: last.partie_id, x: x!, o: o! };
}
async function act(p: Player, partie_id: string, action: string, donnees: unknown = {}) {
  const r = await api.post('/match/action', { partie_id, action, donnees }, { token: p.token });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.partie;
}
const state = async (p: Player, id: string) => (await api.get(`/match/state?partie_id=${id}`, { token: p.token })).body.partie;

/** What the end paid, rated and credited to these players. */
async function outcome(...ps: Player[]) {
  const ids = ps.map((p) => p.id);
  const gold = await app.sql<{ n: number }>(
    `select coalesce(sum(delta), 0)::int as n from manette.ledger where player_id = any($1) and reason = 'recompense'`, [ids]);
  const rated = await app.sql<{ n: number }>('select count(*)::int as n from manette.ratings where player_id = any($1)', [ids]);
  const wins = await app.sql<{ n: number }>(
    'select coalesce(sum(value), 0)::int as n from manette.leaderboard_entries where player_id = any($1)', [ids]);
  return { or: gold[0]!.n, notes: rated[0]!.n, victoires: wins[0]!.n };
}
const NOTHING = { or: 0, notes: 0, victoires: 0 };

describe('a match below its mode\'s actions_min', () => {
  it('resigned at turn 1: the result stands, nothing paid, rated or credited, comptee false everywhere', async () => {
    const m = await match('min2');
    const end = await act(m.x, m.id, 'abandonner');
    expect(end).toMatchObject({ statut: 'terminee', gagnant_id: m.o.id, gagnant_equipe: 2, comptee: false });
    expect(await outcome(m.x, m.o)).toEqual(NOTHING);
    expect(await state(m.o, m.id)).toEqual(end);
    // The history says it too, and the SDK's replay rebuilds the final state exactly.
    const h = await api.get(`/match/history?partie_id=${m.id}`, { token: m.x.token });
    expect(h.body.comptee).toBe(false);
    expect(h.body.etat_initial.comptee).toBeNull();
  });

  it('one action then a resign (1 < 2): nothing paid, rated or credited', async () => {
    const m = await match('min2');
    const first = await act(m.x, m.id, 'jouer', { case: 4 });
    expect(first.comptee).toBeNull(); // while en_cours
    const end = await act(m.o, m.id, 'abandonner');
    expect(end).toMatchObject({ statut: 'terminee', gagnant_id: m.x.id, comptee: false });
    expect(await outcome(m.x, m.o)).toEqual(NOTHING);
    // GET /players/me: the mode's starting rating, no match played.
    expect((await api.get('/players/me', { token: m.x.token })).body.data.elo.min2).toEqual({ valeur: 1500, parties: 0 });
  });

  it('an expired turn is the server\'s action: `passe` does not count toward the minimum', async () => {
    const m = await match('passe');
    await act(m.x, m.id, 'jouer', { case: 4 });
    // O's turn expires (as if 15 minutes had passed: one expiry, X's own turn is not due yet): the server passes it, X plays on turn 3.
    await app.sql(`update manette.matches set updated_at = clock_timestamp() - interval '15 min' where id = $1`, [m.id]);
    expect(await state(m.o, m.id)).toMatchObject({ statut: 'en_cours', tour_joueur: m.x.id, numero_tour: 3 });
    const end = await act(m.x, m.id, 'abandonner');
    expect(end).toMatchObject({ statut: 'terminee', gagnant_id: m.o.id, comptee: false });
    expect(await outcome(m.x, m.o)).toEqual(NOTHING);
  });

  it('a turn that expires with `abandon` before the minimum: the result stands, nothing paid', async () => {
    const m = await match('abandon');
    await act(m.x, m.id, 'jouer', { case: 4 });
    await app.sql(`update manette.matches set updated_at = clock_timestamp() - interval '15 min' where id = $1`, [m.id]);
    expect(await state(m.x, m.id)).toMatchObject({ statut: 'terminee', gagnant_id: m.x.id, comptee: false });
    expect(await outcome(m.x, m.o)).toEqual(NOTHING);
  });

  it('the operator\'s end of a match with no action played counts nothing; a cancel says comptee false', async () => {
    const ended = await match('min2');
    const cancelled = await match('min2');
    const admin = new pg.Client({ connectionString: app.databaseUrl });
    await admin.connect();
    try {
      await admin.query('begin; set local role manette_admin');
      await admin.query('select manette_admin.match_cancel($1)', [cancelled.id]);
      await admin.query('commit');
    } finally {
      await admin.end();
    }
    // The operator's end, by the CLI: its answer and `match show` say it did not count.
    const end = await runManette(['match', 'end', 'farming-a', ended.id, '--gagnant', ended.x.id], app.databaseUrl, 'en_US.UTF-8');
    expect(end.code, end.stderr).toBe(0);
    expect(end.stdout).toContain('It ended before the mode’s actions_min: no reward, rating change or win.');
    const show = await runManette(['match', 'show', 'farming-a', ended.id], app.databaseUrl, 'en_US.UTF-8');
    expect(show.stdout).toMatch(/^counted +: no \(before the mode’s actions_min/m);
    expect(await state(ended.x, ended.id)).toMatchObject({ statut: 'terminee', gagnant_id: ended.x.id, comptee: false });
    expect(await state(cancelled.x, cancelled.id)).toMatchObject({ statut: 'annulee', comptee: false });
    expect(await outcome(ended.x, ended.o, cancelled.x, cancelled.o)).toEqual(NOTHING);
  });
});

describe('a match that reaches the minimum, and a mode without it', () => {
  it('two actions then a resign: pays, rates (1500 against 1500, K 32) and credits as before', async () => {
    const m = await match('min2');
    await act(m.x, m.id, 'jouer', { case: 4 });
    await act(m.o, m.id, 'jouer', { case: 0 });
    const end = await act(m.x, m.id, 'abandonner');
    expect(end).toMatchObject({ statut: 'terminee', gagnant_id: m.o.id, comptee: true });
    expect(await outcome(m.o)).toEqual({ or: 50, notes: 1, victoires: 1 });
    expect(await outcome(m.x)).toEqual({ or: 10, notes: 1, victoires: 0 });
    expect((await api.get('/players/me', { token: m.o.token })).body.data.elo.min2).toEqual({ valeur: 1516, parties: 1 });
    expect((await api.get('/players/me', { token: m.x.token })).body.data.elo.min2).toEqual({ valeur: 1484, parties: 1 });
  });

  it('a win (its fifth move ends it): counted; the SDK replay of the participant gives the same final state', async () => {
    const m = await match('min2');
    let end: any;
    for (const [p, c] of [[m.x, 0], [m.o, 3], [m.x, 1], [m.o, 4], [m.x, 2]] as [Player, number][]) end = await act(p, m.id, 'jouer', { case: c });
    expect(end).toMatchObject({ statut: 'terminee', gagnant_id: m.x.id, comptee: true });
    expect(await outcome(m.x)).toEqual({ or: 50, notes: 1, victoires: 1 });
    const h = await api.get(`/match/history?partie_id=${m.id}`, { token: m.o.token });
    expect(h.body.comptee).toBe(true);
    expect(h.body.actions.map((a: any) => a.numero)).toEqual([1, 2, 3, 4, 5]);
  });

  it('without actions_min, a match resigned at turn 1 still pays, rates and credits (existing games unchanged)', async () => {
    const m = await match('sans');
    const end = await act(m.x, m.id, 'abandonner');
    expect(end).toMatchObject({ statut: 'terminee', gagnant_id: m.o.id, comptee: true });
    expect(await outcome(m.o)).toEqual({ or: 50, notes: 1, victoires: 1 });
    expect(await outcome(m.x)).toEqual({ or: 10, notes: 1, victoires: 0 });
  });
});

describe('the SDK replay', () => {
  it('rebuilds comptee on the final state only, as the server answered it', async () => {
    const sdks = [] as { sdk: ReturnType<typeof createClient>; id: string }[];
    for (let i = 0; i < 2; i++) {
      const store = new Map<string, string>();
      const sdk = createClient({ baseUrl: app.baseUrl, apiKey: key, storage: {
        getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => { store.set(k, v); }, removeItem: (k: string) => { store.delete(k); } } });
      const me = await sdk.auth.register({ pseudo: `far_${++counter}_${Math.random().toString(36).slice(2, 6)}`, email: `far_${counter}@example.test`, password: 'motdepasse-solide' });
      sdks.push({ sdk, id: me.id });
    }
    let last: any;
    for (const s of sdks) last = await s.sdk.matchmaking.join('min2', 1000);
    expect(last.status).toBe('matched');
    const [x, o] = last.participants.map((p: any) => sdks.find((s) => s.id === p.joueur_id)!);
    const id: string = last.partie_id;
    const states = [await x.sdk.match(id).state()];
    states.push(await x.sdk.match(id).act('jouer', { case: 4 }));
    states.push(await o.sdk.match(id).act('abandonner', {}));
    expect(states.map((s) => s.comptee)).toEqual([null, null, false]);
    const r = await o.sdk.match(id).replay('morpion');
    expect(r.etats).toEqual(states);
  });
});

describe('the game file\'s actions_min', () => {
  const withMin = (v: unknown) => ({ ...GAME, jeu: 'farming-b', modes: { m: { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', actions_min: v } } });

  it('zod names the field of a bad value (French and English); absent stays absent', () => {
    for (const v of [-1, 2.5, '3', 10001]) {
      const fr = parseGameConfig(withMin(v), 'fr');
      expect(fr.ok).toBe(false);
      expect(!fr.ok && fr.error).toContain('modes.m.actions_min');
      const en = parseGameConfig(withMin(v), 'en');
      expect(!en.ok && en.error).toContain('modes.m.actions_min');
    }
    const ok = parseGameConfig(withMin(4));
    expect(ok.ok && ok.config.modes.m!.actions_min).toBe(4);
    const absent = parseGameConfig({ jeu: 'x', nom: 'X', modes: { m: { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion' } } });
    expect(absent.ok && 'actions_min' in absent.config.modes.m!).toBe(false);
  });

  it('the SQL apply refuses a bad value naming the field, and stores nothing of the game', async () => {
    for (const v of [-1, 2.5, '"3"', 10001, true]) {
      const db = new pg.Client({ connectionString: app.databaseUrl });
      await db.connect();
      try {
        await db.query('begin; set local role manette_admin');
        const file = JSON.stringify(withMin(0)).replace('"actions_min":0', `"actions_min":${v}`);
        const err = await db.query('select manette_admin.apply_game($1::jsonb, $2)', [file, 'sk_live_FARMINGFARMINGFARMINGFARMINGFARM12']).catch((e) => e);
        expect(err).toBeInstanceOf(Error);
        expect(err.message).toMatch(/^modes\.m\.actions_min : entier de 0 à 10000 attendu, reçu /);
      } finally {
        await db.query('rollback').catch(() => {});
        await db.end();
      }
    }
    expect(await app.sql("select 1 from manette.games where slug = 'farming-b'")).toEqual([]);
  });

  it('manette apply stores it (and 0 when the key is removed); a bad value is refused naming the field', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'farming-'));
    try {
      const file = path.join(dir, 'game.json');
      const stored = async () => (await app.sql<{ n: number }>(
        `select m.min_actions as n from manette.modes m join manette.games g on g.id = m.game_id where g.slug = 'farming-b' and m.code = 'm'`))[0]?.n;
      await writeFile(file, JSON.stringify(withMin(3)));
      const r = await runManette(['apply', file], app.databaseUrl, 'en_US.UTF-8');
      expect(r.code, r.stderr).toBe(0);
      expect(await stored()).toBe(3);
      const without = withMin(0) as { modes: { m: Record<string, unknown> } };
      delete without.modes.m.actions_min;
      await writeFile(file, JSON.stringify(without));
      expect((await runManette(['apply', file], app.databaseUrl, 'en_US.UTF-8')).code).toBe(0);
      expect(await stored()).toBe(0);
      await writeFile(file, JSON.stringify(withMin(-2)));
      const bad = await runManette(['apply', file, '--json'], app.databaseUrl, 'en_US.UTF-8');
      expect(bad.code).toBe(1);
      const envelope = JSON.parse(bad.stdout.trim().split('\n').pop()!);
      expect(envelope).toMatchObject({ ok: false, error: 'invalid_game_file' });
      expect(envelope.message).toContain('modes.m.actions_min');
      expect(await stored()).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('the demo\'s 1v1 and the studio template (manette init) set it', async () => {
    const demo = JSON.parse(await readFile(path.join(import.meta.dirname, '..', 'examples/demo/game.json'), 'utf8'));
    expect(demo.modes['1v1'].actions_min).toBe(2);
    expect(parseGameConfig(demo).ok).toBe(true);
    const studio = studioGameFile('mon-jeu', 'Mon jeu');
    expect(studio.modes['1v1'].actions_min).toBe(2);
    expect(studio.modes.nim.actions_min).toBe(2);
    expect(parseGameConfig(studio).ok).toBe(true);
  });
});
