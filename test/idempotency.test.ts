// Idempotency (docs/api.md), over real HTTP: Idempotency-Key on every POST that creates or adds
// something (/tables/:nomTable, /leaderboards/:id/submit, /storage/upload, /match/action,
// /players/register). The same key from the same player (before login: the same game and
// client address) returns the first response and changes nothing more; another path or
// body is 409 idempotency_conflict; another player or client is independent; 20 identical
// requests at once have one effect and 20 identical answers.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type Reply, type TestApp } from './support/harness.js';
import { canonicalJson } from '../api/canonical-json.js';

const GAME = {
  jeu: 'idem-a',
  nom: 'Idempotence A',
  tables: {
    tableau: { colonnes: { score: { type: 'integer' }, note: { type: 'text' } }, lecture: 'public', ecriture: 'joueurs' },
    autre: { colonnes: { score: { type: 'integer' } }, lecture: 'public', ecriture: 'joueurs' },
  },
  classements: { total: { operateur: 'somme' }, meilleur: {} },
  modes: { libre: { equipes: 2, joueurs_par_equipe: 1, regles: 'libre', elo_ecart_initial: 10000 } },
};

let app: TestApp;
let api: ReturnType<typeof client>;
let apiB: ReturnType<typeof client>;
let counter = 0;

interface Player { token: string; id: string; pseudo: string }
async function player(c = api): Promise<Player> {
  const r = await c.register(`idem_${++counter}_${Math.random().toString(36).slice(2, 7)}`);
  return { token: r.token, id: r.data.joueur.id, pseudo: r.data.joueur.pseudo };
}

/** A keyed POST, as `who` (a token) or from a client address (X-Forwarded-For, TRUST_PROXY=1). */
function keyed(path: string, body: unknown, key: string, opts: { token?: string; from?: string; lang?: string; c?: ReturnType<typeof client> } = {}) {
  const headers: Record<string, string> = { 'idempotency-key': key };
  if (opts.from) headers['x-forwarded-for'] = opts.from;
  if (opts.lang) headers['accept-language'] = opts.lang;
  return (opts.c ?? api).post(path, body, { token: opts.token, headers });
}

function expectConflict(r: Reply) {
  expect([r.status, r.body.error], JSON.stringify(r.body)).toEqual([409, 'idempotency_conflict']);
  expect(typeof r.body.message).toBe('string');
}

/** 20 identical requests at once: all the same status and body, as the first. */
async function burst(send: () => Promise<Reply>, status: number) {
  const replies = await Promise.all(Array.from({ length: 20 }, send));
  expect(replies.map((r) => r.status), JSON.stringify(replies.find((r) => r.status !== status)?.body)).toEqual(Array(20).fill(status));
  for (const r of replies) expect(r.body).toEqual(replies[0]!.body);
  return replies[0]!;
}

const rowCount = async (note: string) =>
  (await app.sql("select count(*)::int as n from manette.table_rows where data->>'note' = $1", [note]))[0]!.n as number;
const total = async (playerId: string) =>
  (await app.sql(`select e.value from manette.leaderboard_entries e join manette.leaderboards l on l.id = e.leaderboard_id
                  where l.code = 'total' and e.player_id = $1`, [playerId])).map((r) => r.value as number);
const files = async (playerId: string) =>
  app.sql<{ name: string; content: string; updated_at: Date }>(
    'select name, content, updated_at from manette.files where player_id = $1 order by name', [playerId]);
const actions = async (matchId: string) =>
  (await app.sql('select count(*)::int as n from manette.match_actions where match_id = $1', [matchId]))[0]!.n as number;
const playersNamed = async (pseudo: string) =>
  (await app.sql('select count(*)::int as n from manette.players where lower(pseudo) = lower($1)', [pseudo]))[0]!.n as number;

