// Server-side rating (docs/matches.md, "Server-side rating") over real HTTP: in a mode with
// `"elo": "serveur"` matchmaking pairs players by the server's ratings whatever elo_actuel
// they send (9999 against 0 is matched, 1500 against 1500 is not when the server knows
// them 1000 points apart); participants carry each one's rating at the start; a match's end
// updates both players' ratings, which GET /players/me shows; many matches ending at once,
// over several rounds, leave every rating exactly where the formula puts it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../sdk/src/index.js';
import { client, startTestApp, type TestApp } from './support/harness.js';

let app: TestApp;
let api: ReturnType<typeof client>;
let key: string;
let counter = 0;

const GAME = {
  jeu: 'ratings-a',
  nom: 'Classement Elo',
  modes: {
    // A window of 50 points that never widens: players further apart never meet.
    classe: { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', elo: 'serveur',
      elo_ecart_initial: 50, elo_elargissement_par_s: 0 },
    // Anyone meets anyone: the next two in the queue.
    ouvert: { equipes: 2, joueurs_par_equipe: 1, regles: 'libre', elo: 'serveur', elo_ecart_initial: 10000 },
    client: { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion' },
  },
};

beforeAll(async () => {
  app = await startTestApp();
  key = await app.applyGame(GAME);
  api = client(app.baseUrl, key);
});
afterAll(async () => { await app?.close(); });

interface Player { token: string; id: string; pseudo: string }
async function player(): Promise<Player> {
  const r = await api.register(`ra_${++counter}_${Math.random().toString(36).slice(2, 8)}`);
  return { token: r.token, id: r.data.joueur.id, pseudo: r.data.joueur.pseudo };
}
const join = (p: Player, mode: string, elo_actuel: number) =>
  api.post('/matchmaking/join', { mode_jeu: mode, elo_actuel }, { token: p.token });
const act = (p: Player, partie_id: string, action: string, donnees?: unknown) =>
  api.post('/match/action', { partie_id, action, ...(donnees === undefined ? {} : { donnees }) }, { token: p.token });
async function me(p: Player): Promise<Record<string, { valeur: number; parties: number }>> {
  const r = await api.get('/players/me', { token: p.token });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data.elo;
}
/** Stores a player's server rating in a mode, as earlier matches would have. */
async function setRating(p: Player, mode: string, rating: number) {
  await app.sql(`
    insert into manette.ratings (game_id, mode_id, player_id, rating, matches_played)
    select m.game_id, m.id, $2, $3, 10 from manette.modes m join manette.games g on g.id = m.game_id
    where g.slug = 'ratings-a' and m.code = $1`, [mode, p.id, rating]);
}

// Elo as docs/matches.md writes it (two teams): E = 1 / (1 + 10^((Rb − Ra)/400)), Δ = K (S − E).
const expected = (a: number, b: number) => 1 / (1 + 10 ** ((b - a) / 400));
const K = 32;

describe('server-side rating', () => {
  let p1: Player, p2: Player;
  let firstMatch: string;

  it('matchmaking uses the server\'s ratings and ignores elo_actuel', async () => {
    const [p3, p4] = [await player(), await player()];
    [p1, p2] = [await player(), await player()];
    await setRating(p3, 'classe', 1000);
    await setRating(p4, 'classe', 2000);

    // p3 and p4 claim the same 1500: by elo_actuel they would meet at once.
    expect((await join(p3, 'classe', 1500)).body.status).toBe('waiting');
    expect((await join(p4, 'classe', 1500)).body.status).toBe('waiting');
    // p1 and p2 claim 9999 and 0: by elo_actuel they could never meet (a window of 50).
    expect((await join(p1, 'classe', 9999)).body.status).toBe('waiting');
    const matched = await join(p2, 'classe', 0);
    expect(matched.status, JSON.stringify(matched.body)).toBe(200);
    expect(matched.body.status).toBe('matched');
    expect(new Set(matched.body.participants.map((x: any) => x.joueur_id))).toEqual(new Set([p1.id, p2.id]));
    // Each one's rating at the start: the server's (elo_depart, 1500), not the number sent.
    expect(matched.body.participants.map((x: any) => x.elo)).toEqual([1500, 1500]);
    firstMatch = matched.body.partie_id;

    // p3 and p4 are still waiting: the server knows them 1000 points apart.
    for (const p of [p3, p4]) {
      const st = await api.get('/matchmaking/status', { token: p.token });
      expect(st.body.status, p.pseudo).toBe('waiting');
    }
    const queued = await app.sql<{ player_id: string; elo: number }>(
      'select player_id, elo from manette.queue_entries where player_id = any($1) order by elo', [[p3.id, p4.id]]);
    expect(queued).toEqual([{ player_id: p3.id, elo: 1000 }, { player_id: p4.id, elo: 2000 }]);
    for (const p of [p3, p4]) await api.post('/matchmaking/leave', undefined, { token: p.token });
  });

  it('elo_actuel is still required and checked, and a refused join changes nothing', async () => {
    const p = await player();
    for (const body of [{ mode_jeu: 'classe' }, { mode_jeu: 'classe', elo_actuel: 10001 }, { mode_jeu: 'classe', elo_actuel: 'x' }]) {
      const r = await api.post('/matchmaking/join', body, { token: p.token });
      expect([r.status, r.body.ok, r.body.error], JSON.stringify(body)).toEqual([400, false, 'validation_failed']);
    }
    expect((await api.get('/matchmaking/status', { token: p.token })).body.status).toBe('idle');
  });

  it('GET /players/me shows the ratings before and after a match ends; participants carry the start ratings', async () => {
    // Before any rated match: elo_depart, 0 matches, for each serveur mode only.
    expect(await me(p1)).toEqual({ classe: { valeur: 1500, parties: 0 }, ouvert: { valeur: 1500, parties: 0 } });

    const st = await api.get(`/match/state?partie_id=${firstMatch}`, { token: p1.token });
    const seats = st.body.partie.participants.map((x: any) => x.joueur_id as string);
    const [x, o] = seats.map((id: string) => (id === p1.id ? p1 : p2)) as [Player, Player];
    expect(st.body.partie.participants.map((q: any) => q.elo)).toEqual([1500, 1500]);
    for (const [who, c] of [[x, 0], [o, 3], [x, 1], [o, 4]] as [Player, number][]) {
      expect((await act(who, firstMatch, 'jouer', { case: c })).status).toBe(200);
    }
    expect((await me(x)).classe).toEqual({ valeur: 1500, parties: 0 });
    const final = await act(x, firstMatch, 'jouer', { case: 2 });
    expect(final.body.partie).toMatchObject({ statut: 'terminee', gagnant_id: x.id });

    // Updated in the transaction that ended the match: the next request sees it.
    expect(await me(x)).toEqual({ classe: { valeur: 1516, parties: 1 }, ouvert: { valeur: 1500, parties: 0 } });
    expect(await me(o)).toEqual({ classe: { valeur: 1484, parties: 1 }, ouvert: { valeur: 1500, parties: 0 } });
    // The finished match keeps the ratings its players started with.
    const after = await api.get(`/match/state?partie_id=${firstMatch}`, { token: o.token });
    expect(after.body.partie.participants.map((q: any) => q.elo)).toEqual([1500, 1500]);

    // A rematch: 32 points apart, within the window; it starts from the new ratings, whatever is sent.
    expect((await join(o, 'classe', 10000)).body.status).toBe('waiting');
    const again = await join(x, 'classe', 0);
    expect(again.body.status).toBe('matched');
    const start = new Map(again.body.participants.map((q: any) => [q.joueur_id, q.elo]));
    expect(start).toEqual(new Map([[x.id, 1516], [o.id, 1484]]));
    // o (the lower rated) wins this one by abandon of x.
    expect((await act(x, again.body.partie_id, 'abandonner')).body.partie.gagnant_id).toBe(o.id);
    const gain = K * (1 - expected(1484, 1516));
    expect((await me(o)).classe!.valeur).toBeCloseTo(1484 + gain, 9);
    expect((await me(x)).classe!.valeur).toBeCloseTo(1516 - gain, 9);
    expect((await me(x)).classe!.parties).toBe(2);

    // The SDK reads the same: auth.ratings().
    const store = new Map<string, string>();
    const storage = { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => { store.set(k, v); }, removeItem: (k: string) => { store.delete(k); } };
    const sdk = createClient({ baseUrl: app.baseUrl, apiKey: key, storage });
    await sdk.auth.login({ identifiant: x.pseudo, password: 'motdepasse-solide' });
    expect(await sdk.auth.ratings()).toEqual(await me(x));
    expect((await sdk.auth.ratings()).classe!.valeur).toBeCloseTo(1516 - gain, 9);
  });

  it('a client mode keeps using elo_actuel and rates nobody', async () => {
    const [a, b] = [await player(), await player()];
    expect((await join(a, 'client', 4321)).body.status).toBe('waiting');
    const m = await join(b, 'client', 4300);
    expect(m.body.status).toBe('matched');
    expect(new Map(m.body.participants.map((q: any) => [q.joueur_id, q.elo]))).toEqual(new Map([[a.id, 4321], [b.id, 4300]]));
    await act(a, m.body.partie_id, 'abandonner');
    expect(await me(b)).toEqual({ classe: { valeur: 1500, parties: 0 }, ouvert: { valeur: 1500, parties: 0 } });
    expect(await app.sql('select 1 from manette.ratings where player_id = any($1)', [[a.id, b.id]])).toEqual([]);
  });

  it('many matches ending at once, round after round, leave every rating exactly where the formula puts it', async () => {
    const N = 24;
    const ps = await Promise.all(Array.from({ length: N }, () => player()));
    const model = new Map(ps.map((p) => [p.id, 1500]));
    const played = new Map(ps.map((p) => [p.id, 0]));
    for (let round = 0; round < 3; round++) {
      // Pair i with i + N/2 shifted by the round, so that ratings differ from round 2 on.
      const pairs: [Player, Player][] = [];
      for (let i = 0; i < N / 2; i++) pairs.push([ps[i]!, ps[N / 2 + ((i + round) % (N / 2))]!]);
      const matches: { id: string; a: Player; b: Player }[] = [];
      for (const [a, b] of pairs) {
        expect((await join(a, 'ouvert', 0)).body.status).toBe('waiting');
        const r = await join(b, 'ouvert', 10000);
        expect(r.body.status, JSON.stringify(r.body)).toBe('matched');
        // The start ratings are the model's: every earlier round was exact.
        const start = new Map<string, number>(r.body.participants.map((q: any) => [q.joueur_id, q.elo]));
        expect(start.get(a.id)).toBeCloseTo(model.get(a.id)!, 9);
        expect(start.get(b.id)).toBeCloseTo(model.get(b.id)!, 9);
        matches.push({ id: r.body.partie_id, a, b });
      }
      // Every match ends at once; the loser alternates between the pair's two sides.
      const losers = matches.map((m, i) => ((i + round) % 2 === 0 ? m.a : m.b));
      const replies = await Promise.all(matches.map((m, i) => act(losers[i]!, m.id, 'abandonner')));
      expect(replies.map((r) => r.status)).toEqual(Array(matches.length).fill(200));
      matches.forEach((m, i) => {
        const loser = losers[i]!;
        const winner = loser === m.a ? m.b : m.a;
        const [rw, rl] = [model.get(winner.id)!, model.get(loser.id)!];
        model.set(winner.id, rw + K * (1 - expected(rw, rl)));
        model.set(loser.id, rl + K * (0 - expected(rl, rw)));
        played.set(winner.id, played.get(winner.id)! + 1);
        played.set(loser.id, played.get(loser.id)! + 1);
      });
    }
    const rows = await app.sql<{ player_id: string; rating: number; matches_played: number }>(`
      select r.player_id, r.rating, r.matches_played from manette.ratings r join manette.modes m on m.id = r.mode_id
      where m.code = 'ouvert' and r.player_id = any($1)`, [ps.map((p) => p.id)]);
    expect(rows).toHaveLength(N);
    for (const r of rows) {
      expect(r.rating).toBeCloseTo(model.get(r.player_id)!, 9);
      expect(r.matches_played).toBe(played.get(r.player_id));
    }
    // Two-team Elo with one K moves points from one player to the other: the sum stays.
    expect(rows.reduce((s, r) => s + r.rating, 0)).toBeCloseTo(N * 1500, 6);
    // And each player reads the same through GET /players/me.
    for (const p of ps.slice(0, 4)) expect((await me(p)).ouvert!.valeur).toBeCloseTo(model.get(p.id)!, 9);
  });
});

describe('manette apply and the rating keys', () => {
  const mode = (extra: Record<string, unknown>) => ({ equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', ...extra });
  it.each([
    ['an elo other than client or serveur', { elo: 'maison' }, /modes\.m\.elo: .*"client"\|"serveur"/],
    ['elo_k 0', { elo: 'serveur', elo_k: 0 }, /modes\.m\.elo_k: .*>=1/],
    ['elo_k 101', { elo: 'serveur', elo_k: 101 }, /modes\.m\.elo_k: .*<=100/],
    ['elo_depart below 0', { elo: 'serveur', elo_depart: -1 }, /modes\.m\.elo_depart: .*>=0/],
    ['elo_depart above 10000', { elo: 'serveur', elo_depart: 10001 }, /modes\.m\.elo_depart: .*<=10000/],
  ])('refuses %s, naming the field, and writes nothing', async (_name, extra, message) => {
    await expect(app.applyGame({ jeu: 'ratings-bad', nom: 'Bad', modes: { m: mode(extra) } })).rejects.toThrow(message);
    expect(await app.sql('select 1 from manette.games where slug = $1', ['ratings-bad'])).toEqual([]);
  });

  it('stores the keys on the mode; a file without them keeps the defaults (client, 32, 1500)', async () => {
    await app.applyGame({ jeu: 'ratings-ok', nom: 'Ok', modes: { a: mode({ elo: 'serveur', elo_k: 24.5, elo_depart: 1200 }), b: mode({}) } });
    const rows = await app.sql(`select m.code, m.elo_source, m.elo_k, m.elo_start from manette.modes m join manette.games g on g.id = m.game_id
      where g.slug = 'ratings-ok' order by m.code`);
    expect(rows).toEqual([
      { code: 'a', elo_source: 'serveur', elo_k: 24.5, elo_start: 1200 },
      { code: 'b', elo_source: 'client', elo_k: 32, elo_start: 1500 },
    ]);
  });
});
