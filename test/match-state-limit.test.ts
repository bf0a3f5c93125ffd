// Bounded match state (docs/matches.md, "Bounded state"), over real HTTP: the game file's
// taille_max_etat checked by apply, a state of exactly the limit accepted, an action that
// would make it larger refused with action_refusee / etat_trop_grand and the match left as
// it was (GET /match/state, the history, the broadcasts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type Reply, type TestApp } from './support/harness.js';

let app: TestApp;
let api: ReturnType<typeof client>;
let small: ReturnType<typeof client>;
let morpion: ReturnType<typeof client>;
let largest: ReturnType<typeof client>;
let counter = 0;

const LIBRE = { libre: { equipes: 2, joueurs_par_equipe: 1, regles: 'libre', elo_ecart_initial: 10000 } };

beforeAll(async () => {
  app = await startTestApp();
  api = client(app.baseUrl, await app.applyGame({ jeu: 'etat-defaut', nom: 'Défaut', modes: LIBRE }));
  small = client(app.baseUrl, await app.applyGame({ jeu: 'etat-petit', nom: 'Petit', taille_max_etat: 4096, modes: LIBRE }));
  morpion = client(app.baseUrl, await app.applyGame({ jeu: 'etat-morpion', nom: 'Morpion', taille_max_etat: 1048576,
    modes: { ...LIBRE, morpion: { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', elo_ecart_initial: 10000 } } }));
  largest = client(app.baseUrl, await app.applyGame({ jeu: 'etat-max', nom: 'Max', taille_max_etat: 1048576, modes: LIBRE }));
});
afterAll(async () => { await app?.close(); });

interface Player { token: string; id: string }
async function match(c: ReturnType<typeof client>, mode = 'libre'): Promise<{ id: string; seats: Player[] }> {
  const ps: Player[] = [];
  for (let i = 0; i < 2; i++) {
    const r = await c.register(`etat_${++counter}_${Math.random().toString(36).slice(2, 8)}`);
    ps.push({ token: r.token, id: r.data.joueur.id });
  }
  let last: any;
  for (const p of ps) last = (await c.post('/matchmaking/join', { mode_jeu: mode, elo_actuel: 1000 }, { token: p.token })).body;
  expect(last.status).toBe('matched');
  const byId = new Map(ps.map((p) => [p.id, p]));
  return { id: last.partie_id, seats: last.participants.map((x: any) => byId.get(x.joueur_id)!) };
}

const act = (c: ReturnType<typeof client>, p: Player, partie_id: string, donnees: unknown, headers: Record<string, string> = {}) =>
  c.post('/match/action', { partie_id, action: 'poser', donnees }, { token: p.token, headers });
const state = (c: ReturnType<typeof client>, p: Player, partie_id: string) =>
  c.get(`/match/state?partie_id=${encodeURIComponent(partie_id)}`, { token: p.token });

/** What a refusal must leave alone: the history's length and the messages sent (realtime.messages). */
async function counts(partieId: string) {
  const [row] = await app.sql<{ actions: string; messages: string }>(
    `select (select count(*) from manette.match_actions where match_id = $1) as actions,
            (select count(*) from realtime.messages where topic = 'manette_partie_' || $1::text) as messages`, [partieId]);
  return row;
}

/** `libre` merges {"s": <n characters>} into {}: as Postgres writes it, {"s": "..."} is n + 9 bytes. */
const sized = (bytes: number, ch = 'a') => ({ s: ch.repeat(bytes - 9) });

function refusedTooLarge(r: Reply) {
  expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(409);
  expect(r.body).toMatchObject({ ok: false, error: 'action_refusee', reason: 'etat_trop_grand' });
}

describe('taille_max_etat (default 65536 bytes)', () => {
  it('a state of exactly 65536 bytes is accepted; one byte more is etat_trop_grand and nothing changes', async () => {
    const { id, seats: [a, b] } = await match(api);
    const ok = await act(api, a!, id, sized(65536));
    expect(ok.status, JSON.stringify(ok.body).slice(0, 300)).toBe(200);
    expect(ok.body.partie.numero_tour).toBe(2);
    const rows = await app.sql<{ bytes: number }>('select octet_length(board::text) as bytes from manette.matches where id = $1', [id]);
    expect(rows).toEqual([{ bytes: 65536 }]);

    const before = await state(api, b!, id);
    const countsBefore = await counts(id);
    expect(countsBefore).toEqual({ actions: '1', messages: '2' });

    refusedTooLarge(await act(api, b!, id, { ...sized(65536), t: 1 }));
    refusedTooLarge(await act(api, b!, id, sized(65537)));
    const fr = await act(api, b!, id, sized(65537));
    expect(fr.body.message).toBe('Cette action rendrait l’état de la partie trop volumineux.');
    const en = await act(api, b!, id, sized(65537), { 'accept-language': 'en' });
    expect(en.body.message).toBe('This action would make the match state too large.');

    const after = await state(api, b!, id);
    expect(after.status).toBe(200);
    expect(after.body.partie.numero_tour).toBe(before.body.partie.numero_tour);
    expect(after.body.partie.etat_plateau).toEqual(before.body.partie.etat_plateau);
    expect(after.body.partie.maj_le).toBe(before.body.partie.maj_le);
    expect(await counts(id)).toEqual(countsBefore);

    // The match goes on: a state of the same size, then abandonner.
    expect((await act(api, b!, id, sized(65536, 'b'))).status).toBe(200);
    const end = await api.post('/match/action', { partie_id: id, action: 'abandonner' }, { token: a!.token });
    expect(end.body.partie.statut).toBe('terminee');
  });
});

describe('taille_max_etat set by the game file (4096)', () => {
  it('counts bytes, not characters, and refuses only past the game’s own limit', async () => {
    const { id, seats: [a] } = await match(small);
    expect((await act(small, a!, id, sized(4096))).status).toBe(200);
    refusedTooLarge(await act(small, a!, id, sized(4097)));
    // 2100 "é" are 2100 characters but 4200 bytes.
    refusedTooLarge(await act(small, a!, id, { s: 'é'.repeat(2100) }));
    expect((await act(small, a!, id, { s: 'é'.repeat(2000) })).status).toBe(200);
    const s = await state(small, a!, id);
    expect(s.body.partie.etat_plateau).toEqual({ s: 'é'.repeat(2000) });
    expect(s.body.partie.numero_tour).toBe(3);
  });
});

// Issue 31: what a rule set does not read is not stored, and an action's `donnees` (its
// history row, its `action` event) is bounded like the state.
describe('donnees: what is stored is what is read, and bounded', () => {
  function refused(r: Reply, reason: string) {
    expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(409);
    expect(r.body).toMatchObject({ ok: false, error: 'action_refusee', reason });
  }

  it('morpion refuses a key it does not know (donnees_invalides): two moves of 900 KiB no longer make a 1.8 MB history', async () => {
    const { id, seats: [a, b] } = await match(morpion, 'morpion');
    const play = (p: Player, donnees: unknown) => morpion.post('/match/action', { partie_id: id, action: 'jouer', donnees }, { token: p.token });
    refused(await play(a!, { case: 0, bourrage: 'a'.repeat(900 * 1024) }), 'donnees_invalides');
    refused(await play(a!, { case: 0, x: 1 }), 'donnees_invalides');
    expect((await play(a!, { case: 0 })).status).toBe(200);
    refused(await play(b!, { case: 4, y: null }), 'donnees_invalides');
    expect((await play(b!, { case: 4 })).status).toBe(200);
    const history = await morpion.get(`/match/history?partie_id=${id}`, { token: a!.token });
    expect(history.status).toBe(200);
    expect(JSON.stringify(history.body).length).toBeLessThan(4096);
  });

  it('abandonner reads no donnees and keeps none: any key is donnees_invalides, nothing written; {} resigns', async () => {
    const { id, seats: [a] } = await match(small);
    const before = await counts(id);
    refused(await small.post('/match/action', { partie_id: id, action: 'abandonner', donnees: { raison: 'x'.repeat(900) } }, { token: a!.token }), 'donnees_invalides');
    refused(await small.post('/match/action', { partie_id: id, action: 'abandonner', donnees: { a: null } }, { token: a!.token }), 'donnees_invalides');
    expect(await counts(id)).toEqual(before);
    const r = await small.post('/match/action', { partie_id: id, action: 'abandonner', donnees: {} }, { token: a!.token });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.partie.statut).toBe('terminee');
  });

  it('an action whose donnees are larger than taille_max_etat is donnees_trop_grandes, even when the board does not change', async () => {
    const { id, seats: [a] } = await match(small);
    const before = await counts(id);
    const r = await small.post('/match/action', { partie_id: id, action: 'abandonner', donnees: sized(4097) }, { token: a!.token });
    refused(r, 'donnees_trop_grandes');
    expect(r.body.message).toBe('Les données de cette action sont trop volumineuses.');
    expect(await counts(id)).toEqual(before);
    expect((await state(small, a!, id)).body.partie.statut).toBe('en_cours');
  });

  it('an action whose event would pass the smallest plan\'s payload limit (256 KB) is refused, not silently not broadcast', async () => {
    const { id, seats: [a] } = await match(largest);
    const before = await counts(id);
    refused(await largest.post('/match/action', { partie_id: id, action: 'abandonner', donnees: sized(256_000) }, { token: a!.token }), 'donnees_trop_grandes');
    expect(await counts(id)).toEqual(before);
    // Under it: accepted, written and both events sent.
    expect((await largest.post('/match/action', { partie_id: id, action: 'jouer', donnees: sized(200_000) }, { token: a!.token })).status).toBe(200);
    expect(await counts(id)).toEqual({ actions: String(Number(before!.actions) + 1), messages: String(Number(before!.messages) + 2) });
  });
});

describe('apply checks taille_max_etat', () => {
  it.each([
    ['1023', 1023], ['1048577', 1048577], ['a fraction', 2048.5], ['a string', '4096'], ['null', null],
  ])('refuses %s, naming the field and writing nothing', async (_name, value) => {
    const slug = `etat-refus-${++counter}`;
    await expect(app.applyGame({ jeu: slug, nom: 'Refus', taille_max_etat: value })).rejects.toThrow(/taille_max_etat/);
    expect(await app.sql('select 1 from manette.games where slug = $1', [slug])).toEqual([]);
  });

  it('accepts the bounds 1024 and 1048576, and a re-apply changes the limit', async () => {
    await app.applyGame({ jeu: 'etat-bornes', nom: 'Bornes', taille_max_etat: 1024 });
    const read = async () => (await app.sql<{ max_state_bytes: number }>(
      `select max_state_bytes from manette.games where slug = 'etat-bornes'`))[0]!.max_state_bytes;
    expect(await read()).toBe(1024);
    await app.applyGame({ jeu: 'etat-bornes', nom: 'Bornes', taille_max_etat: 1048576 });
    expect(await read()).toBe(1048576);
    await app.applyGame({ jeu: 'etat-bornes', nom: 'Bornes' });
    expect(await read()).toBe(65536);
  });
});