/** A match of the `libre` mode between two new players, formed through /matchmaking/join. */
async function match(): Promise<{ id: string; a: Player; b: Player }> {
  const [a, b] = [await player(), await player()];
  await api.post('/matchmaking/join', { mode_jeu: 'libre', elo_actuel: 1000 }, { token: a.token });
  const r = await api.post('/matchmaking/join', { mode_jeu: 'libre', elo_actuel: 1000 }, { token: b.token });
  expect(r.body.status).toBe('matched');
  return { id: r.body.partie_id, a, b };
}
const turn = async (p: Player, matchId: string) =>
  (await api.get(`/match/state?partie_id=${matchId}`, { token: p.token })).body.partie.numero_tour as number;

beforeAll(async () => {
  app = await startTestApp({ TRUST_PROXY: '1' });
  api = client(app.baseUrl, await app.applyGame(GAME));
  apiB = client(app.baseUrl, await app.applyGame({ ...GAME, jeu: 'idem-b', nom: 'Idempotence B' }));
});
afterAll(async () => { await app?.close(); });

describe('POST /tables/:nomTable', () => {
  it('the same key returns the first response and creates nothing more; another table or body is a conflict', async () => {
    const alice = await player();
    const first = await keyed('/tables/tableau', { donnees: { note: 't-1', score: 1 } }, 'tables-1', { token: alice.token });
    expect(first.status).toBe(201);
    const again = await keyed('/tables/tableau', { donnees: { score: 1, note: 't-1' } }, 'tables-1', { token: alice.token });
    expect([again.status, again.body]).toEqual([201, first.body]); // key order does not matter
    expectConflict(await keyed('/tables/tableau', { donnees: { note: 't-1', score: 2 } }, 'tables-1', { token: alice.token }));
    expectConflict(await keyed('/tables/autre', { donnees: { note: 't-1', score: 1 } }, 'tables-1', { token: alice.token }));
    expect(await rowCount('t-1')).toBe(1);
  });

  it('another player, or the same player of another game, with the same key is another request', async () => {
    const [alice, bob, bruno] = [await player(), await player(), await player(apiB)];
    const a = await keyed('/tables/tableau', { donnees: { note: 't-2' } }, 'tables-2', { token: alice.token });
    const b = await keyed('/tables/tableau', { donnees: { note: 't-2' } }, 'tables-2', { token: bob.token });
    const c = await keyed('/tables/tableau', { donnees: { note: 't-2' } }, 'tables-2', { token: bruno.token, c: apiB });
    expect([a.status, b.status, c.status]).toEqual([201, 201, 201]);
    expect(new Set([a.body.data.id, b.body.data.id, c.body.data.id]).size).toBe(3);
    expect(await rowCount('t-2')).toBe(3);
  });

  it('20 concurrent identical requests: one row, 20 identical answers', async () => {
    const alice = await player();
    await burst(() => keyed('/tables/tableau', { donnees: { note: 't-3' } }, 'tables-3', { token: alice.token }), 201);
    expect(await rowCount('t-3')).toBe(1);
  });
});

describe('POST /leaderboards/:id/submit', () => {
  it('a retried `somme` submission counts once; another board or value is a conflict', async () => {
    const alice = await player();
    const first = await keyed('/leaderboards/total/submit', { valeur: 5 }, 'score-1', { token: alice.token });
    expect([first.status, first.body.data.valeur]).toEqual([200, 5]);
    const again = await keyed('/leaderboards/total/submit', { valeur: 5 }, 'score-1', { token: alice.token });
    expect([again.status, again.body]).toEqual([200, first.body]);
    expect(await total(alice.id)).toEqual([5]);
    expectConflict(await keyed('/leaderboards/total/submit', { valeur: 6 }, 'score-1', { token: alice.token }));
    expectConflict(await keyed('/leaderboards/meilleur/submit', { valeur: 5 }, 'score-1', { token: alice.token }));
    // Without a key, a retry is another submission.
    await api.post('/leaderboards/total/submit', { valeur: 5 }, { token: alice.token });
    expect(await total(alice.id)).toEqual([10]);
  });

  it('another player with the same key is independent', async () => {
    const [alice, bob] = [await player(), await player()];
    await keyed('/leaderboards/total/submit', { valeur: 3 }, 'score-2', { token: alice.token });
    const b = await keyed('/leaderboards/total/submit', { valeur: 3 }, 'score-2', { token: bob.token });
    expect(b.status).toBe(200);
    expect([await total(alice.id), await total(bob.id)]).toEqual([[3], [3]]);
  });

  it('20 concurrent identical submissions: counted once, 20 identical answers', async () => {
    const alice = await player();
    const r = await burst(() => keyed('/leaderboards/total/submit', { valeur: 7 }, 'score-3', { token: alice.token }), 200);
    expect(r.body.data.valeur).toBe(7);
    expect(await total(alice.id)).toEqual([7]);
  });
});

