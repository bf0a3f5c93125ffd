// Matches (docs/matches.md), over real HTTP: POST /match/action and GET /match/state,
// every rule set and reason, abandonner, history, errors, the end of a match freeing its
// players for matchmaking, a game's own rule function (and apply refusing a bad one), and
// concurrent moves (one lock per match: of many moves for one turn exactly one counts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type Reply, type TestApp } from './support/harness.js';

let app: TestApp;
let api: ReturnType<typeof client>;
let apiB: ReturnType<typeof client>;
let counter = 0;

const WIDE = { elo_ecart_initial: 10000 };
const GAME = {
  jeu: 'match-a',
  nom: 'Matches A',
  modes: {
    '1v1': { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', ...WIDE },
    libre: { equipes: 2, joueurs_par_equipe: 1, regles: 'libre', ...WIDE },
    tour: { equipes: 2, joueurs_par_equipe: 1, regles: 'tour_par_tour', ...WIDE },
    '2v2': { equipes: 2, joueurs_par_equipe: 2, regles: 'tour_par_tour', ...WIDE },
    trio: { equipes: 3, joueurs_par_equipe: 1, regles: 'libre', ...WIDE },
    solo: { equipes: 1, joueurs_par_equipe: 1, regles: 'libre' },
    compteur: { equipes: 2, joueurs_par_equipe: 1, regles: 'jeu_regles.compteur', ...WIDE },
    bogue: { equipes: 2, joueurs_par_equipe: 1, regles: 'jeu_regles.bogue', ...WIDE },
  },
};

// A game's own rule functions (README, "Writing a rule function"), created like a studio's
// migration would.
const RULES_SQL = `
create schema jeu_regles;
-- A shared counter: "ajouter" {n: 1..10} adds n; 30 or more ends the match, won by the
-- player who reached it; the turn does not matter.
create function jeu_regles.compteur(partie jsonb, joueur_id uuid, action text, donnees jsonb)
returns jsonb language plpgsql as $$
declare
  n     numeric;
  total numeric;
begin
  if action = 'initialiser' then
    return jsonb_build_object('etat_plateau', jsonb_build_object('total', 0));
  elsif action <> 'ajouter' then
    perform manette.refuse('action_inconnue');
  end if;
  if jsonb_typeof(donnees->'n') is distinct from 'number' then
    perform manette.refuse('donnees_invalides');
  end if;
  n := (donnees->'n')::numeric;
  if n > 10 then
    perform manette.refuse('trop_grand');
  end if;
  total := (partie#>>'{etat_plateau,total}')::numeric + n;
  return jsonb_build_object('etat_plateau', jsonb_build_object('total', total),
                            'numero_tour', (partie->>'numero_tour')::integer + 1)
      || case when total >= 30 then jsonb_build_object('statut', 'terminee', 'gagnant_id', joueur_id,
              'gagnant_equipe', (select (p->>'equipe')::integer from jsonb_array_elements(partie->'participants') p
                                 where p->>'joueur_id' = joueur_id::text))
         else '{}'::jsonb end;
end
$$;
-- Buggy on purpose: an unknown field, a cast error, a division by zero.
create function jeu_regles.bogue(partie jsonb, joueur_id uuid, action text, donnees jsonb)
returns jsonb language plpgsql as $$
begin
  if action = 'initialiser' then perform manette.refuse('action_inconnue'); end if; -- starts from {}
  if action = 'champ' then return '{"etat": {}}'; end if;
  if action = 'cast' then return jsonb_build_object('numero_tour', 'x'::integer); end if;
  if action = 'tour' then return jsonb_build_object('tour_joueur', gen_random_uuid()); end if;
  if action = 'chaine' then return '{"numero_tour": "2"}'; end if;
  if action = 'equipe' then return '{"gagnant_equipe": "1"}'; end if;
  if action = 'statut' then return '{"statut": "fini"}'; end if;
  return jsonb_build_object('numero_tour', 1 / 0);
end
$$;
create function jeu_regles.sans_droits(partie jsonb, joueur_id uuid, action text, donnees jsonb)
returns jsonb language sql as $$ select '{}'::jsonb $$;
create function jeu_regles.texte(partie jsonb, joueur_id uuid, action text, donnees jsonb)
returns text language sql as $$ select '' $$;
grant usage on schema jeu_regles to manette_rules;
grant execute on function jeu_regles.compteur(jsonb, uuid, text, jsonb), jeu_regles.bogue(jsonb, uuid, text, jsonb),
  jeu_regles.texte(jsonb, uuid, text, jsonb) to manette_rules;
revoke execute on function jeu_regles.sans_droits(jsonb, uuid, text, jsonb) from public;
`;

beforeAll(async () => {
  app = await startTestApp();
  await app.sql(RULES_SQL);
  api = client(app.baseUrl, await app.applyGame(GAME));
  apiB = client(app.baseUrl, await app.applyGame({ jeu: 'match-b', nom: 'Matches B', modes: { '1v1': GAME.modes['1v1'] } }));
});
afterAll(async () => { await app?.close(); });

interface Player { token: string; id: string; pseudo: string }
async function player(c = api): Promise<Player> {
  const r = await c.register(`ma_${++counter}_${Math.random().toString(36).slice(2, 8)}`);
  return { token: r.token, id: r.data.joueur.id, pseudo: r.data.joueur.pseudo };
}

/** A match of `mode` formed through /matchmaking/join; players in seat order. */
async function match(mode: string, size: number, c = api): Promise<{ id: string; seats: Player[] }> {
  const ps = await Promise.all(Array.from({ length: size }, () => player(c)));
  let last: any;
  for (const p of ps) last = (await c.post('/matchmaking/join', { mode_jeu: mode, elo_actuel: 1000 }, { token: p.token })).body;
  expect(last.status).toBe('matched');
  const byId = new Map(ps.map((p) => [p.id, p]));
  return { id: last.partie_id, seats: last.participants.map((x: any) => byId.get(x.joueur_id)!) };
}

const act = (p: Player, partie_id: string, action: string, donnees?: unknown, extra: Record<string, unknown> = {}, c = api) =>
  c.post('/match/action', { partie_id, action, ...(donnees === undefined ? {} : { donnees }), ...extra }, { token: p.token });
const state = (p: Player, partie_id: string, c = api) => c.get(`/match/state?partie_id=${encodeURIComponent(partie_id)}`, { token: p.token });
const mmStatus = (p: Player) => api.get('/matchmaking/status', { token: p.token });

function refused(r: Reply, reason: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(409);
  expect(r.body).toMatchObject({ ok: false, error: 'action_refusee', reason });
  expect(typeof r.body.message).toBe('string');
}
function accepted(r: Reply) {
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(Object.keys(r.body).sort()).toEqual(['ok', 'partie']);
  return r.body.partie;
}
const empty9 = () => Array(9).fill(null);
const PARTIE_KEYS = ['code_salon', 'comptee', 'cree_le', 'etat_plateau', 'gagnant_equipe', 'gagnant_id', 'id', 'maj_le', 'mode_jeu',
  'numero_tour', 'participants', 'statut', 'termine_le', 'tour_expire_le', 'tour_joueur'];

describe('morpion', () => {
  it('a whole game: {ok, partie} after each move, turns alternate, three in a row wins, players become idle', async () => {
    const { id, seats: [x, o] } = await match('1v1', 2);
    const s0 = await state(x!, id);
    expect(s0.status).toBe(200);
    expect(Object.keys(s0.body).sort()).toEqual(['ok', 'partie']);
    expect(Object.keys(s0.body.partie).sort()).toEqual(PARTIE_KEYS);
    expect(s0.body.partie).toMatchObject({
      id, mode_jeu: '1v1', statut: 'en_cours', tour_joueur: x!.id, numero_tour: 1, etat_plateau: { cases: empty9() },
      gagnant_id: null, gagnant_equipe: null, termine_le: null,
      participants: [{ joueur_id: x!.id, pseudo: x!.pseudo, equipe: 1 }, { joueur_id: o!.id, pseudo: o!.pseudo, equipe: 2 }],
    });

    let p = accepted(await act(x!, id, 'jouer', { case: 4 }));
    expect(p).toMatchObject({ statut: 'en_cours', tour_joueur: o!.id, numero_tour: 2 });
    expect(p.etat_plateau.cases).toEqual([null, null, null, null, 'X', null, null, null, null]);
    expect(Date.parse(p.maj_le)).toBeGreaterThanOrEqual(Date.parse(s0.body.partie.maj_le));
    p = accepted(await act(o!, id, 'jouer', { case: 0 }));
    expect(p).toMatchObject({ tour_joueur: x!.id, numero_tour: 3 });
    accepted(await act(x!, id, 'jouer', { case: 2 }));
    accepted(await act(o!, id, 'jouer', { case: 1 }));
    p = accepted(await act(x!, id, 'jouer', { case: 6 }));   // 2, 4, 6: the anti-diagonal
    expect(p).toMatchObject({
      statut: 'terminee', gagnant_id: x!.id, gagnant_equipe: 1, tour_joueur: null, numero_tour: 6,
      etat_plateau: { cases: ['O', 'O', 'X', null, 'X', null, 'X', null, null], ligne: [2, 4, 6] },
    });
    expect(p.termine_le).toEqual(p.maj_le);
    expect((await state(o!, id)).body.partie).toEqual(p);

    refused(await act(o!, id, 'jouer', { case: 8 }), 'partie_terminee');
    refused(await act(o!, id, 'abandonner'), 'partie_terminee');
    // The end of the match frees both players (match_players.live follows the status).
    expect((await mmStatus(x!)).body).toEqual({ ok: true, status: 'idle' });
    expect((await mmStatus(o!)).body).toEqual({ ok: true, status: 'idle' });
    expect((await api.post('/matchmaking/join', { mode_jeu: 'libre', elo_actuel: 1000 }, { token: o!.token })).body.status).toBe('waiting');
    await api.post('/matchmaking/leave', undefined, { token: o!.token });

    // The history: every accepted action, in order, with the turn it was played in.
    const history = await app.sql(`select seq, player_id, action, data, turn_number from manette.match_actions
                                   where match_id = $1 order by seq`, [id]);
    expect(history).toEqual([
      { seq: 1, player_id: x!.id, action: 'jouer', data: { case: 4 }, turn_number: 1 },
      { seq: 2, player_id: o!.id, action: 'jouer', data: { case: 0 }, turn_number: 2 },
      { seq: 3, player_id: x!.id, action: 'jouer', data: { case: 2 }, turn_number: 3 },
      { seq: 4, player_id: o!.id, action: 'jouer', data: { case: 1 }, turn_number: 4 },
      { seq: 5, player_id: x!.id, action: 'jouer', data: { case: 6 }, turn_number: 5 },
    ]);
  });

  it('a full board without a line is a draw: terminee, no winner', async () => {
    const { id, seats: [x, o] } = await match('1v1', 2);
    const moves = [0, 1, 2, 4, 3, 5, 7, 6, 8];
    let p: any;
    for (const [i, c] of moves.entries()) p = accepted(await act(i % 2 === 0 ? x! : o!, id, 'jouer', { case: c }));
    expect(p).toMatchObject({ statut: 'terminee', gagnant_id: null, gagnant_equipe: null, tour_joueur: null, numero_tour: 10,
      etat_plateau: { cases: ['X', 'O', 'X', 'X', 'O', 'O', 'O', 'X', 'X'] } });
    expect(p.etat_plateau).not.toHaveProperty('ligne');
    expect(p.termine_le).not.toBeNull();
    expect((await mmStatus(x!)).body.status).toBe('idle');
  });

  it('refuses with each reason, changes nothing, and says why in French or English', async () => {
    const { id, seats: [x, o] } = await match('1v1', 2);
    accepted(await act(x!, id, 'jouer', { case: 0 }));
    const before = (await state(x!, id)).body.partie;

    refused(await act(o!, id, 'poser', { case: 1 }), 'action_inconnue');
    refused(await act(o!, id, 'initialiser', {}), 'action_inconnue');
    refused(await act(x!, id, 'jouer', { case: 1 }), 'pas_ton_tour');
    for (const donnees of [{}, { case: '4' }, { case: 1.5 }, { case: null }, { case: [1] }]) {
      refused(await act(o!, id, 'jouer', donnees), 'donnees_invalides');
    }
    refused(await act(o!, id, 'jouer'), 'donnees_invalides');        // donnees defaults to {}
    for (const c of [9, -1, 100, 1e300]) refused(await act(o!, id, 'jouer', { case: c }), 'hors_plateau');
    refused(await act(o!, id, 'jouer', { case: 0 }), 'case_occupee');
    refused(await act(o!, id, 'jouer', { case: 1 }, { numero_tour: 1 }), 'tour_perime');

    const fr = await act(o!, id, 'jouer', { case: 0 });
    expect(fr.body).toEqual({ ok: false, error: 'action_refusee', reason: 'case_occupee', message: 'Cette case est déjà prise.' });
    const en = await api.post('/match/action', { partie_id: id, action: 'jouer', donnees: { case: 0 } },
      { token: o!.token, headers: { 'accept-language': 'en' } });
    expect(en.body).toEqual({ ok: false, error: 'action_refusee', reason: 'case_occupee', message: 'This square is already taken.' });
    expect((await act(x!, id, 'jouer', { case: 5 })).body.message).toBe('Ce n’est pas ton tour.');

    expect((await state(o!, id)).body.partie).toEqual(before);
    expect(await app.sql('select count(*)::int as n from manette.match_actions where match_id = $1', [id])).toEqual([{ n: 1 }]);
    // 4.0 is the integer 4.
    expect(accepted(await act(o!, id, 'jouer', { case: 4.0 })).etat_plateau.cases[4]).toBe('O');
  });
});

describe('numero_tour (tour_perime)', () => {
  it('an action may name the turn it is meant for: a stale one is refused, the current one (or null) accepted', async () => {
    const { id, seats: [a, b] } = await match('tour', 2);
    accepted(await act(a!, id, 'jouer', { x: 1 }, { numero_tour: 1 }));
    refused(await act(b!, id, 'jouer', { x: 2 }, { numero_tour: 1 }), 'tour_perime');
    refused(await act(b!, id, 'jouer', { x: 2 }, { numero_tour: 3 }), 'tour_perime');
    expect(accepted(await act(b!, id, 'jouer', { x: 2 }, { numero_tour: 2 })).numero_tour).toBe(3);
    expect(accepted(await act(a!, id, 'jouer', { x: 3 }, { numero_tour: null })).numero_tour).toBe(4);
    // tour_perime is checked before the turn: the other player also gets it.
    refused(await act(a!, id, 'jouer', {}, { numero_tour: 2 }), 'tour_perime');
  });
});

describe('libre and tour_par_tour', () => {
  it('libre: any participant, any action, donnees merged into etat_plateau, numero_tour counts actions', async () => {
    const { id, seats: [a, b] } = await match('libre', 2);
    let p = accepted(await act(b!, id, 'poser', { x: 1, y: { z: 2 } }));
    expect(p).toMatchObject({ statut: 'en_cours', tour_joueur: a!.id, numero_tour: 2, etat_plateau: { x: 1, y: { z: 2 } } });
    p = accepted(await act(b!, id, 'bouger', { y: 3, w: null }));
    expect(p).toMatchObject({ tour_joueur: a!.id, numero_tour: 3, etat_plateau: { x: 1, y: 3, w: null } });
    p = accepted(await act(a!, id, 'rien'));
    expect(p).toMatchObject({ numero_tour: 4, etat_plateau: { x: 1, y: 3, w: null } });
  });

  it('tour_par_tour: only tour_joueur acts; the turn goes round the seats (team 1 first)', async () => {
    const { id, seats } = await match('2v2', 4);
    const p0 = (await state(seats[0]!, id)).body.partie;
    expect(p0.participants.map((x: any) => x.equipe)).toEqual([1, 1, 2, 2]);
    expect(p0.tour_joueur).toBe(seats[0]!.id);
    for (let turn = 0; turn < 6; turn++) {
      const who = seats[turn % 4]!;
      for (const other of seats.filter((s) => s !== who)) refused(await act(other, id, 'coup', { t: turn }), 'pas_ton_tour');
      const p = accepted(await act(who, id, 'coup', { [`t${turn}`]: turn }));
      expect(p.tour_joueur).toBe(seats[(turn + 1) % 4]!.id);
      expect(p.numero_tour).toBe(turn + 2);
      expect(p.etat_plateau[`t${turn}`]).toBe(turn);
    }
  });
});

describe('abandonner', () => {
  it('1v1: any time, by either player (not only on their turn): the other wins', async () => {
    const { id, seats: [x, o] } = await match('1v1', 2);
    accepted(await act(x!, id, 'jouer', { case: 4 }));
    accepted(await act(o!, id, 'jouer', { case: 0 }));
    const p = accepted(await act(o!, id, 'abandonner'));   // x's turn
    expect(p).toMatchObject({ statut: 'terminee', gagnant_id: x!.id, gagnant_equipe: 1, tour_joueur: null, numero_tour: 4,
      etat_plateau: { cases: ['O', null, null, null, 'X', null, null, null, null] } });
    expect(p.termine_le).not.toBeNull();
    expect((await mmStatus(x!)).body.status).toBe('idle');
    expect((await mmStatus(o!)).body.status).toBe('idle');
  });

  it('2 teams of 2: the other team wins (gagnant_equipe; gagnant_id null: no single winner)', async () => {
    const { id, seats } = await match('2v2', 4);
    const p = accepted(await act(seats[3]!, id, 'abandonner', {}));
    expect(p).toMatchObject({ statut: 'terminee', gagnant_equipe: 1, gagnant_id: null, tour_joueur: null });
    for (const s of seats) expect((await mmStatus(s)).body.status).toBe('idle');
  });

  it('3 teams, or 1: the match ends without a winner', async () => {
    const trio = await match('trio', 3);
    expect(accepted(await act(trio.seats[0]!, trio.id, 'abandonner'))).toMatchObject({ statut: 'terminee', gagnant_equipe: null, gagnant_id: null });
    const solo = await match('solo', 1);
    expect(accepted(await act(solo.seats[0]!, solo.id, 'abandonner'))).toMatchObject({ statut: 'terminee', gagnant_equipe: null, gagnant_id: null });
    for (const s of [...trio.seats, ...solo.seats]) expect((await mmStatus(s)).body.status).toBe('idle');
  });
});

describe('errors', () => {
  it('match_not_found (404) for a malformed id, an unknown id, or a match of another game', async () => {
    const { id, seats: [x] } = await match('1v1', 2);
    const other = await match('1v1', 2, apiB);
    const stranger = await player();
    for (const partie_id of ['abc', '', '00000000-0000-0000-0000-000000000000', `${id}x`, other.id]) {
      const r = await act(x!, partie_id, 'jouer', { case: 0 });
      expect(r.status, partie_id).toBe(404);
      expect(r.body).toEqual({ ok: false, error: 'match_not_found', message: 'Partie introuvable.' });
      if (partie_id !== '') expect((await state(x!, partie_id)).body.error).toBe('match_not_found');
    }
    expect((await act(stranger, other.id, 'abandonner')).body.error).toBe('match_not_found');
    expect((await state(other.seats[0]!, other.id, apiB)).status).toBe(200);
  });

  it('not_participant (403) for a player of the game outside the match, even once it is over', async () => {
    const { id, seats: [x] } = await match('1v1', 2);
    const stranger = await player();
    for (const r of [await act(stranger, id, 'jouer', { case: 0 }), await act(stranger, id, 'abandonner'), await state(stranger, id)]) {
      expect(r.status).toBe(403);
      expect(r.body).toEqual({ ok: false, error: 'not_participant', message: 'Tu ne participes pas à cette partie.' });
    }
    accepted(await act(x!, id, 'abandonner'));
    expect((await state(stranger, id)).body.error).toBe('not_participant');
    expect((await act(stranger, id, 'jouer', { case: 0 })).body.error).toBe('not_participant');
  });

  it('validation_failed (400) for a body of the wrong shape; nothing is played', async () => {
    const { id, seats: [x] } = await match('1v1', 2);
    const cases: Array<[unknown, string]> = [
      [{ action: 'jouer', donnees: {} }, 'partie_id'],
      [{ partie_id: 12, action: 'jouer', donnees: {} }, 'partie_id'],
      [{ partie_id: id, donnees: {} }, 'action'],
      [{ partie_id: id, action: 3, donnees: {} }, 'action'],
      [{ partie_id: id, action: '', donnees: {} }, 'action'],
      [{ partie_id: id, action: 'jouer', donnees: [1] }, 'donnees'],
      [{ partie_id: id, action: 'jouer', donnees: 'case 1' }, 'donnees'],
      [{ partie_id: id, action: 'jouer', donnees: null }, 'donnees'],
      [{ partie_id: id, action: 'jouer', donnees: {}, numero_tour: 0 }, 'numero_tour'],
      [{ partie_id: id, action: 'jouer', donnees: {}, numero_tour: 1.5 }, 'numero_tour'],
      [{ partie_id: id, action: 'jouer', donnees: {}, numero_tour: '1' }, 'numero_tour'],
    ];
    for (const [body, champ] of cases) {
      const r = await api.post('/match/action', body, { token: x!.token });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error).toBe('validation_failed');
      expect(r.body.details.map((d: any) => d.champ)).toContain(champ);
    }
    expect((await state(x!, id)).body.partie.numero_tour).toBe(1);
  });

  it('auth: missing_key, invalid_key, missing_player, invalid_token (a token of another game)', async () => {
    const { id, seats: [x] } = await match('1v1', 2);
    expect((await api.post('/match/action', { partie_id: id, action: 'jouer', donnees: { case: 0 } }, { token: x!.token, key: null })).body.error).toBe('missing_key');
    expect((await api.post('/match/action', { partie_id: id, action: 'jouer', donnees: { case: 0 } }, { token: x!.token, key: 'sk_live_' + 'Z'.repeat(40) })).body.error).toBe('invalid_key');
    expect((await api.post('/match/action', { partie_id: id, action: 'jouer', donnees: { case: 0 } })).body.error).toBe('missing_player');
    expect((await apiB.post('/match/action', { partie_id: id, action: 'jouer', donnees: { case: 0 } }, { token: x!.token })).body.error).toBe('invalid_token');
    expect((await api.get(`/match/state?partie_id=${id}`)).body.error).toBe('missing_player');
    expect((await api.request('POST', '/match/action', { raw: '{"partie_id":', token: x!.token, headers: { 'content-type': 'application/json' } })).body.error).toBe('invalid_json');
  });

  it('both endpoints are in the OpenAPI document', async () => {
    const doc = (await api.get('/openapi.json')).body;
    const action = doc.paths['/match/action'].post;
    expect(Object.keys(action.requestBody.content['application/json'].schema.properties).sort())
      .toEqual(['action', 'donnees', 'numero_tour', 'partie_id']);
    expect(doc.paths['/match/state'].get.parameters.map((p: any) => p.name)).toEqual(['partie_id']);
  });

  it('GET /match/state: invalid_query when partie_id is missing, empty, repeated, or beside an unknown parameter', async () => {
    const { id, seats: [x] } = await match('1v1', 2);
    for (const q of ['', '?partie_id=', `?partie_id=${id}&partie_id=${id}`, `?partie_id=${id}&x=1`]) {
      const r = await api.get(`/match/state${q}`, { token: x!.token });
      expect(r.status, q).toBe(400);
      expect(r.body.error).toBe('invalid_query');
    }
  });
});

