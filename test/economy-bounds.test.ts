// Huge numbers in the economy (issue 31, point 3; docs/economy.md, "Bounds"): the game file
// bounds prices (0..10^12), and the SQL's arithmetic never overflows whatever a file applied
// by hand holds: a price no balance can pay is solde_insuffisant, a grant no balance can hold
// is limite_atteinte. Before: a price of 9·10^18 bought twice answered 500 (bigint out of range).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, minimalGame, startTestApp, type Reply, type TestApp } from './support/harness.js';
import { parseGameConfig } from '../api/config/game-config.js';

const BOUTIQUE = [
    { code: 'cher', nom: 'Cher', prix: 10, devise: 'or', contenu: { objets: { potion: 1 } } },
    { code: 'don', nom: 'Don', prix: 0, devise: 'or', contenu: { monnaies: { gemmes: 1 } } },
];
const GAME = {
  ...minimalGame('bornes-economie'),
  monnaies: { or: { nom: 'Or', depart: 100 }, gemmes: { nom: 'Gemmes' } },
  objets: { potion: { nom: 'Potion' } },
  boutique: BOUTIQUE,
};

let app: TestApp;
let api: ReturnType<typeof client>;
beforeAll(async () => {
  app = await startTestApp();
  api = client(app.baseUrl, await app.applyGame(GAME));
});
afterAll(async () => { await app?.close(); });

function expectRefused(r: Reply, error: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(409);
  expect(r.body).toMatchObject({ ok: false, error });
}
const buy = (token: string, code: string, quantite?: number) => api.post('/shop/acheter', quantite === undefined ? { code } : { code, quantite }, { token });
/** What a file applied by hand (not through game-config.ts) may hold. */
const setArticle = (code: string, set: string, value: unknown) =>
  app.sql(`update manette.shop_articles set ${set} = $2 where code = $1 and game_id = (select id from manette.games where slug = 'bornes-economie')`, [code, value]);

describe('the game file bounds prices', () => {
  it('prix is 0..10^12 (as every amount of a contenu)', () => {
    const withPrice = (prix: number) => parseGameConfig({ ...GAME, boutique: [{ ...BOUTIQUE[0], prix }] });
    expect(withPrice(10 ** 12).ok).toBe(true);
    for (const prix of [10 ** 12 + 1, 9e18, 1e300]) {
      const r = withPrice(prix);
      expect(r.ok, String(prix)).toBe(false);
      if (!r.ok) expect(r.error).toContain('prix');
    }
  });
});

describe('the SQL never overflows', () => {
  it('manette_admin.apply_part_shop refuses such a price too (a direct caller of apply_game)', async () => {
    await expect(app.sql(`select manette_admin.apply_part_shop((select id from manette.games where slug = 'bornes-economie'), $1::jsonb)`,
      [JSON.stringify({ ...GAME, boutique: [{ ...BOUTIQUE[0], prix: 9e18 }] })]))
      .rejects.toThrow('boutique.0.prix: prix de 0 à 1000000000000 attendu');
  });


  it('a price no balance can pay is solde_insuffisant, whatever the quantity, and nothing changes', async () => {
    const p = await api.register(`riche_${randomBytes(4).toString('hex')}`);
    for (const price of ['9000000000000000000', '9223372036854775807', '1e30']) {
      await setArticle('cher', 'price', price);
      for (const q of [undefined, 2, 100]) expectRefused(await buy(p.token, 'cher', q), 'solde_insuffisant');
    }
    const wallet = await api.get('/economie/portefeuille', { token: p.token });
    expect(wallet.body.data).toEqual([expect.objectContaining({ code: 'gemmes', solde: 0 }), expect.objectContaining({ code: 'or', solde: 100 })]);
    await setArticle('cher', 'price', 10);
    expect((await buy(p.token, 'cher', 2)).status).toBe(200);
  });

  it('a grant no balance can hold is limite_atteinte (a content of 9·10^18, a balance near the largest)', async () => {
    const p = await api.register(`plein_${randomBytes(4).toString('hex')}`);
    await setArticle('don', 'contents', { monnaies: { gemmes: 9e18 } });
    expectRefused(await buy(p.token, 'don', 2), 'limite_atteinte');
    await setArticle('don', 'contents', { monnaies: { gemmes: 1 } });
    expect((await buy(p.token, 'don')).status).toBe(200);
    await app.sql(`update manette.balances set amount = 9223372036854775800 where player_id = $1 and currency = 'gemmes'`, [p.data.joueur.id]);
    expectRefused(await buy(p.token, 'don', 100), 'limite_atteinte');
    await setArticle('don', 'contents', { monnaies: { gemmes: 1000000000000 } });
    expectRefused(await buy(p.token, 'don'), 'limite_atteinte');
  });
});