describe('POST /storage/upload', () => {
  const upload = (nom: string, contenu: string, extra: Record<string, unknown> = {}) =>
    ({ nom, contenu, mime_type: 'text/plain', ...extra });

  it('the same key returns the first response, 201 or 200, and writes nothing more', async () => {
    const alice = await player();
    const first = await keyed('/storage/upload', upload('a.txt', 'v1'), 'file-1', { token: alice.token });
    expect(first.status).toBe(201);
    const before = await files(alice.id);
    const again = await keyed('/storage/upload', upload('a.txt', 'v1'), 'file-1', { token: alice.token });
    expect([again.status, again.body]).toEqual([201, first.body]);
    expect(await files(alice.id)).toEqual(before);

    // An overwrite (200) is replayed as 200, and does not overwrite what came after it.
    const over = await keyed('/storage/upload', upload('a.txt', 'v2', { ecraser: true }), 'file-2', { token: alice.token });
    expect(over.status).toBe(200);
    await api.post('/storage/upload', upload('a.txt', 'v3', { ecraser: true }), { token: alice.token });
    const replay = await keyed('/storage/upload', upload('a.txt', 'v2', { ecraser: true }), 'file-2', { token: alice.token });
    expect([replay.status, replay.body]).toEqual([200, over.body]);
    expect((await files(alice.id)).map((f) => f.content)).toEqual(['v3']);

    expectConflict(await keyed('/storage/upload', upload('a.txt', 'autre'), 'file-1', { token: alice.token }));
    // One key per player across routes: bound to the path too.
    expectConflict(await keyed('/tables/tableau', { donnees: {} }, 'file-1', { token: alice.token }));
  });

  it('another player with the same key is independent', async () => {
    const [alice, bob] = [await player(), await player()];
    const a = await keyed('/storage/upload', upload('b.txt', 'x'), 'file-3', { token: alice.token });
    const b = await keyed('/storage/upload', upload('b.txt', 'x'), 'file-3', { token: bob.token });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect((await files(bob.id)).map((f) => f.name)).toEqual(['b.txt']);
  });

  it('20 concurrent identical uploads: one file, 20 identical answers (no fichier_existe)', async () => {
    const alice = await player();
    await burst(() => keyed('/storage/upload', upload('c.txt', 'rafale'), 'file-4', { token: alice.token }), 201);
    expect((await files(alice.id)).map((f) => [f.name, f.content])).toEqual([['c.txt', 'rafale']]);
  });

  it('a malformed key is validation_failed (not upload_failed)', async () => {
    const alice = await player();
    const r = await keyed('/storage/upload', upload('d.txt', 'x'), 'é', { token: alice.token });
    expect([r.status, r.body.error, r.body.details?.[0]?.champ]).toEqual([400, 'validation_failed', 'Idempotency-Key']);
    expect(await files(alice.id)).toEqual([]);
  });
});