describe('a game\'s own rule function', () => {
  it('is called for the initial board and every action; its refusals carry its reasons', async () => {
    const { id, seats: [a, b] } = await match('compteur', 2);
    expect((await state(a!, id)).body.partie).toMatchObject({ etat_plateau: { total: 0 }, numero_tour: 1 });
    expect(accepted(await act(b!, id, 'ajouter', { n: 10 }))).toMatchObject({ etat_plateau: { total: 10 }, numero_tour: 2 });
    const r = await act(a!, id, 'ajouter', { n: 11 });
    refused(r, 'trop_grand');
    expect(r.body.message).toBe('Action refusée.');   // a reason without its own text
    refused(await act(a!, id, 'retirer', { n: 1 }), 'action_inconnue');
    accepted(await act(a!, id, 'ajouter', { n: 10 }));
    const end = accepted(await act(a!, id, 'ajouter', { n: 10 }));
    expect(end).toMatchObject({ statut: 'terminee', gagnant_id: a!.id, gagnant_equipe: 1, etat_plateau: { total: 30 } });
    expect(end.termine_le).not.toBeNull();
    refused(await act(b!, id, 'ajouter', { n: 1 }), 'partie_terminee');
    expect((await mmStatus(b!)).body.status).toBe('idle');
  });

  it('a function that refuses initialiser starts from {}; a buggy result is internal_error and changes nothing', async () => {
    const { id, seats: [a] } = await match('bogue', 2);
    const before = (await state(a!, id)).body.partie;
    expect(before.etat_plateau).toEqual({});
    for (const action of ['champ', 'cast', 'tour', 'chaine', 'equipe', 'statut', 'zero']) {
      const r = await act(a!, id, action, {});
      expect(r.status, action).toBe(500);
      expect(r.body).toEqual({ ok: false, error: 'internal_error', message: 'Erreur interne du serveur.' });
    }
    expect((await state(a!, id)).body.partie).toEqual(before);
    // abandonner never reaches the rule function.
    expect(accepted(await act(a!, id, 'abandonner'))).toMatchObject({ statut: 'terminee' });
  });

  it('apply refuses a mode whose rule set cannot be played, names the field, and writes nothing', async () => {
    const bad: Array<[unknown, RegExp]> = [
      [{ equipes: 2, joueurs_par_equipe: 1, regles: 'perso' }, /modes\.m\.regles : jeu de règles inconnu « perso »/],
      [{ equipes: 2, joueurs_par_equipe: 1, regles: 'jeu_regles.absente' }, /modes\.m\.regles : fonction de règles introuvable : jeu_regles\.absente\(partie jsonb, joueur_id uuid, action text, donnees jsonb\) returns jsonb/],
      [{ equipes: 2, joueurs_par_equipe: 1, regles: 'jeu_regles.texte' }, /modes\.m\.regles : la fonction de règles doit être .* returns jsonb/],
      [{ equipes: 2, joueurs_par_equipe: 1, regles: 'jeu_regles.sans_droits' }, /modes\.m\.regles : manette_rules .*doit pouvoir exécuter .*grant execute on function jeu_regles\.sans_droits.* to manette_rules;/],
      [{ equipes: 3, joueurs_par_equipe: 1, regles: 'morpion' }, /modes\.m\.regles : morpion se joue à deux/],
      [{ equipes: 2, joueurs_par_equipe: 2, regles: 'morpion' }, /modes\.m\.regles : morpion se joue à deux/],
    ];
    for (const [mode, message] of bad) {
      await expect(app.applyGame({ jeu: 'match-bad', nom: 'Bad', modes: { m: mode } })).rejects.toThrow(message);
    }
    expect(await app.sql(`select 1 from manette.games where slug = 'match-bad'`)).toHaveLength(0);
    // A bad mode added to an existing game leaves the game as it was.
    await expect(app.applyGame({ ...GAME, modes: { ...GAME.modes, m: { equipes: 2, joueurs_par_equipe: 1, regles: 'x.y' } } }))
      .rejects.toThrow(/modes\.m\.regles/);
    expect(await app.sql(`select code from manette.modes m join manette.games g on g.id = m.game_id
                          where g.slug = 'match-a' and code = 'm'`)).toHaveLength(0);
  });
});

