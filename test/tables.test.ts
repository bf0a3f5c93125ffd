// Data tables (docs/tables.md), over real HTTP: rights, validation, typed ordering,
// filters, idempotency, config apply, and the index plan on 1,000,000 rows.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, twinAdminUrlOf, type TestApp } from './support/harness.js';
import { planLoggingClient } from '../twin/postgres/plans.js';
import { parseGameConfig } from '../api/config/game-config.js';

let app: TestApp;
let keyA: string;
let keyB: string;
let api: ReturnType<typeof client>;
let apiB: ReturnType<typeof client>;
let alice: { token: string; id: string };
let bob: { token: string; id: string };
let bruno: { token: string; id: string };

const TABLES = {
  inventaire: {
    colonnes: { item_id: { type: 'text', requis: true }, quantite: { type: 'integer' }, rarete: { type: 'text' } },
    lecture: 'proprietaire', ecriture: 'joueurs',
  },
  annonces: {
    colonnes: {
      titre: { type: 'text', requis: true }, prix: { type: 'number' }, vendu: { type: 'boolean' },
      date: { type: 'timestamp' }, meta: { type: 'json' }, rang: { type: 'integer' },
    },
    lecture: 'joueurs', ecriture: 'joueurs',
  },
  catalogue: { colonnes: { nom: { type: 'text', requis: true }, prix: { type: 'integer' } }, lecture: 'public', ecriture: 'serveur' },
  tableau: { colonnes: { score: { type: 'integer' }, pseudo: { type: 'text' } }, lecture: 'public', ecriture: 'joueurs' },
};
const gameA = (tables: Record<string, unknown> = TABLES) => ({ jeu: 'tables-a', nom: 'Tables A', tables });
const gameB = { jeu: 'tables-b', nom: 'Tables B', tables: { inventaire: TABLES.inventaire } };

type Row = { id: string; joueur_id: string | null; donnees: Record<string, unknown>; cree_le: string; maj_le: string };

const patch = (path: string, body: unknown, token?: string, c = api) => c.request('PATCH', path, { body, token });
const del = (path: string, token?: string, c = api) => c.request('DELETE', path, { token });
const list = (table: string, query: Record<string, string> = {}, token?: string, c = api) =>
  c.get(`/tables/${table}?${new URLSearchParams(query)}`, { token });