describe('POST /match/action', () => {
  it('the same key plays once and returns the first response; another action is a conflict', async () => {
    const { id, a } = await match();
    const first = await keyed('/match/action', { partie_id: id, action: 'poser', donnees: { x: 1 } }, 'move-1', { token: a.token });
    expect([first.status, first.body.partie.numero_tour]).toEqual([200, 2]);
    const again = await keyed('/match/action', { partie_id: id, action: 'poser', donnees: { x: 1 } }, 'move-1', { token: a.token });
    expect([again.status, again.body]).toEqual([200, first.body]);
    expect([await turn(a, id), await actions(id)]).toEqual([2, 1]);
    expectConflict(await keyed('/match/action', { partie_id: id, action: 'poser', donnees: { x: 2 } }, 'move-1', { token: a.token }));
    expectConflict(await keyed('/leaderboards/total/submit', { valeur: 1 }, 'move-1', { token: a.token }));
    expect(await turn(a, id)).toBe(2);
  });

  it('the other player with the same key plays their own move', async () => {
    const { id, a, b } = await match();
    await keyed('/match/action', { partie_id: id, action: 'poser', donnees: { x: 1 } }, 'move-2', { token: a.token });
    const r = await keyed('/match/action', { partie_id: id, action: 'poser', donnees: { x: 1 } }, 'move-2', { token: b.token });
    expect([r.status, r.body.partie.numero_tour]).toEqual([200, 3]);
  });

  it('20 concurrent identical actions: one move, 20 identical answers', async () => {
    const { id, a } = await match();
    const r = await burst(() => keyed('/match/action', { partie_id: id, action: 'poser', donnees: { y: 1 } }, 'move-3', { token: a.token }), 200);
    expect(r.body.partie.numero_tour).toBe(2);
    expect([await turn(a, id), await actions(id)]).toEqual([2, 1]);
  });

  it('a refused action is not remembered: the same key may be used again', async () => {
    const { id, a } = await match();
    const refused = await keyed('/match/action', { partie_id: id, action: 'poser', donnees: {}, numero_tour: 9 }, 'move-4', { token: a.token });
    expect([refused.status, refused.body.reason]).toEqual([409, 'tour_perime']);
    const ok = await keyed('/match/action', { partie_id: id, action: 'poser', donnees: {} }, 'move-4', { token: a.token });
    expect(ok.status).toBe(200);
  });
});