describe('concurrency: one lock per match', () => {
  it('morpion: 20 simultaneous moves of the player whose turn it is → 1 accepted, 19 pas_ton_tour, one mark', async () => {
    const { id, seats: [x] } = await match('1v1', 2);
    const rs = await Promise.all(Array.from({ length: 20 }, (_, i) => act(x!, id, 'jouer', { case: i % 9 })));
    expect(rs.filter((r) => r.status === 200)).toHaveLength(1);
    expect(rs.filter((r) => r.status === 409 && r.body.reason === 'pas_ton_tour')).toHaveLength(19);
    const p = (await state(x!, id)).body.partie;
    expect(p.etat_plateau.cases.filter((c: unknown) => c !== null)).toEqual(['X']);
    expect(p.numero_tour).toBe(2);
    expect(await app.sql('select count(*)::int as n from manette.match_actions where match_id = $1', [id])).toEqual([{ n: 1 }]);
  });

  it('morpion: the same with numero_tour → 1 accepted, 19 tour_perime', async () => {
    const { id, seats: [x] } = await match('1v1', 2);
    const rs = await Promise.all(Array.from({ length: 20 }, (_, i) => act(x!, id, 'jouer', { case: i % 9 }, { numero_tour: 1 })));
    expect(rs.filter((r) => r.status === 200)).toHaveLength(1);
    expect(rs.filter((r) => r.status === 409 && r.body.reason === 'tour_perime')).toHaveLength(19);
    expect((await state(x!, id)).body.partie.etat_plateau.cases.filter((c: unknown) => c !== null)).toHaveLength(1);
  });

  it('tour_par_tour: both players firing at once for the same turn → only the turn holder\'s move counts', async () => {
    const { id, seats: [a, b] } = await match('tour', 2);
    for (let turn = 1; turn <= 8; turn++) {
      const holder = turn % 2 === 1 ? a! : b!;
      const [ra, rb] = await Promise.all([a!, b!].map((p) => act(p, id, 'coup', { [`t${turn}`]: p.pseudo }, { numero_tour: turn })));
      const winner = holder === a ? ra! : rb!;
      const loser = holder === a ? rb! : ra!;
      expect(accepted(winner).numero_tour).toBe(turn + 1);
      expect(loser.status).toBe(409);
      expect(['pas_ton_tour', 'tour_perime']).toContain(loser.body.reason);
    }
    const p = (await state(a!, id)).body.partie;
    expect(p.numero_tour).toBe(9);
    expect(Object.entries(p.etat_plateau)).toEqual(
      Array.from({ length: 8 }, (_, i) => [`t${i + 1}`, (i % 2 === 0 ? a! : b!).pseudo]));
  });

  it('tour_par_tour without numero_tour: racing moves are serialized, none lost (numero_tour = 1 + accepted)', async () => {
    const { id, seats: [a, b] } = await match('tour', 2);
    let ok = 0;
    for (let round = 0; round < 10; round++) {
      const rs = await Promise.all([a!, b!, a!, b!].map((p, i) => act(p, id, 'coup', { [`r${round}_${i}`]: true })));
      ok += rs.filter((r) => r.status === 200).length;
      for (const r of rs) if (r.status !== 200) refused(r, 'pas_ton_tour');
    }
    const p = (await state(a!, id)).body.partie;
    expect(p.numero_tour).toBe(1 + ok);
    expect(Object.keys(p.etat_plateau)).toHaveLength(ok);
    const seqs = await app.sql('select seq, turn_number, player_id from manette.match_actions where match_id = $1 order by seq', [id]);
    expect(seqs.map((s) => s.seq)).toEqual(Array.from({ length: ok }, (_, i) => i + 1));
    expect(seqs.map((s) => s.turn_number)).toEqual(Array.from({ length: ok }, (_, i) => i + 1));
    // Strict alternation a, b, a, b, ...
    expect(seqs.map((s) => s.player_id)).toEqual(Array.from({ length: ok }, (_, i) => (i % 2 === 0 ? a! : b!).id));
  });

  it('libre: 20 simultaneous actions from both players are all accepted, none lost', async () => {
    const { id, seats: [a, b] } = await match('libre', 2);
    const rs = await Promise.all(Array.from({ length: 20 }, (_, i) => act(i % 2 ? a! : b!, id, 'poser', { [`k${i}`]: i })));
    expect(rs.every((r) => r.status === 200)).toBe(true);
    const p = (await state(a!, id)).body.partie;
    expect(p.numero_tour).toBe(21);
    expect(p.etat_plateau).toEqual(Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i])));
    expect(rs.map((r) => r.body.partie.numero_tour).sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
  });
});
