// GET /match/history (docs/matches.md#history-and-replay), over real HTTP: a whole morpion
// match replayed from its history (every intermediate state rebuilt and compared with the
// state the server answered after each action), paging with depuis/limit/suivant, the
// rights (the same errors as GET /match/state), bad parameters, and the SDK's
// match(id).history() against the same server, and the migration's fill of older matches.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../sdk/src/index.js';
import { client, startTestApp, type TestApp } from './support/harness.js';

let app: TestApp;
let key: string;
let api: ReturnType<typeof client>;
let apiB: ReturnType<typeof client>;
let counter = 0;

const WIDE = { elo_ecart_initial: 10000 };
beforeAll(async () => {
  app = await startTestApp();
  // A game's own rule set, as a studio's migration would create it.
  await app.sql(`
    create schema hist_regles;
    create function hist_regles.pile(partie jsonb, joueur_id uuid, action text, donnees jsonb)
    returns jsonb language plpgsql as $$
    begin
      if action = 'initialiser' then return '{"etat_plateau": {"pile": 21}}'; end if;
      return jsonb_build_object('etat_plateau', jsonb_build_object('pile', (partie#>>'{etat_plateau,pile}')::integer - 1),
                                'numero_tour', (partie->>'numero_tour')::integer + 1);
    end
    $$;
    grant usage on schema hist_regles to manette_rules;
    grant execute on function hist_regles.pile(jsonb, uuid, text, jsonb) to manette_rules;`);
  key = await app.applyGame({
    jeu: 'history-a', nom: 'History A', modes: {
      '1v1': { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', ...WIDE },
      libre: { equipes: 2, joueurs_par_equipe: 1, regles: 'libre', ...WIDE },
      pile: { equipes: 2, joueurs_par_equipe: 1, regles: 'hist_regles.pile', ...WIDE },
    },
  });
  api = client(app.baseUrl, key);
  apiB = client(app.baseUrl, await app.applyGame({ jeu: 'history-b', nom: 'History B', modes: { '1v1': { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', ...WIDE } } }));
});
afterAll(async () => { await app?.close(); });

interface Player { token: string; id: string }
async function player(c = api): Promise<Player> {
  const r = await c.register(`hi_${++counter}_${Math.random().toString(36).slice(2, 8)}`);
  return { token: r.token, id: r.data.joueur.id };
}
async function match(mode: string, c = api): Promise<{ id: string; seats: Player[] }> {
  const ps = [await player(c), await player(c)];
  let last: any;
  for (const p of ps) last = (await c.post('/matchmaking/join', { mode_jeu: mode, elo_actuel: 1000 }, { token: p.token })).body;
  expect(last.status).toBe('matched');
  const byId = new Map(ps.map((p) => [p.id, p]));
  return { id: last.partie_id, seats: last.participants.map((x: any) => byId.get(x.joueur_id)!) };
}
const act = async (p: Player, partie_id: string, action: string, donnees: unknown) => {
  const r = await api.post('/match/action', { partie_id, action, donnees }, { token: p.token });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.partie;
};
const history = (p: Player, query: string, c = api) => c.get(`/match/history?${query}`, { token: p.token });

// Tic-tac-toe as docs/matches.md describes `morpion`, written again on the client side:
// what a game developer's replay does with the history.
const LINES = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];
function applyMorpion(partie: any, a: any): any {
  const seats = partie.participants;
  const mark = a.joueur_id === seats[0].joueur_id ? 'X' : 'O';
  const cases = [...partie.etat_plateau.cases];
  cases[a.donnees.case] = mark;
  const line = LINES.find((l) => l.every((i) => cases[i] === mark));
  const next = { ...partie, numero_tour: partie.numero_tour + 1, maj_le: a.cree_le };
  if (line) {
    return { ...next, etat_plateau: { ...partie.etat_plateau, cases, ligne: line }, statut: 'terminee', tour_joueur: null,
      gagnant_id: a.joueur_id, gagnant_equipe: seats.find((s: any) => s.joueur_id === a.joueur_id).equipe, termine_le: a.cree_le };
  }
  if (cases.every((c) => c !== null)) {
    return { ...next, etat_plateau: { ...partie.etat_plateau, cases }, statut: 'terminee', tour_joueur: null,
      gagnant_id: null, gagnant_equipe: null, termine_le: a.cree_le };
  }
  return { ...next, etat_plateau: { ...partie.etat_plateau, cases },
    tour_joueur: seats.find((s: any) => s.joueur_id !== a.joueur_id).joueur_id };
}

describe('replay', () => {
  for (const [name, moves] of [
    ['a win', [4, 0, 2, 1, 6]],
    ['a draw', [0, 1, 2, 4, 3, 5, 7, 6, 8]],
  ] as const) {
    it(`morpion, ${name}: the history rebuilds every state the server answered, exactly`, async () => {
      const { id, seats: [x, o] } = await match('1v1');
      const s0 = (await api.get(`/match/state?partie_id=${id}`, { token: x!.token })).body.partie;
      const answered: any[] = [];
      for (const [i, c] of moves.entries()) answered.push(await act(i % 2 === 0 ? x! : o!, id, 'jouer', { case: c }));
      const final = answered.at(-1);
      expect(final.statut).toBe('terminee');

      const r = await history(o!, `partie_id=${id}`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(Object.keys(r.body).sort()).toEqual(['actions', 'comptee', 'etat_initial', 'ok', 'partie_id', 'suivant']);
      expect(r.body.comptee).toBe(true); // the mode has no actions_min: every match counts
      expect(r.body).toMatchObject({ ok: true, partie_id: id, suivant: null });
      // The initial state is the match as it was before the first move.
      expect(r.body.etat_initial).toEqual(s0);
      // Every accepted action, in order, as sent.
      const actions = r.body.actions;
      expect(actions.map((a: any) => ({ ...a, cree_le: typeof a.cree_le }))).toEqual(moves.map((c, i) => ({
        numero: i + 1, joueur_id: (i % 2 === 0 ? x! : o!).id, action: 'jouer', donnees: { case: c }, numero_tour: i + 1, cree_le: 'string',
      })));
      expect(final.numero_tour - r.body.etat_initial.numero_tour).toBe(actions.length);
      // Rebuilt state after state: each equals what POST /match/action answered.
      let rebuilt = r.body.etat_initial;
      for (const [i, a] of actions.entries()) {
        rebuilt = applyMorpion(rebuilt, a);
        // comptee is not the rules' to say: the state that ends the match takes the history's.
        if (rebuilt.statut !== 'en_cours') rebuilt = { ...rebuilt, comptee: r.body.comptee };
        expect(rebuilt, `after action ${i + 1}`).toEqual(answered[i]);
      }
      // The finished match stays readable by both players, page after page.
      const paged: any[] = [];
      for (let depuis = 0, guard = 0; guard < 20; guard++) {
        const page = (await history(x!, `partie_id=${id}&depuis=${depuis}&limit=2`)).body;
        expect(page.etat_initial).toEqual(s0);
        paged.push(...page.actions);
        if (page.suivant === null) break;
        expect(page.suivant).toBe(page.actions.at(-1).numero);
        depuis = page.suivant;
      }
      expect(paged).toEqual(actions);
    });
  }
});

describe('paging', () => {
  it('depuis and limit: default 100, at most 500, suivant names the next page and is null at the end', async () => {
    const { id, seats: [a, b] } = await match('libre');
    for (let i = 1; i <= 101; i++) await act(i % 2 ? a! : b!, id, 'poser', { n: i });
    const numeros = (body: any) => body.actions.map((x: any) => x.numero);
    const all = Array.from({ length: 101 }, (_, i) => i + 1);

    let page = (await history(a!, `partie_id=${id}`)).body;
    expect(numeros(page)).toEqual(all.slice(0, 100));
    expect(page.suivant).toBe(100);
    expect(page.actions[6]).toMatchObject({ numero: 7, joueur_id: a!.id, action: 'poser', donnees: { n: 7 }, numero_tour: 7 });
    page = (await history(a!, `partie_id=${id}&depuis=100`)).body;
    expect(numeros(page)).toEqual([101]);
    expect(page.suivant).toBeNull();
    page = (await history(b!, `partie_id=${id}&limit=500`)).body;
    expect(numeros(page)).toEqual(all);
    expect(page.suivant).toBeNull();
    page = (await history(b!, `partie_id=${id}&depuis=10&limit=3`)).body;
    expect(numeros(page)).toEqual([11, 12, 13]);
    expect(page.suivant).toBe(13);
    page = (await history(b!, `partie_id=${id}&depuis=98&limit=3`)).body;   // ends exactly on the last
    expect(numeros(page)).toEqual([99, 100, 101]);
    expect(page.suivant).toBeNull();
    for (const depuis of [101, 5000, 2147483647]) {
      page = (await history(b!, `partie_id=${id}&depuis=${depuis}`)).body;
      expect(page.actions, String(depuis)).toEqual([]);
      expect(page.suivant).toBeNull();
    }
    // The initial state stays the libre one, whatever the board became.
    expect(page.etat_initial).toMatchObject({ etat_plateau: {}, numero_tour: 1, statut: 'en_cours', tour_joueur: a!.id });
    expect((await api.get(`/match/state?partie_id=${id}`, { token: a!.token })).body.partie.numero_tour).toBe(102);
  });
});

describe('errors', () => {
  it('a non-participant, another game\'s match, an unknown or malformed id: the very answer GET /match/state gives', async () => {
    const { id, seats: [x] } = await match('1v1');
    const other = await match('1v1', apiB);
    const stranger = await player();
    const cases: Array<[Player, string, number]> = [
      [stranger, id, 403], [x!, other.id, 404], [x!, '00000000-0000-0000-0000-000000000000', 404], [x!, 'abc', 404], [x!, `${id}x`, 404],
    ];
    for (const [who, partie_id, status] of cases) {
      const h = await history(who, `partie_id=${encodeURIComponent(partie_id)}`);
      const s = await api.get(`/match/state?partie_id=${encodeURIComponent(partie_id)}`, { token: who.token });
      expect(h.status, partie_id).toBe(status);
      expect(h.body, partie_id).toEqual(s.body);
      expect(h.body.ok).toBe(false);
    }
    expect((await history(stranger, `partie_id=${id}`)).body)
      .toEqual({ ok: false, error: 'not_participant', message: 'Tu ne participes pas à cette partie.' });
    // Over, still not theirs.
    await act(x!, id, 'abandonner', {});
    expect((await history(stranger, `partie_id=${id}`)).body.error).toBe('not_participant');
    expect((await history(x!, `partie_id=${id}`)).status).toBe(200);
  });

  it('auth: missing_key, missing_player, invalid_token (a token of another game)', async () => {
    const { id, seats: [x] } = await match('1v1');
    expect((await api.get(`/match/history?partie_id=${id}`, { token: x!.token, key: null })).body.error).toBe('missing_key');
    expect((await api.get(`/match/history?partie_id=${id}`)).body.error).toBe('missing_player');
    expect((await apiB.get(`/match/history?partie_id=${id}`, { token: x!.token })).body.error).toBe('invalid_token');
  });

  it('invalid_query for a missing, empty or repeated partie_id, a bad depuis or limit, or an unknown parameter', async () => {
    const { id, seats: [x] } = await match('1v1');
    await act(x!, id, 'jouer', { case: 4 });
    for (const q of ['', 'partie_id=', `partie_id=${id}&partie_id=${id}`, `partie_id=${id}&x=1`,
      `partie_id=${id}&depuis=-1`, `partie_id=${id}&depuis=abc`, `partie_id=${id}&depuis=1.5`, `partie_id=${id}&depuis=`,
      `partie_id=${id}&depuis=2147483648`, `partie_id=${id}&depuis=0&depuis=1`,
      `partie_id=${id}&limit=0`, `partie_id=${id}&limit=501`, `partie_id=${id}&limit=abc`, `partie_id=${id}&limit=10&limit=20`]) {
      const r = await history(x!, q);
      expect(r.status, q).toBe(400);
      expect(r.body.error, q).toBe('invalid_query');
      expect(r.body.ok).toBe(false);
    }
    // The edges that are valid.
    expect((await history(x!, `partie_id=${id}&depuis=0&limit=1`)).body.actions).toHaveLength(1);
    expect((await history(x!, `partie_id=${id}&depuis=2147483647&limit=500`)).body.actions).toEqual([]);
  });

  it('is in the OpenAPI document with its three parameters', async () => {
    const doc = (await api.get('/openapi.json')).body;
    expect(doc.paths['/match/history'].get.parameters.map((p: any) => p.name)).toEqual(['partie_id', 'depuis', 'limit']);
  });
});

describe('matches created before initial boards were kept', () => {
  it('the migration fills them where the initial board is known exactly, else etat_initial is null', async () => {
    // The migration's own UPDATE, run again on matches made to look older (initial_board null).
    const migration = readFileSync('supabase/migrations/20261127000200_match_history.sql', 'utf8');
    const fill = /^update manette\.matches m\n[\s\S]*?;$/m.exec(migration)?.[0];
    expect(fill).toBeDefined();
    const morpionPlayed = await match('1v1');
    const morpionNew = await match('1v1');
    const librePlayed = await match('libre');
    const pilePlayed = await match('pile');
    const pileNew = await match('pile');
    await act(morpionPlayed.seats[0]!, morpionPlayed.id, 'jouer', { case: 4 });
    await act(librePlayed.seats[0]!, librePlayed.id, 'poser', { a: 1 });
    await act(pilePlayed.seats[0]!, pilePlayed.id, 'prendre', {});
    const ids = [morpionPlayed, morpionNew, librePlayed, pilePlayed, pileNew].map((m) => m.id);
    const before = await app.sql('select id, initial_board from manette.matches where id = any($1)', [ids]);
    expect(before.map((r: any) => r.initial_board)).not.toContain(null);
    await app.sql('update manette.matches set initial_board = null where id = any($1)', [ids]);
    await app.sql(fill!);
    const board = async (m: { id: string; seats: Player[] }) =>
      (await history(m.seats[0]!, `partie_id=${m.id}`)).body.etat_initial?.etat_plateau ?? null;
    expect(await board(morpionPlayed)).toEqual({ cases: Array(9).fill(null) });
    expect(await board(morpionNew)).toEqual({ cases: Array(9).fill(null) });
    expect(await board(librePlayed)).toEqual({});
    expect(await board(pileNew)).toEqual({ pile: 21 });
    // A game's own rule set with actions played: not known exactly, so null; the actions remain.
    const old = (await history(pilePlayed.seats[1]!, `partie_id=${pilePlayed.id}`)).body;
    expect(old.etat_initial).toBeNull();
    expect(old.actions.map((a: any) => a.action)).toEqual(['prendre']);
    // Where it was filled, it is what the trigger had kept.
    const after = await app.sql('select id, initial_board from manette.matches where id = any($1)', [ids]);
    const kept = new Map(before.map((r: any) => [r.id, r.initial_board]));
    for (const r of after as any[]) if (r.id !== pilePlayed.id) expect(r.initial_board, r.id).toEqual(kept.get(r.id));
  });
});

describe('the SDK', () => {
  it('match(id).history() returns the page without ok, and pages with depuis/limit', async () => {
    const store = new Map<string, string>();
    const storage = { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => { store.set(k, v); }, removeItem: (k: string) => { store.delete(k); } };
    const sdk = createClient({ baseUrl: app.baseUrl, apiKey: key, storage });
    const me = await sdk.auth.register({ pseudo: `hs_${++counter}`, email: `hs_${counter}@example.test`, password: 'motdepasse-solide' });
    const other = await player();
    await sdk.matchmaking.join('libre', 1000);
    const matched = (await api.post('/matchmaking/join', { mode_jeu: 'libre', elo_actuel: 1000 }, { token: other.token })).body;
    expect(matched.status).toBe('matched');
    const m = sdk.match(matched.partie_id);
    await m.act('poser', { a: 1 });
    await act(other, m.id, 'poser', { b: 2 });
    const h = await m.history();
    expect(Object.keys(h).sort()).toEqual(['actions', 'comptee', 'etat_initial', 'partie_id', 'suivant']);
    expect(h.actions.map((a) => [a.numero, a.joueur_id, a.donnees])).toEqual([[1, me.id, { a: 1 }], [2, other.id, { b: 2 }]]);
    expect(h.etat_initial).toMatchObject({ id: m.id, numero_tour: 1, etat_plateau: {} });
    const page = await m.history({ depuis: 1, limit: 1 });
    expect(page.actions.map((a) => a.numero)).toEqual([2]);
    expect(page.suivant).toBeNull();
    await expect(m.history({ limit: 501 })).rejects.toMatchObject({ code: 'invalid_query' });
  });
});