describe('POST /players/register (before login: per game and client address)', () => {
  const account = (pseudo: string, extra: Record<string, unknown> = {}) =>
    ({ pseudo, email: `${pseudo}@example.test`, password: 'motdepasse-solide', ...extra });

  it('the same key from the same client returns the first response, token included, and creates one player', async () => {
    const first = await keyed('/players/register', account('reg_un'), 'reg-1', { from: '203.0.113.1' });
    expect(first.status).toBe(201);
    const again = await keyed('/players/register', account('reg_un'), 'reg-1', { from: '203.0.113.1' });
    expect([again.status, again.body]).toEqual([201, first.body]);
    expect(await playersNamed('reg_un')).toBe(1);
    // The token works, and so does the password.
    expect((await api.get('/players/me', { token: first.body.token })).status).toBe(200);
    const login = await api.post('/players/login', { identifiant: 'reg_un', password: 'motdepasse-solide' });
    expect(login.status).toBe(200);

    expectConflict(await keyed('/players/register', account('reg_un', { password: 'autre-mot-de-passe' }), 'reg-1', { from: '203.0.113.1' }));
    expectConflict(await keyed('/players/register', account('reg_deux'), 'reg-1', { from: '203.0.113.1' }));
    expect(await playersNamed('reg_deux')).toBe(0);
  });

  it('stores neither the token, nor the password, nor a plain hash of the body', async () => {
    const body = account('reg_secret');
    const r = await keyed('/players/register', body, 'reg-2', { from: '203.0.113.2' });
    expect(r.status).toBe(201);
    const [row] = await app.sql("select * from manette.idempotency_keys where key = 'reg-2'");
    expect(row).toMatchObject({ player_id: null, client_address: '203.0.113.2', scope: 'client:203.0.113.2', method: 'POST', path: '/players/register' });
    const stored = JSON.stringify(row);
    expect(stored).not.toContain(r.body.token);
    expect(stored).not.toContain('motdepasse-solide');
    expect(stored).not.toContain('scrypt$');
    expect(row!.body_hash).not.toBe(createHash('sha256').update(canonicalJson(body)).digest('hex'));
    const { password: _, ...withoutPassword } = body;
    expect(row!.body_hash).not.toBe(createHash('sha256').update(canonicalJson(withoutPassword)).digest('hex'));
  });

  it('another client address with the same key is independent', async () => {
    const a = await keyed('/players/register', account('reg_a'), 'reg-3', { from: '203.0.113.3' });
    const b = await keyed('/players/register', account('reg_b'), 'reg-3', { from: '203.0.113.4' });
    expect([a.status, b.status]).toEqual([201, 201]);
    // ... and runs the request again: here, the pseudo is now taken.
    const c = await keyed('/players/register', account('reg_a', { email: 'reg_a2@example.test' }), 'reg-3', { from: '203.0.113.5' });
    expect([c.status, c.body.error]).toEqual([409, 'pseudo_taken']);
  });

  it('a failure is not remembered: the same key with a corrected body goes through', async () => {
    await api.register('reg_pris');
    const taken = await keyed('/players/register', account('reg_pris', { email: 'autre@example.test' }), 'reg-4', { from: '203.0.113.6' });
    expect([taken.status, taken.body.error]).toEqual([409, 'pseudo_taken']);
    const ok = await keyed('/players/register', account('reg_libre'), 'reg-4', { from: '203.0.113.6' });
    expect(ok.status).toBe(201);
  });

  it('20 concurrent identical registrations: one player, 20 identical answers (one token)', async () => {
    const r = await burst(() => keyed('/players/register', account('reg_rafale'), 'reg-5', { from: '203.0.113.7' }), 201);
    expect(await playersNamed('reg_rafale')).toBe(1);
    expect((await api.get('/players/me', { token: r.body.token })).status).toBe(200);
  });
});

describe('the key itself', () => {
  it('empty, longer than 255 characters or not visible ASCII: validation_failed, nothing done', async () => {
    const alice = await player();
    for (const key of ['', 'x'.repeat(256), 'avec espace']) {
      const r = await keyed('/leaderboards/total/submit', { valeur: 1 }, key, { token: alice.token });
      expect([r.status, r.body.error, r.body.details?.[0]?.champ], JSON.stringify(key)).toEqual([400, 'validation_failed', 'Idempotency-Key']);
    }
    expect(await total(alice.id)).toEqual([]);
    const longest = await keyed('/leaderboards/total/submit', { valeur: 1 }, 'x'.repeat(255), { token: alice.token });
    expect(longest.status).toBe(200);
  });

  it('idempotency_conflict speaks the player\'s language', async () => {
    const alice = await player();
    await keyed('/leaderboards/total/submit', { valeur: 1 }, 'lang-1', { token: alice.token });
    const fr = await keyed('/leaderboards/total/submit', { valeur: 2 }, 'lang-1', { token: alice.token });
    const en = await keyed('/leaderboards/total/submit', { valeur: 2 }, 'lang-1', { token: alice.token, lang: 'en' });
    expectConflict(fr);
    expectConflict(en);
    expect(fr.body.message).not.toBe(en.body.message);
  });

  it('routes that add nothing ignore the header', async () => {
    const alice = await player();
    const r = await api.request('PATCH', '/tables/tableau/00000000-0000-0000-0000-000000000000',
      { body: { donnees: {} }, token: alice.token, headers: { 'idempotency-key': '' } });
    expect(r.body.error).toBe('row_not_found');
  });
});