const create = async (table: string, donnees: Record<string, unknown>, token: string) => {
  const r = await api.post(`/tables/${table}`, { donnees }, { token });
  if (r.status !== 201) throw new Error(`create ${table}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data as Row;
};
const champs = (r: { body: { details?: { champ: string }[] } }) => (r.body.details ?? []).map((d) => d.champ).sort();
const tableId = async (game: string, name: string) =>
  (await app.sql('select t.id from manette.data_tables t join manette.games g on g.id = t.game_id where g.slug = $1 and t.name = $2',
    [game, name]))[0]!.id as string;
const rowCount = async (game: string, name: string, where = 'true', values: unknown[] = []) =>
  (await app.sql(`select count(*)::int as n from manette.table_rows r where r.table_id = $1 and ${where}`,
    [await tableId(game, name), ...values]))[0]!.n as number;
/** A server row (ecriture: serveur) written by the admin tooling. */
const serverRow = async (table: string, donnees: Record<string, unknown>) =>
  (await app.sql('select manette_admin.table_rows_insert((select id from manette.games where slug = $1), $2, $3) as r',
    ['tables-a', table, JSON.stringify(donnees)]))[0]!.r as Row;

beforeAll(async () => {
  app = await startTestApp();
  keyA = await app.applyGame(gameA());
  keyB = await app.applyGame(gameB);
  api = client(app.baseUrl, keyA);
  apiB = client(app.baseUrl, keyB);
  const who = async (c: ReturnType<typeof client>, pseudo: string) => {
    const s = await c.register(pseudo);
    return { token: s.token, id: s.data.joueur.id };
  };
  alice = await who(api, 'alice');
  bob = await who(api, 'bob');
  bruno = await who(apiB, 'bruno');
});
afterAll(async () => { await app?.close(); });

describe('POST /tables/:nomTable', () => {
  it('creates a row owned by the caller (201) and returns it', async () => {
    const r = await api.post('/tables/inventaire', { donnees: { item_id: 'epee', quantite: 3 } }, { token: alice.token });
    expect(r.status).toBe(201);
    expect(r.body.ok).toBe(true);
    const row = r.body.data as Row;
    expect(row).toMatchObject({ joueur_id: alice.id, donnees: { item_id: 'epee', quantite: 3 } });
    expect(row.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(row.cree_le).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(row.maj_le).toBe(row.cree_le);
    const got = await api.get(`/tables/inventaire/${row.id}`, { token: alice.token });
    expect([got.status, got.body.data]).toEqual([200, row]);
  });

  it('checks every declared type and normalises timestamps to UTC', async () => {
    const row = await create('annonces', {
      titre: 'Bouclier', prix: 12.5, vendu: false, date: '2025-01-31T13:00:00+01:00',
      meta: { tags: ['bois', null], niveau: 2 }, rang: -4, inconnu_absent: undefined,
    }, alice.token);
    expect(row.donnees).toEqual({
      titre: 'Bouclier', prix: 12.5, vendu: false, date: '2025-01-31T12:00:00.000Z',
      meta: { tags: ['bois', null], niveau: 2 }, rang: -4,
    });
  });

  it('treats null as no value for an optional column', async () => {
    const row = await create('inventaire', { item_id: 'arc', quantite: null }, alice.token);
    expect(row.donnees).toEqual({ item_id: 'arc' });
  });

  it.each([
    [{ item_id: 'x', couleur: 'rouge' }, ['donnees.couleur']],
    [{ quantite: 1 }, ['donnees.item_id']],
    [{ item_id: null }, ['donnees.item_id']],
    [{ item_id: 42 }, ['donnees.item_id']],
    [{ item_id: 'x', quantite: 1.5 }, ['donnees.quantite']],
    [{ item_id: 'x', quantite: '3' }, ['donnees.quantite']],
    [{ item_id: 'x', quantite: 2 ** 53 }, ['donnees.quantite']],
    [{ item_id: 'x'.repeat(513) }, ['donnees.item_id']],
    [{ item_id: true, quantite: 'beaucoup', couleur: 1 }, ['donnees.couleur', 'donnees.item_id', 'donnees.quantite']],
  ])('validation_failed names each wrong column of inventaire (%j)', async (donnees, expected) => {
    const before = await rowCount('tables-a', 'inventaire');
    const r = await api.post('/tables/inventaire', { donnees }, { token: alice.token });
    expect([r.status, r.body.error]).toEqual([400, 'validation_failed']);
    expect(champs(r)).toEqual(expected);
    expect(r.body.details.every((d: { message: string }) => d.message.length > 0)).toBe(true);
    expect(await rowCount('tables-a', 'inventaire')).toBe(before);
  });

  it.each([
    [{ titre: 'x', prix: '12' }, 'donnees.prix'],
    [{ titre: 'x', vendu: 'oui' }, 'donnees.vendu'],
    [{ titre: 'x', vendu: 1 }, 'donnees.vendu'],
    [{ titre: 'x', date: '2025-01-31' }, 'donnees.date'],
    [{ titre: 'x', date: '2025-01-31T12:00:00' }, 'donnees.date'],
    [{ titre: 'x', date: '2025-02-30T12:00:00Z' }, 'donnees.date'],
    [{ titre: 'x', date: 'now' }, 'donnees.date'],
    [{ titre: 'x', date: 1738324800 }, 'donnees.date'],
    [{ titre: 'x', date: '9999-12-31T23:00:00-05:00' }, 'donnees.date'],
  ])('validation_failed for a wrong number, boolean or timestamp (%j)', async (donnees, champ) => {
    const r = await api.post('/tables/annonces', { donnees }, { token: alice.token });
    expect([r.status, r.body.error, champs(r)]).toEqual([400, 'validation_failed', [champ]]);
  });

  it('validation_failed when donnees is missing or not an object', async () => {
    for (const body of [{}, { donnees: [1] }, { donnees: 'x' }, { donnees: null }]) {
      const r = await api.post('/tables/inventaire', body, { token: alice.token });
      expect([r.status, r.body.error, champs(r)]).toEqual([400, 'validation_failed', ['donnees']]);
    }
  });

  it('refuses a row over 256 KiB', async () => {
    const r = await api.post('/tables/annonces', { donnees: { titre: 'x', meta: 'y'.repeat(300_000) } }, { token: alice.token });
    expect([r.status, r.body.error, champs(r)]).toEqual([400, 'validation_failed', ['donnees']]);
  });

  it('needs a token for ecriture: joueurs (missing_player), refuses every request on ecriture: serveur (forbidden)', async () => {
    const noToken = await api.post('/tables/tableau', { donnees: { score: 1 } });
    expect([noToken.status, noToken.body.error]).toEqual([401, 'missing_player']);
    for (const token of [alice.token, undefined]) {
      const r = await api.post('/tables/catalogue', { donnees: { nom: 'potion' } }, { token });
      expect([r.status, r.body.error]).toEqual([403, 'forbidden']);
    }
    expect(await rowCount('tables-a', 'catalogue')).toBe(0);
  });

  it('table_not_found for a table this game did not declare, in any case and form', async () => {
    for (const name of ['nulle_part', 'Inventaire', 'a-b', 'catalogue%20x']) {
      const r = await api.post(`/tables/${name}`, { donnees: {} }, { token: alice.token });
      expect([r.status, r.body.error]).toEqual([404, 'table_not_found']);
    }
    const undecodable = await api.get('/tables/%E0%A4%A/x', { token: alice.token });
    expect([undecodable.status, undecodable.body.ok]).toEqual([404, false]);
    // Game B declares inventaire only.
    const r = await apiB.post('/tables/annonces', { donnees: { titre: 'x' } }, { token: bruno.token });
    expect([r.status, r.body.error]).toEqual([404, 'table_not_found']);
  });

  it('missing_key, invalid_key, invalid_token (including a token of another game)', async () => {
    const noKey = await api.post('/tables/inventaire', { donnees: { item_id: 'x' } }, { key: null, token: alice.token });
    expect([noKey.status, noKey.body.error]).toEqual([401, 'missing_key']);
    const badKey = await api.post('/tables/inventaire', { donnees: { item_id: 'x' } }, { key: 'sk_live_' + 'z'.repeat(40), token: alice.token });
    expect([badKey.status, badKey.body.error]).toEqual([401, 'invalid_key']);
    const otherGame = await apiB.post('/tables/inventaire', { donnees: { item_id: 'x' } }, { token: alice.token });
    expect([otherGame.status, otherGame.body.error]).toEqual([401, 'invalid_token']);
    const badToken = await api.get('/tables/catalogue', { token: 'pt_' + 'x'.repeat(43) });
    expect([badToken.status, badToken.body.error]).toEqual([401, 'invalid_token']);
  });

  it('unsupported_media_type and invalid_json', async () => {
    const text = await api.request('POST', '/tables/inventaire', { raw: 'donnees', token: alice.token, headers: { 'content-type': 'text/plain' } });
    expect([text.status, text.body.error]).toEqual([415, 'unsupported_media_type']);
    const broken = await api.request('POST', '/tables/inventaire', { raw: '{"donnees":', token: alice.token, headers: { 'content-type': 'application/json' } });
    expect([broken.status, broken.body.error]).toEqual([400, 'invalid_json']);
  });

  it('speaks English on request', async () => {
    const r = await api.request('POST', '/tables/nulle_part', { body: { donnees: {} }, headers: { 'accept-language': 'en' } });
    expect(r.body).toMatchObject({ error: 'table_not_found', message: 'Table not found.' });
  });
});

describe('rights (lecture)', () => {
  let aliceItem: Row;
  let bobItem: Row;
  let aliceAd: Row;
  let potion: Row;
  beforeAll(async () => {
    aliceItem = await create('inventaire', { item_id: 'gemme' }, alice.token);
    bobItem = await create('inventaire', { item_id: 'caillou' }, bob.token);
    aliceAd = await create('annonces', { titre: 'Vends gemme' }, alice.token);
    potion = await serverRow('catalogue', { nom: 'potion', prix: 10 });
  });

  it('proprietaire: a player lists and reads only own rows', async () => {
    const mine = await list('inventaire', { limit: '200' }, bob.token);
    expect(mine.status).toBe(200);
    expect(mine.body.data.map((r: Row) => r.id)).toEqual([bobItem.id]);
    const other = await api.get(`/tables/inventaire/${aliceItem.id}`, { token: bob.token });
    expect([other.status, other.body.error]).toEqual([404, 'row_not_found']);
    const own = await api.get(`/tables/inventaire/${aliceItem.id}`, { token: alice.token });
    expect(own.body.data.id).toBe(aliceItem.id);
    // A filter reveals nothing either: bob filtering by alice's value gets nothing.
    const filtered = await list('inventaire', { item_id: 'gemme' }, bob.token);
    expect([filtered.status, filtered.body.data]).toEqual([200, []]);
    expect((await list('inventaire', { item_id: 'gemme' }, alice.token)).body.data.map((r: Row) => r.id)).toEqual([aliceItem.id]);
    const anon = await list('inventaire');
    expect([anon.status, anon.body.error]).toEqual([401, 'missing_player']);
    const anonRow = await api.get(`/tables/inventaire/${aliceItem.id}`);
    expect([anonRow.status, anonRow.body.error]).toEqual([401, 'missing_player']);
  });

  it('joueurs: any logged-in player reads every row; without a token, missing_player', async () => {
    const r = await list('annonces', { limit: '200' }, bob.token);
    expect(r.body.data.map((x: Row) => x.id)).toContain(aliceAd.id);
    expect((await api.get(`/tables/annonces/${aliceAd.id}`, { token: bob.token })).body.data.joueur_id).toBe(alice.id);
    const anon = await list('annonces');
    expect([anon.status, anon.body.error]).toEqual([401, 'missing_player']);
  });

  it('public: the key alone reads; server rows have no owner', async () => {
    const r = await list('catalogue');
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual([potion]);
    expect(potion.joueur_id).toBeNull();
    expect((await api.get(`/tables/catalogue/${potion.id}`)).body.data).toEqual(potion);
    expect((await list('catalogue', {}, alice.token)).body.data).toEqual([potion]);
  });

  it('no row crosses games, even in a table of the same name', async () => {
    const inB = await list('inventaire', {}, bruno.token, apiB);
    expect([inB.status, inB.body.data]).toEqual([200, []]);
    const byId = await apiB.get(`/tables/inventaire/${aliceItem.id}`, { token: bruno.token });
    expect([byId.status, byId.body.error]).toEqual([404, 'row_not_found']);
    const patchB = await patch(`/tables/inventaire/${aliceItem.id}`, { donnees: { quantite: 1 } }, bruno.token, apiB);
    expect([patchB.status, patchB.body.error]).toEqual([404, 'row_not_found']);
    const delB = await del(`/tables/inventaire/${aliceItem.id}`, bruno.token, apiB);
    expect([delB.status, delB.body.error]).toEqual([404, 'row_not_found']);
  });

  it('row_not_found for an unknown or malformed id, a row of another table', async () => {
    for (const id of ['00000000-0000-0000-0000-000000000000', 'pas-un-uuid', aliceAd.id]) {
      const r = await api.get(`/tables/inventaire/${id}`, { token: alice.token });
      expect([r.status, r.body.error]).toEqual([404, 'row_not_found']);
    }
    const r = await api.get('/tables/nulle_part/00000000-0000-0000-0000-000000000000', { token: alice.token });
    expect([r.status, r.body.error]).toEqual([404, 'table_not_found']);
  });
});

describe('PATCH and DELETE /tables/:nomTable/:id', () => {
  it('PATCH merges the given columns, null clears one, maj_le moves', async () => {
    const row = await create('annonces', { titre: 'Casque', prix: 5, vendu: false, meta: { a: 1 } }, alice.token);
    await new Promise((r) => setTimeout(r, 5));
    const r = await patch(`/tables/annonces/${row.id}`, { donnees: { prix: 7.5, meta: null, date: '2025-06-01T00:00:00Z' } }, alice.token);
    expect(r.status).toBe(200);
    expect(r.body.data.donnees).toEqual({ titre: 'Casque', prix: 7.5, vendu: false, date: '2025-06-01T00:00:00.000Z' });
    expect(r.body.data.cree_le).toBe(row.cree_le);
    expect(Date.parse(r.body.data.maj_le)).toBeGreaterThan(Date.parse(row.maj_le));
    expect((await api.get(`/tables/annonces/${row.id}`, { token: bob.token })).body.data).toEqual(r.body.data);
  });

  it('PATCH validates the given columns only; a required one cannot be cleared', async () => {
    const row = await create('annonces', { titre: 'Gants' }, alice.token);
    const bad = await patch(`/tables/annonces/${row.id}`, { donnees: { titre: null, prix: 'cher', couleur: 'bleu' } }, alice.token);
    expect([bad.status, bad.body.error, champs(bad)]).toEqual([400, 'validation_failed', ['donnees.couleur', 'donnees.prix', 'donnees.titre']]);
    const missing = await patch(`/tables/annonces/${row.id}`, {}, alice.token);
    expect([missing.status, champs(missing)]).toEqual([400, ['donnees']]);
    expect((await api.get(`/tables/annonces/${row.id}`, { token: alice.token })).body.data.donnees).toEqual({ titre: 'Gants' });
  });

  it('only the owner updates or deletes (forbidden); an invisible row is row_not_found', async () => {
    const ad = await create('annonces', { titre: 'Cape' }, alice.token);
    const p = await patch(`/tables/annonces/${ad.id}`, { donnees: { prix: 1 } }, bob.token);
    expect([p.status, p.body.error]).toEqual([403, 'forbidden']);
    const d = await del(`/tables/annonces/${ad.id}`, bob.token);
    expect([d.status, d.body.error]).toEqual([403, 'forbidden']);
    expect((await api.get(`/tables/annonces/${ad.id}`, { token: alice.token })).body.data.donnees).toEqual({ titre: 'Cape' });

    const item = await create('inventaire', { item_id: 'anneau' }, alice.token);
    const hidden = await patch(`/tables/inventaire/${item.id}`, { donnees: { quantite: 1 } }, bob.token);
    expect([hidden.status, hidden.body.error]).toEqual([404, 'row_not_found']);
    expect((await del(`/tables/inventaire/${item.id}`, bob.token)).body.error).toBe('row_not_found');

    const potion = await serverRow('catalogue', { nom: 'elixir' });
    for (const token of [alice.token, undefined]) {
      expect((await patch(`/tables/catalogue/${potion.id}`, { donnees: { prix: 1 } }, token)).body.error).toBe('forbidden');
      expect((await del(`/tables/catalogue/${potion.id}`, token)).status).toBe(403);
    }
    const anon = await patch(`/tables/annonces/${ad.id}`, { donnees: { prix: 1 } });
    expect([anon.status, anon.body.error]).toEqual([401, 'missing_player']);
    expect((await del(`/tables/annonces/${ad.id}`)).body.error).toBe('missing_player');
    expect((await patch('/tables/annonces/pas-un-uuid', { donnees: {} }, alice.token)).body.error).toBe('row_not_found');
    expect((await patch('/tables/nulle_part/pas-un-uuid', { donnees: {} }, alice.token)).body.error).toBe('table_not_found');
  });

  it('DELETE returns the deleted row; the row is gone', async () => {
    const row = await create('tableau', { score: 12 }, alice.token);
    const r = await del(`/tables/tableau/${row.id}`, alice.token);
    expect([r.status, r.body.data]).toEqual([200, row]);
    expect((await api.get(`/tables/tableau/${row.id}`)).body.error).toBe('row_not_found');
    expect((await del(`/tables/tableau/${row.id}`, alice.token)).status).toBe(404);
    expect((await del('/tables/nulle_part/x', alice.token)).body.error).toBe('table_not_found');
  });
});

describe('GET /tables/:nomTable: query', () => {
  let carol: { token: string; id: string };
  const values = [9, 10, 100, -1, 2.5, 10, 9, 1000];
  beforeAll(async () => {
    const s = await api.register('carol');
    carol = { token: s.token, id: s.data.joueur.id };
    // annonces, by carol: prix (number), titre (text), date (timestamp), vendu, rang
    const dates = ['2025-03-01T10:00:00+02:00', '2025-03-01T09:30:00Z', '2025-02-28T23:00:00-05:00', '2024-12-31T23:59:59.999Z'];
    for (const [i, prix] of values.entries()) {
      await create('annonces', {
        titre: `carol-${prix}`, prix, rang: i, vendu: i % 2 === 0, date: dates[i % dates.length],
        meta: { i, pair: i % 2 === 0 },
      }, carol.token);
    }
    await create('annonces', { titre: 'carol-sans-prix', rang: 99 }, carol.token);
  });
  const carolRows = async (query: Record<string, string>) => {
    const r = await list('annonces', { limit: '200', ...query }, carol.token);
    expect(r.status).toBe(200);
    return (r.body.data as Row[]).filter((x) => x.joueur_id === carol.id);
  };

  it('orders numbers as numbers (9 < 10 < 100), ties by id, missing values first in asc and last in desc', async () => {
    const asc = await carolRows({ order_by: 'prix' });
    expect(asc.map((x) => x.donnees.prix ?? null)).toEqual([null, -1, 2.5, 9, 9, 10, 10, 100, 1000]);
    const tiesAsc = asc.filter((x) => x.donnees.prix === 10).map((x) => x.id);
    expect(tiesAsc).toEqual([...tiesAsc].sort());
    const desc = await carolRows({ order_by: 'prix', order_dir: 'desc' });
    expect(desc.map((x) => x.donnees.prix ?? null)).toEqual([1000, 100, 10, 10, 9, 9, 2.5, -1, null]);
    expect(desc.map((x) => x.id)).toEqual([...asc.map((x) => x.id)].reverse());
  });

  it('orders text by collation (where "10" < "9") and timestamps chronologically across offsets', async () => {
    const byTitle = await carolRows({ order_by: 'titre' });
    expect(byTitle.map((x) => x.donnees.titre).slice(0, 3)).toEqual(['carol--1', 'carol-10', 'carol-10']);
    const byDate = await carolRows({ order_by: 'date' });
    const dates = byDate.map((x) => x.donnees.date).filter(Boolean) as string[];
    expect(dates).toEqual([...dates].sort((a, b) => Date.parse(a) - Date.parse(b)));
    expect([...new Set(dates)]).toEqual([
      '2024-12-31T23:59:59.999Z', '2025-03-01T04:00:00.000Z', '2025-03-01T08:00:00.000Z', '2025-03-01T09:30:00.000Z',
    ]);
  });

  it('orders by cree_le (default, asc) and maj_le, in both directions', async () => {
    const dflt = await carolRows({});
    expect(dflt.map((x) => x.donnees.rang)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 99]);
    expect((await carolRows({ order_dir: 'desc' })).map((x) => x.donnees.rang)).toEqual([99, 7, 6, 5, 4, 3, 2, 1, 0]);
    const first = dflt[0]!;
    await patch(`/tables/annonces/${first.id}`, { donnees: { rang: 0 } }, carol.token);
    const byUpdate = await carolRows({ order_by: 'maj_le', order_dir: 'desc' });
    expect(byUpdate[0]!.id).toBe(first.id);
  });

  it('limit (default 50) and offset page through a stable order without gaps or repeats', async () => {
    for (let i = 0; i < 55; i++) await create('tableau', { score: i % 7, pseudo: `p${i}` }, bob.token);
    const dflt = await list('tableau', { order_by: 'score' });
    expect(dflt.body.data).toHaveLength(50);
    const all = (await list('tableau', { order_by: 'score', limit: '200' })).body.data as Row[];
    const pages: Row[] = [];
    for (let offset = 0; offset < all.length; offset += 8) {
      pages.push(...(await list('tableau', { order_by: 'score', limit: '8', offset: String(offset) })).body.data);
    }
    expect(pages.map((x) => x.id)).toEqual(all.map((x) => x.id));
    expect(new Set(pages.map((x) => x.id)).size).toBe(all.length);
    expect((await list('tableau', { offset: '100000' })).body.data).toEqual([]);
  });

  it('filters by equality, each value read by the column type', async () => {
    const pick = async (q: Record<string, string>) => (await carolRows(q)).map((x) => x.donnees.rang).sort((a, b) => Number(a) - Number(b));
    expect(await pick({ prix: '10' })).toEqual([1, 5]);
    expect(await pick({ prix: '10.0' })).toEqual([1, 5]);
    expect(await pick({ prix: '2.5' })).toEqual([4]);
    expect(await pick({ rang: '3' })).toEqual([3]);
    expect(await pick({ vendu: 'true' })).toEqual([0, 2, 4, 6]);
    expect(await pick({ vendu: 'false', prix: '9' })).toEqual([]);
    expect(await pick({ vendu: 'true', prix: '9' })).toEqual([0, 6]);
    expect(await pick({ titre: 'carol-100' })).toEqual([2]);
    expect(await pick({ date: '2025-03-01T10:00:00+02:00' })).toEqual([0, 4]);
    expect(await pick({ date: '2025-03-01T08:00:00.000Z' })).toEqual([0, 4]);
    // An unencoded + arrives as a space: still read as +02:00.
    const raw = await api.get('/tables/annonces?date=2025-03-01T10:00:00+02:00&limit=200', { token: carol.token });
    expect((raw.body.data as Row[]).filter((x) => x.joueur_id === carol.id)).toHaveLength(2);
    expect(await pick({ meta: '{"pair": true, "i": 2}' })).toEqual([2]);
    expect(await pick({ meta: '{"pair": true}' })).toEqual([]); // equality, not containment
    // A json object with a scalar filter: the scalar one leads, the object is checked on the row.
    expect(await pick({ meta: '{"pair": true, "i": 2}', vendu: 'true' })).toEqual([2]);
    expect(await pick({ meta: '{"pair": true, "i": 2}', vendu: 'false' })).toEqual([]);
    expect(await pick({ meta: '2', titre: 'carol-100' })).toEqual([]);
  });

  it.each([
    [{ limit: '0' }, ['limit']],
    [{ limit: '201' }, ['limit']],
    [{ limit: 'abc' }, ['limit']],
    [{ limit: '1.5' }, ['limit']],
    [{ offset: '-1' }, ['offset']],
    [{ order_dir: 'up' }, ['order_dir']],
    [{ order_by: 'couleur' }, ['order_by']],
    [{ order_by: 'joueur_id' }, ['order_by']],
    [{ couleur: 'rouge' }, ['couleur']],
    [{ rang: 'trois' }, ['rang']],
    [{ rang: '3.5' }, ['rang']],
    [{ prix: '1e' }, ['prix']],
    [{ vendu: 'oui' }, ['vendu']],
    [{ date: 'hier' }, ['date']],
    [{ meta: '{pas du json' }, ['meta']],
    [{ couleur: 'x', vendu: '1', order_by: 'y' }, ['couleur', 'order_by', 'vendu']],
  ])('invalid_query names the parameter (%j)', async (query, expected) => {
    const r = await list('annonces', query, carol.token);
    expect([r.status, r.body.error]).toEqual([400, 'invalid_query']);
    expect(champs(r)).toEqual(expected);
  });

  it('invalid_query for a repeated parameter', async () => {
    const r = await api.get('/tables/annonces?vendu=true&vendu=false', { token: carol.token });
    expect([r.status, r.body.error, champs(r)]).toEqual([400, 'invalid_query', ['vendu']]);
    const l = await api.get('/tables/annonces?limit=1&limit=2', { token: carol.token });
    expect([l.status, champs(l)]).toEqual([400, ['limit']]);
  });

  it('table_not_found for an unknown table, before any question of token', async () => {
    const r = await list('nulle_part');
    expect([r.status, r.body.error]).toEqual([404, 'table_not_found']);
  });
});

describe('filter keys (table_row_filters)', () => {
  type Key = { filter_key: string; game_id: string; table_id: string };
  /** What the trigger stored for a row. */
  const stored = async (id: string) => (await app.sql<Key>(
    'select f.filter_key, f.game_id, f.table_id from manette.table_row_filters f where f.row_id = $1 order by 1', [id]));
  /** The keys that donnees should have: one per string, number or boolean value. */
  const keysOf = async (donnees: Record<string, unknown>) => (await app.sql(
    `select manette.table_filter_key(d.key, d.value) as k from jsonb_each($1::jsonb) d
     where jsonb_typeof(d.value) in ('string', 'number', 'boolean') order by 1`, [JSON.stringify(donnees)])).map((r) => r.k as string);
  const ids = async (query: Record<string, string>) =>
    ((await list('annonces', { limit: '200', ...query }, bob.token)).body.data as Row[]).map((x) => x.id);

  it('create, PATCH and DELETE over HTTP keep a row\'s keys exactly in step with its donnees', async () => {
    const gameId = (await app.sql("select id from manette.games where slug = 'tables-a'"))[0]!.id as string;
    const row = await create('annonces', {
      titre: 'cle-1', prix: 10, vendu: false, date: '2025-01-31T13:00:00+01:00', meta: { a: 1 }, rang: 7,
    }, alice.token);
    let keys = await stored(row.id);
    expect(keys.map((k) => k.filter_key)).toEqual(await keysOf(row.donnees));
    expect(keys).toHaveLength(5); // meta is an object: no key
    const annonces = await tableId('tables-a', 'annonces');
    expect(keys.every((k) => k.game_id === gameId && k.table_id === annonces)).toBe(true);
    expect(await ids({ titre: 'cle-1' })).toEqual([row.id]);
    expect(await ids({ titre: 'cle-1', prix: '10.0', vendu: 'false', date: '2025-01-31T12:00:00Z', rang: '7' })).toEqual([row.id]);

    const patched = await patch(`/tables/annonces/${row.id}`, { donnees: { prix: 12.5, vendu: null, meta: 3 } }, alice.token);
    expect(patched.status).toBe(200);
    keys = await stored(row.id);
    expect(keys.map((k) => k.filter_key)).toEqual(await keysOf(patched.body.data.donnees));
    expect(keys).toHaveLength(5); // vendu cleared, meta now a number
    expect(await ids({ titre: 'cle-1', prix: '10' })).toEqual([]);
    expect(await ids({ titre: 'cle-1', vendu: 'false' })).toEqual([]);
    expect(await ids({ titre: 'cle-1', prix: '12.5' })).toEqual([row.id]);
    expect(await ids({ meta: '3', titre: 'cle-1' })).toEqual([row.id]);

    // A PATCH refused by the rights changes no key.
    expect((await patch(`/tables/annonces/${row.id}`, { donnees: { titre: 'vole' } }, bob.token)).status).toBe(403);
    expect((await stored(row.id)).map((k) => k.filter_key)).toEqual(await keysOf(patched.body.data.donnees));

    expect((await del(`/tables/annonces/${row.id}`, alice.token)).status).toBe(200);
    expect(await stored(row.id)).toEqual([]);
    expect(await ids({ titre: 'cle-1' })).toEqual([]);
  });

  it('server rows (admin tooling) get their keys too', async () => {
    const row = await serverRow('catalogue', { nom: 'parchemin', prix: 3 });
    expect((await stored(row.id)).map((k) => k.filter_key)).toEqual(await keysOf(row.donnees));
    expect((await list('catalogue', { nom: 'parchemin' })).body.data).toEqual([row]);
  });

  it('after every test above, the stored keys are exactly the keys of the stored rows', async () => {
    const [{ missing, extra, total }] = await app.sql(`
      with expected as (
        select r.game_id, r.table_id, r.id as row_id, k as filter_key
        from manette.table_rows r, manette.table_filter_keys(r.data) k),
      actual as (select f.game_id, f.table_id, f.row_id, f.filter_key from manette.table_row_filters f)
      select (select count(*) from (select * from expected except select * from actual) m)::int as missing,
             (select count(*) from (select * from actual except select * from expected) e)::int as extra,
             (select count(*) from actual)::int as total`) as [{ missing: number; extra: number; total: number }];
    expect({ missing, extra }).toEqual({ missing: 0, extra: 0 });
    expect(total).toBeGreaterThan(100);
  });
});

describe('Idempotency-Key', () => {
  it('the same key from the same player returns the first response and creates nothing more', async () => {
    const headers = { 'idempotency-key': 'cle-unique-1' };
    const first = await api.post('/tables/inventaire', { donnees: { item_id: 'idem-1' } }, { token: alice.token, headers });
    const again = await api.post('/tables/inventaire', { donnees: { item_id: 'idem-1' } }, { token: alice.token, headers });
    expect(first.status).toBe(201);
    expect([again.status, again.body]).toEqual([201, first.body]);
    // The key is bound to the body and the table (docs/api.md).
    const otherBody = await api.post('/tables/inventaire', { donnees: { item_id: 'idem-1', quantite: 9 } }, { token: alice.token, headers });
    const otherTable = await api.post('/tables/tableau', { donnees: { item_id: 'idem-1' } }, { token: alice.token, headers });
    expect([otherBody.status, otherBody.body.error]).toEqual([409, 'idempotency_conflict']);
    expect([otherTable.status, otherTable.body.error]).toEqual([409, 'idempotency_conflict']);
    expect(await rowCount('tables-a', 'inventaire', "r.data->>'item_id' = 'idem-1'")).toBe(1);
    // Another player's identical key is another request.
    const other = await api.post('/tables/inventaire', { donnees: { item_id: 'idem-1' } }, { token: bob.token, headers });
    expect(other.body.data.id).not.toBe(first.body.data.id);
    expect(await rowCount('tables-a', 'inventaire', "r.data->>'item_id' = 'idem-1'")).toBe(2);
  });

  it('20 concurrent identical requests create exactly one row, with identical responses', async () => {
    const replies = await Promise.all(Array.from({ length: 20 }, () =>
      api.post('/tables/tableau', { donnees: { pseudo: 'rafale', score: 1 } },
        { token: alice.token, headers: { 'idempotency-key': 'rafale-20' } })));
    expect(replies.map((r) => r.status)).toEqual(Array(20).fill(201));
    for (const r of replies) expect(r.body).toEqual(replies[0]!.body);
    expect(await rowCount('tables-a', 'tableau', "r.data->>'pseudo' = 'rafale'")).toBe(1);
  });

  it('does not store failures: a corrected retry with the same key goes through', async () => {
    const headers = { 'idempotency-key': 'corrige-moi' };
    const bad = await api.post('/tables/inventaire', { donnees: { quantite: 1 } }, { token: alice.token, headers });
    expect(bad.status).toBe(400);
    const good = await api.post('/tables/inventaire', { donnees: { item_id: 'corrige' } }, { token: alice.token, headers });
    expect(good.status).toBe(201);
  });

  it('a key older than 24 hours is a new request; expired keys are purged a few at a time', async () => {
    const headers = { 'idempotency-key': 'vieille-cle' };
    const first = await api.post('/tables/tableau', { donnees: { pseudo: 'vieux' } }, { token: alice.token, headers });
    await app.sql("update manette.idempotency_keys set created_at = now() - interval '25 hours' where key = 'vieille-cle'");
    const later = await api.post('/tables/tableau', { donnees: { pseudo: 'vieux' } }, { token: alice.token, headers });
    expect(later.status).toBe(201);
    expect(later.body.data.id).not.toBe(first.body.data.id);

    await app.sql(`insert into manette.idempotency_keys (game_id, player_id, key, created_at, response)
      select p.game_id, p.id, 'perimee-' || i, now() - interval '2 days', '{}' from manette.players p, generate_series(1, 25) i
      where p.id = $1`, [bob.id]);
    await api.post('/tables/tableau', { donnees: { pseudo: 'purge' } }, { token: alice.token, headers: { 'idempotency-key': 'declencheur' } });
    const left = await app.sql("select count(*)::int as n from manette.idempotency_keys where key like 'perimee-%'");
    expect(left[0]!.n).toBe(5);
  });

  it('validation_failed for a malformed key', async () => {
    const r = await api.post('/tables/tableau', { donnees: {} }, { token: alice.token, headers: { 'idempotency-key': 'x'.repeat(256) } });
    expect([r.status, r.body.error, champs(r)]).toEqual([400, 'validation_failed', ['Idempotency-Key']]);
  });
});

describe('config apply', () => {
  const indexesOf = async (table: string) => (await app.sql(
    `select pg_get_indexdef(i.indexrelid) as def from pg_index i
     where i.indrelid = to_regclass('manette.table_rows_' || replace($1::text, '-', '')) and pg_get_indexdef(i.indexrelid) like '%data ->%'
     order by 1`, [await tableId('tables-a', table)])).map((r) => r.def as string);

  it('creates one index per declared column, json columns excepted', async () => {
    const defs = await indexesOf('annonces');
    expect(defs).toHaveLength(5);
    for (const col of ['titre', 'prix', 'vendu', 'date', 'rang']) {
      expect(defs.some((d) => d.includes(`(data -> '${col}'::text)) NULLS FIRST, id)`))).toBe(true);
    }
  });

  it('applying an unchanged file changes nothing', async () => {
    const snapshot = () => app.sql(`select t.name, t.updated_at, t.columns from manette.data_tables t
      join manette.games g on g.id = t.game_id where g.slug = 'tables-a' order by t.name`);
    const indexes = () => app.sql("select count(*)::int as n from pg_class where relname like 'table\\_rows\\_%' and relkind = 'i'");
    const before = [await snapshot(), await indexes()];
    expect(await app.applyGame(gameA())).toBe(keyA);
    expect([await snapshot(), await indexes()]).toEqual(before);
  });

  it('a changed declaration keeps rows; a removed table stops being served and comes back with its rows', async () => {
    const rows = await rowCount('tables-a', 'annonces');
    const changed = {
      ...TABLES,
      annonces: { ...TABLES.annonces, colonnes: { ...TABLES.annonces.colonnes, etat: { type: 'text' }, rang: undefined, prix: { type: 'json' } } },
    };
    delete (changed.annonces.colonnes as Record<string, unknown>).rang;
    await app.applyGame(gameA(changed));
    expect(await rowCount('tables-a', 'annonces')).toBe(rows);
    expect((await indexesOf('annonces')).map((d) => /data -> '(\w+)'/.exec(d)![1]).sort()).toEqual(['date', 'etat', 'titre', 'vendu']);
    // rang is no longer declared: hidden from donnees, refused in writes and queries.
    const listed = (await list('annonces', { limit: '200' }, bob.token)).body.data as Row[];
    expect(listed.length).toBe(Math.min(rows, 200));
    expect(listed.some((x) => 'rang' in x.donnees)).toBe(false);
    expect((await list('annonces', { order_by: 'rang' }, bob.token)).body.error).toBe('invalid_query');
    expect((await api.post('/tables/annonces', { donnees: { titre: 't', rang: 1 } }, { token: bob.token })).body.error).toBe('validation_failed');

    const { tableau: _removed, ...withoutTableau } = TABLES;
    await app.applyGame(gameA(withoutTableau));
    const gone = await list('tableau');
    expect([gone.status, gone.body.error]).toEqual([404, 'table_not_found']);
    expect((await api.post('/tables/tableau', { donnees: {} }, { token: alice.token })).body.error).toBe('table_not_found');
    const kept = await rowCount('tables-a', 'tableau');
    expect(kept).toBeGreaterThan(50);
    expect(await indexesOf('tableau')).toEqual([]);

    await app.applyGame(gameA());
    const back = await list('tableau', { limit: '200' });
    expect(back.body.data).toHaveLength(kept);
    expect(await indexesOf('tableau')).toHaveLength(2);
    expect((await list('annonces', { order_by: 'rang', limit: '1' }, bob.token)).status).toBe(200);
  });

  it('reserves the row fields and the query parameters as column names', () => {
    for (const name of ['id', 'donnees', 'limit', 'offset', 'order_by', 'order_dir']) {
      const parsed = parseGameConfig({ jeu: 'x', nom: 'x', tables: { t: { colonnes: { [name]: { type: 'text' } }, lecture: 'public', ecriture: 'joueurs' } } });
      expect(parsed.ok).toBe(false);
    }
  });

  it('documents the table routes in the OpenAPI document', async () => {
    const doc = (await api.get('/openapi.json')).body;
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/tables/{nomTable}', '/tables/{nomTable}/{id}']));
    expect(Object.keys(doc.paths['/tables/{nomTable}/{id}'])).toEqual(expect.arrayContaining(['get', 'patch', 'delete']));
  });
});

describe('1,000,000 rows', () => {
  it('lists ordered by a declared column, or filtered by one, through indexes, never a full scan', { timeout: 180_000 }, async () => {
    const declare = (colonnes: Record<string, unknown>) => app.applyGame({
      jeu: 'tables-big', nom: 'Big', tables: { objets: { colonnes, lecture: 'public', ecriture: 'joueurs' } },
    });
    // Declared first with a json column only, so the load does not maintain the column
    // indexes row by row; declaring the columns next builds them (apply keeps the rows).
    const big = await declare({ meta: { type: 'json' } });
    const id = await tableId('tables-big', 'objets');
    const started = Date.now();
    // Superuser load, foreign-key triggers off (the game and table exist); ordered ids
    // keep the primary key build cheap. The filter-key trigger stays on for it (enable
    // always: replica mode skips ordinary triggers), so the real trigger writes the
    // 2,000,000 keys, in one set-based statement. Even rows have quantite 0 (a common
    // value: 500,000 rows); odd rows (i * 7919) % 100000, an odd number shared by 10 rows.
    await app.sql(`do $$ begin
      set local session_replication_role = replica;
      alter table manette.table_rows enable always trigger table_rows_filters_insert;
      insert into manette.table_rows (id, game_id, table_id, data, created_at, updated_at)
      select lpad(to_hex(i), 32, '0')::uuid, t.game_id, t.id,
             jsonb_build_object('nom', 'objet-' || i, 'quantite', case when i % 2 = 0 then 0 else (i::bigint * 7919) % 100000 end),
             now() - make_interval(secs => 1000000 - i), now()
      from manette.data_tables t, generate_series(1, 1000000) i
      where t.id = '${id}';
      alter table manette.table_rows enable trigger table_rows_filters_insert;
    end $$`);
    const loadedSeconds = (Date.now() - started) / 1000;
    await declare({ meta: { type: 'json' }, nom: { type: 'text' }, quantite: { type: 'integer' } });
    await app.sql('analyze manette.table_rows; analyze manette.table_row_filters');
    const loadSeconds = (Date.now() - started) / 1000;
    expect(await rowCount('tables-big', 'objets')).toBe(1_000_000);
    expect((await app.sql('select count(*)::int as n from manette.table_row_filters where table_id = $1', [id]))[0]!.n).toBe(2_000_000);

    // The plan of the query that api.tables_list actually runs, with its parameters:
    // auto_explain logs every nested statement's plan as a NOTICE to this session.
    const db = await planLoggingClient(twinAdminUrlOf(app.databaseUrl), { role: 'manette_api' });
    const notices: string[] = [];
    db.on('notice', (n) => notices.push(n.message ?? ''));
    const timings: string[] = [];
    try {
      const run = async (body: Record<string, unknown>) => {
        notices.length = 0;
        const started = Date.now();
        const { rows } = await db.query('select api.tables_list($1, $2) as r', [JSON.stringify({ key: big }), JSON.stringify({ table: 'objets', ...body })]);
        const ms = Date.now() - started;
        timings.push(`${JSON.stringify(body)}: ${ms} ms`);
        const plan = notices.find((n) => n.includes('from manette.table_rows r'));
        expect(plan, notices.join('\n---\n')).toBeDefined();
        return { data: rows[0].r.data as Row[], plan: plan!, ms };
      };
      const partition = `table_rows_${id.replace(/-/g, '')}`;
      for (const [body, scan] of [
        [{ order_by: 'quantite', limit: 50 }, 'Index Scan using'],
        [{ order_by: 'quantite', order_dir: 'desc', limit: 50 }, 'Index Scan Backward using'],
        [{ order_by: 'nom', limit: 50, offset: 1000 }, 'Index Scan using'],
        [{ order_by: 'cree_le', order_dir: 'desc', limit: 50 }, 'Index Scan Backward using'],
      ] as const) {
        const { data, plan, ms } = await run(body);
        expect(plan).not.toMatch(/Seq Scan|Sort Key/);
        expect(plan).toMatch(new RegExp(`${scan} \\S+ on ${partition} r`));
        expect(data).toHaveLength(body.limit);
        expect(ms).toBeLessThan(2000);
      }
      const asc = (await run({ order_by: 'quantite', limit: 50 })).data.map((x) => x.donnees.quantite as number);
      expect(asc).toEqual([...asc].sort((a, b) => a - b));
      expect(asc[0]).toBe(0);
      const desc = (await run({ order_by: 'quantite', order_dir: 'desc', limit: 5 })).data.map((x) => x.donnees.quantite);
      expect(desc).toEqual([99999, 99999, 99999, 99999, 99999]);

      // Filters. The rows whose quantite is 12345: odd i with (i * 7919) % 100000 = 12345.
      const rare = Array.from({ length: 1_000_000 }, (_, k) => k + 1)
        .filter((i) => i % 2 === 1 && (i * 7919) % 100000 === 12345).map((i) => `objet-${i}`);
      expect(rare).toHaveLength(10);
      const key = async (column: string, value: unknown) => (await app.sql(
        'select manette.table_filter_key($1, $2::jsonb) as k', [column, JSON.stringify(value)]))[0]!.k as string;
      const keyCond = (k: string) => `Index Cond: ((table_id = '${id}'::uuid) AND (filter_key = '${k}'::uuid)`;
      // A rare value, alone, with an order, and with a common value (two filters): the
      // listing starts from the rare value's keys (primary key of table_row_filters),
      // then reads each row by its primary key; only those few rows are sorted.
      const quantiteKey = await key('quantite', 12345);
      for (const [body, expected] of [
        [{ filtres: { quantite: '12345' }, limit: 50 }, [...rare].sort((a, b) => Number(a.slice(6)) - Number(b.slice(6)))],
        [{ filtres: { quantite: '12345' }, order_by: 'nom', order_dir: 'desc', limit: 50 }, [...rare].sort().reverse()],
        [{ filtres: { quantite: '12345' }, order_by: 'nom', limit: 3, offset: 2 }, [...rare].sort().slice(2, 5)],
      ] as const) {
        const { data, plan, ms } = await run(body);
        expect(data.map((x) => x.donnees.nom)).toEqual(expected);
        expect(plan).not.toMatch(/Seq Scan|Bitmap/);
        expect(plan).toMatch(/Index Scan( Backward)? using table_row_filters_pkey on table_row_filters fk/);
        expect(plan).toContain(keyCond(quantiteKey));
        expect(plan).toContain(`Index Scan using ${partition}_pkey on ${partition} r `);
        expect(plan).toContain(`Index Cond: ((table_id = '${id}'::uuid) AND (id = fk.row_id))`);
        expect(ms).toBeLessThan(1000);
      }
      // Two filters, one common (quantite 0: 500,000 rows), one rare: the rare one leads.
      const both = await run({ filtres: { quantite: '0', nom: 'objet-2468' } });
      expect(both.data.map((x) => x.donnees)).toEqual([{ nom: 'objet-2468', quantite: 0 }]);
      expect(both.plan).not.toMatch(/Seq Scan|Bitmap/);
      expect(both.plan).toContain(keyCond(await key('nom', 'objet-2468')));
      expect(both.plan).toContain(`Index Cond: ((table_id = '${id}'::uuid) AND (id = fk.row_id))`);
      expect(both.ms).toBeLessThan(1000);
      // A common value with an order: the order's index, each row's key probed in
      // table_row_filters' primary key; it stops at the page's end.
      const common = await run({ filtres: { quantite: '0' }, order_by: 'nom', limit: 50 });
      expect(common.data).toHaveLength(50);
      expect(common.data.every((x) => x.donnees.quantite === 0)).toBe(true);
      expect(common.plan).not.toMatch(/Seq Scan|Bitmap|Sort Key/);
      expect(common.plan).toMatch(new RegExp(`Index Scan using ${partition}_c_\\w+ on ${partition} r`));
      expect(common.plan).toContain(`${keyCond(await key('quantite', 0))} AND (row_id = r.id))`);
      expect(common.ms).toBeLessThan(1000);
    } finally {
      await db.end();
    }
    console.info(`1,000,000 rows and their 2,000,000 filter keys loaded in ${loadedSeconds.toFixed(1)} s, `
      + `indexed in ${loadSeconds.toFixed(1)} s; listings: ${timings.join('; ')}`);
  });
});
