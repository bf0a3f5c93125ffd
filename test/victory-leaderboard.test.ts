// Server-side scoring (docs/matches.md, classement_victoires) over real HTTP: a morpion
// win gives exactly +1 to the winner and nothing to the loser, in GET /leaderboards/:id/
// scores; a draw gives nothing; abandonner credits the remaining player; matches ending at
// once are all counted, with ranks and bucket counters right; apply refuses a board that
// cannot count wins. Also GET /panel's English defaults and google_client_id (issue 10).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from './support/harness.js';

let app: TestApp;
let api: ReturnType<typeof client>;
let counter = 0;

const GOOGLE_ID = '1234-victoires.apps.googleusercontent.com';
const GAME = {
  jeu: 'victoires-a',
  nom: 'Victoires',
  google: { client_id: GOOGLE_ID },
  classements: { victoires: { operateur: 'somme' }, record: { operateur: 'meilleur' } },
  modes: {
    '1v1': { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', elo_ecart_initial: 10000, classement_victoires: 'victoires' },
    sans: { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', elo_ecart_initial: 10000 },
  },
  panel: { textes: { matchmaking_bouton: 'Go !' } },
};

beforeAll(async () => {
  app = await startTestApp();
  api = client(app.baseUrl, await app.applyGame(GAME));
});
afterAll(async () => { await app?.close(); });

interface Player { token: string; id: string; pseudo: string }
async function player(): Promise<Player> {
  const r = await api.register(`vi_${++counter}_${Math.random().toString(36).slice(2, 8)}`);
  return { token: r.token, id: r.data.joueur.id, pseudo: r.data.joueur.pseudo };
}

/** A match of `mode` between these two players (joined one after the other); players in seat order. */
async function match(ps: Player[], mode = '1v1'): Promise<{ id: string; seats: Player[] }> {
  let last: any;
  for (const p of ps) last = (await api.post('/matchmaking/join', { mode_jeu: mode, elo_actuel: 1000 }, { token: p.token })).body;
  expect(last.status).toBe('matched');
  const byId = new Map(ps.map((p) => [p.id, p]));
  const seats = last.participants.map((x: any) => byId.get(x.joueur_id)!);
  expect(new Set(seats)).toEqual(new Set(ps));
  return { id: last.partie_id, seats };
}

const act = (p: Player, partie_id: string, action: string, donnees?: unknown) =>
  api.post('/match/action', { partie_id, action, ...(donnees === undefined ? {} : { donnees }) }, { token: p.token });

async function play(id: string, moves: [Player, number][]) {
  for (const [p, c] of moves) {
    const r = await act(p, id, 'jouer', { case: c });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  }
}

/** Every move but the last of a game won by seat `winner` (0: X by 0-1-2, 1: O by 3-4-5); returns the last move. */
async function upToTheWinningMove(m: { id: string; seats: Player[] }, winner: 0 | 1): Promise<[Player, number]> {
  const [x, o] = m.seats as [Player, Player];
  if (winner === 0) {
    await play(m.id, [[x, 0], [o, 3], [x, 1], [o, 4]]);
    return [x, 2];
  }
  await play(m.id, [[x, 0], [o, 3], [x, 1], [o, 4], [x, 8]]);
  return [o, 5];
}

async function scores(board = 'victoires'): Promise<Map<string, { rang: number; valeur: number }>> {
  const r = await api.get(`/leaderboards/${board}/scores?limit=100`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return new Map(r.body.data.map((s: any) => [s.joueur_id, { rang: s.rang, valeur: s.valeur }]));
}

/** Bucket counters that disagree with the entries (the ranking reads them). */
async function countersOff(): Promise<number> {
  const rows = await app.sql<{ n: string }>(`
    select count(*) as n from (
      select e.leaderboard_id, e.period_start, e.bucket, count(*) as n from manette.leaderboard_entries e group by 1, 2, 3) x
    full join (select c.leaderboard_id, c.period_start, c.bucket, c.entries from manette.leaderboard_buckets c where c.entries <> 0) c
      using (leaderboard_id, period_start, bucket)
    where x.n is distinct from c.entries`);
  return Number(rows[0]!.n);
}

describe('classement_victoires', () => {
  it('a morpion win gives the winner exactly +1 and the loser nothing, in the final move\'s answer already', async () => {
    const m = await match([await player(), await player()]);
    const [x, o] = m.seats as [Player, Player];
    const [winner, cell] = await upToTheWinningMove(m, 1);
    expect((await scores()).has(o.id)).toBe(false);
    const final = await act(winner, m.id, 'jouer', { case: cell });
    expect(final.status).toBe(200);
    expect(final.body.partie).toMatchObject({ statut: 'terminee', gagnant_id: o.id, gagnant_equipe: 2 });
    // The final action returned after its commit: the win is there for the next request.
    const s = await scores();
    expect(s.get(o.id)?.valeur).toBe(1);
    expect(s.has(x.id)).toBe(false);
    expect((await scores('record')).has(o.id)).toBe(false);

    // A second win: 2, first place.
    const m2 = await match([o, x]);
    const oSeat = m2.seats.indexOf(o) as 0 | 1;
    const [w2, c2] = await upToTheWinningMove(m2, oSeat);
    expect((await act(w2, m2.id, 'jouer', { case: c2 })).body.partie.gagnant_id).toBe(o.id);
    const after = await scores();
    expect(after.get(o.id)).toEqual({ rang: 1, valeur: 2 });
    expect(after.has(x.id)).toBe(false);
  });

  it('a draw gives nothing to either player', async () => {
    const m = await match([await player(), await player()]);
    const [x, o] = m.seats as [Player, Player];
    await play(m.id, [[x, 0], [o, 1], [x, 2], [o, 4], [x, 3], [o, 5], [x, 7], [o, 6], [x, 8]]);
    const st = await api.get(`/match/state?partie_id=${m.id}`, { token: x.token });
    expect(st.body.partie).toMatchObject({ statut: 'terminee', gagnant_id: null, gagnant_equipe: null });
    const s = await scores();
    expect([s.has(x.id), s.has(o.id)]).toEqual([false, false]);
  });

  it('abandonner: the remaining player gets +1, the one who abandons nothing; a later action changes nothing', async () => {
    const m = await match([await player(), await player()]);
    const [x, o] = m.seats as [Player, Player];
    await play(m.id, [[x, 4]]);
    const r = await act(x, m.id, 'abandonner');
    expect(r.body.partie).toMatchObject({ statut: 'terminee', gagnant_id: o.id });
    const again = await act(o, m.id, 'abandonner');
    expect([again.status, again.body.reason]).toEqual([409, 'partie_terminee']);
    const s = await scores();
    expect(s.get(o.id)?.valeur).toBe(1);
    expect(s.has(x.id)).toBe(false);
  });

  it('a client cannot submit to a board that counts wins (forbidden), other boards are open', async () => {
    const p = await player();
    const r = await api.post('/leaderboards/victoires/submit', { valeur: 1000 }, { token: p.token });
    expect([r.status, r.body.ok, r.body.error]).toEqual([403, false, 'forbidden']);
    expect(typeof r.body.message).toBe('string');
    expect((await scores()).has(p.id)).toBe(false);
    const ok = await api.post('/leaderboards/record/submit', { valeur: 5 }, { token: p.token });
    expect([ok.status, ok.body.data?.valeur]).toEqual([200, 5]);
  });

  it('a mode without classement_victoires credits nothing', async () => {
    const m = await match([await player(), await player()], 'sans');
    const [winner, cell] = await upToTheWinningMove(m, 0);
    expect((await act(winner, m.id, 'jouer', { case: cell })).body.partie.gagnant_id).toBe(winner.id);
    const rows = await app.sql('select 1 from manette.leaderboard_entries where player_id = $1', [winner.id]);
    expect(rows).toEqual([]);
  });

  it('the same winning move sent many times at once counts once', async () => {
    const m = await match([await player(), await player()]);
    const [winner, cell] = await upToTheWinningMove(m, 0);
    const replies = await Promise.all(Array.from({ length: 6 }, () => act(winner, m.id, 'jouer', { case: cell })));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
    expect(replies.filter((r) => r.status === 409).map((r) => r.body.reason)).toEqual(Array(5).fill('partie_terminee'));
    expect((await scores()).get(winner.id)?.valeur).toBe(1);
  });

  it('many matches ending at once are all counted exactly, ranks and counters right', async () => {
    const before = await scores();
    // Round 1: 8 first wins at once (8 new entries in the same bucket).
    const pairs = await Promise.all(Array.from({ length: 8 }, async () => [await player(), await player()] as const));
    const round1: { id: string; seats: Player[] }[] = [];
    for (const [a, b] of pairs) round1.push(await match([a, b]));
    const finals1 = await Promise.all(round1.map((m, i) => upToTheWinningMove(m, (i % 2) as 0 | 1)));
    const winners = finals1.map(([w]) => w);
    const losers = round1.map((m, i) => m.seats[1 - (i % 2)]!);
    const replies1 = await Promise.all(finals1.map(([w, c], i) => act(w, round1[i]!.id, 'jouer', { case: c })));
    expect(replies1.map((r) => r.status)).toEqual(Array(8).fill(200));

    // Round 2, at once: the same 8 win again (entries move from 1 to 2) while 4 new pairs
    // finish their first match (new entries at 1).
    const fresh = await Promise.all(Array.from({ length: 4 }, async () => [await player(), await player()] as const));
    const round2: { id: string; seats: Player[] }[] = [];
    for (let i = 0; i < 8; i++) round2.push(await match([winners[i]!, losers[i]!]));
    for (const [a, b] of fresh) round2.push(await match([a, b]));
    const finals2 = await Promise.all(round2.map((m, i) =>
      upToTheWinningMove(m, i < 8 ? (m.seats.indexOf(winners[i]!) as 0 | 1) : 0)));
    const replies2 = await Promise.all(finals2.map(([w, c], i) => act(w, round2[i]!.id, 'jouer', { case: c })));
    expect(replies2.map((r) => r.status)).toEqual(Array(12).fill(200));
    const freshWinners = finals2.slice(8).map(([w]) => w);

    const s = await scores();
    for (const w of winners) expect(s.get(w.id)?.valeur, w.pseudo).toBe(2);
    for (const w of freshWinners) expect(s.get(w.id)?.valeur, w.pseudo).toBe(1);
    for (const l of [...losers, ...round2.slice(8).map((m) => m.seats[1]!)]) expect(s.has(l.id), l.pseudo).toBe(false);
    // Nobody else moved.
    expect(s.size).toBe(before.size + 12);
    for (const [id, v] of before) expect(s.get(id)?.valeur).toBe(v.valeur);
    // Competition ranks from the counters: 1 + the number of strictly better entries.
    const all = [...s.values()];
    for (const v of all) expect(v.rang).toBe(1 + all.filter((o) => o.valeur > v.valeur).length);
    expect(await countersOff()).toBe(0);
  });
});

describe('manette apply and classement_victoires', () => {
  const mode = (board: unknown) => ({ equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', classement_victoires: board });
  it.each([
    ['an unknown board', { classements: {} , modes: { duel: mode('nope') } }, /modes\.duel\.classement_victoires: classement inconnu « nope »/],
    ['a meilleur board', { classements: { r: {} }, modes: { duel: mode('r') } }, /modes\.duel\.classement_victoires: le classement « r » doit avoir l’opérateur somme \(il a « meilleur »\)/],
    ['a dernier board', { classements: { r: { operateur: 'dernier' } }, modes: { duel: mode('r') } }, /modes\.duel\.classement_victoires: .*« dernier »/],
    ['a somme board refusing 1', { classements: { r: { operateur: 'somme', valeur_max: 0 } }, modes: { duel: mode('r') } }, /modes\.duel\.classement_victoires: les bornes du classement « r » doivent admettre 1/],
    ['a board id that is not a slug', { classements: {}, modes: { duel: mode(3) } }, /modes\.duel\.classement_victoires/],
  ])('refuses %s, naming the field, and writes nothing', async (_name, extra, message) => {
    await expect(app.applyGame({ jeu: 'victoires-bad', nom: 'Bad', ...extra })).rejects.toThrow(message);
    expect(await app.sql('select 1 from manette.games where slug = $1', ['victoires-bad'])).toEqual([]);
  });

  it('refuses a change of the board that the mode counts on (a later apply of the same game)', async () => {
    await expect(app.applyGame({ ...GAME, classements: { victoires: { operateur: 'meilleur' } } }))
      .rejects.toThrow(/modes\.1v1\.classement_victoires: le classement « victoires » doit avoir l’opérateur somme/);
    const rows = await app.sql<{ operator: string }>(
      "select l.operator from manette.leaderboards l join manette.games g on g.id = l.game_id where g.slug = $1 and l.code = 'victoires'", [GAME.jeu]);
    expect(rows).toEqual([{ operator: 'somme' }]);
  });
});

describe('GET /panel: language and Google', () => {
  it('French defaults by default, English ones when Accept-Language prefers en; the game\'s texts win in both', async () => {
    const fr = await api.get('/panel');
    const en = await api.get('/panel', { headers: { 'accept-language': 'en-GB,en;q=0.9,fr;q=0.5' } });
    expect([fr.status, en.status]).toEqual([200, 200]);
    expect(Object.keys(en.body.data).sort()).toEqual(['connexions', 'google_client_id', 'textes', 'theme']);
    expect(fr.body.data.textes).toMatchObject({ connexion_titre: 'Connexion', connexion_bouton: 'Se connecter', matchmaking_bouton: 'Go !' });
    expect(en.body.data.textes).toMatchObject({
      connexion_titre: 'Sign in', connexion_bouton: 'Sign in', inscription_titre: 'Create an account',
      matchmaking_titre: 'Find a match', matchmaking_position: 'Position in queue: {position}',
      matchmaking_code_salon: 'Room code: {code_salon}', matchmaking_bouton: 'Go !',
    });
    expect(Object.keys(en.body.data.textes).sort()).toEqual(Object.keys(fr.body.data.textes).sort());
    for (const k of Object.keys(fr.body.data.textes)) {
      if (k !== 'matchmaking_bouton') expect(en.body.data.textes[k], k).not.toBe(fr.body.data.textes[k]);
    }
    expect(en.body.data.theme).toEqual(fr.body.data.theme);
    const frPref = await api.get('/panel', { headers: { 'accept-language': 'fr-CA,en;q=0.5' } });
    expect(frPref.body.data.textes.connexion_titre).toBe('Connexion');
  });

  it('carries the game\'s Google client id, or null', async () => {
    expect((await api.get('/panel')).body.data.google_client_id).toBe(GOOGLE_ID);
    const other = client(app.baseUrl, await app.applyGame({ jeu: 'victoires-sans-google', nom: 'Sans Google' }));
    const r = await other.get('/panel');
    expect(r.status).toBe(200);
    expect(r.body.data.google_client_id).toBeNull();
  });

  it('is documented with google_client_id in the OpenAPI document', async () => {
    const doc = (await api.get('/openapi.json')).body;
    expect(doc.paths['/panel'].get.responses['200'].content['application/json'].schema.properties.data)
      .toEqual({ $ref: '#/components/schemas/Panel' });
    const panel = doc.components.schemas.Panel;
    expect(panel.required).toEqual(['theme', 'textes', 'google_client_id', 'connexions']);
    expect(panel.properties.google_client_id.type).toEqual(['string', 'null']);
  });
});
