// The shop and GET /panel (docs/storage-shop-panel.md), over real HTTP, with games
// applied through the real `manette apply` path.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, minimalGame, startTestApp, type TestApp } from './support/harness.js';
import { parseGameConfig } from '../api/config/game-config.js';

let app: TestApp;
let api: ReturnType<typeof client>;
let apiB: ReturnType<typeof client>;
let keyA: string;

const iso = (ms: number) => new Date(Date.now() + ms).toISOString();
const DAY = 86400e3;

type Article = Record<string, unknown> & { code: string };
const boutique = (): Article[] => [
  { code: 'epee', nom: 'Épée', description: 'Tranchante', prix: 100, devise: 'or', actif: true, ordre: 1,
    image_url: 'https://cdn.example.test/epee.png', metadonnees: { degats: 12, rarete: 'rare' } },
  { code: 'arc', nom: 'Arc', prix: 80, devise: 'or', ordre: 1 },
  { code: 'zweihander', nom: 'zweihänder', prix: 300, devise: 'or', ordre: 1 },
  { code: 'potion', nom: 'Potion', prix: 2.5, devise: 'gemmes' },
  { code: 'cache', nom: 'Article caché', prix: 1, devise: 'or', actif: false },
  { code: 'bientot', nom: 'Bientôt', prix: 1, devise: 'or', debut: iso(DAY) },
  { code: 'fini', nom: 'Fini', prix: 1, devise: 'or', fin: iso(-1000) },
  { code: 'promo', nom: 'Promo', prix: 5, devise: 'or', ordre: 2, debut: iso(-DAY), fin: iso(DAY) },
];
let articles: Article[] = boutique();

const PANEL = {
  theme: { couleur_primaire: '#e17055', police: 'Inter', logo_url: 'https://cdn.example.test/logo.svg', ombre: 'none' },
  textes: { connexion_titre: 'Bienvenue, aventurier' },
};
const gameA = (extra: Record<string, unknown> = {}) => minimalGame('boutique-a', { boutique: articles, panel: PANEL, ...extra });

beforeAll(async () => {
  app = await startTestApp();
  keyA = await app.applyGame(gameA());
  api = client(app.baseUrl, keyA);
  apiB = client(app.baseUrl, await app.applyGame(minimalGame('boutique-b', {
    boutique: [{ code: 'epee', nom: 'Épée de B', prix: 3, devise: 'pièces' }],
  })));
});
afterAll(async () => { await app?.close(); });

const codes = (r: { body: { data: { code: string }[] } }) => r.body.data.map((a) => a.code);

describe('GET /shop/articles', () => {
  it('lists active articles inside their window, by ordre then nom, with the key only', async () => {
    const r = await api.get('/shop/articles');
    expect(r.status).toBe(200);
    expect(r.body.ok).toBe(true);
    // ordre 0: potion; ordre 1: Arc, Épée, zweihänder (alphabetical, accents and case aside); ordre 2: promo.
    expect(codes(r)).toEqual(['potion', 'arc', 'epee', 'zweihander', 'promo']);
  });

  it('gives each article {id, code, nom, description, prix, devise, image_url, metadonnees}', async () => {
    const r = await api.get('/shop/articles');
    const epee = r.body.data.find((a: { code: string }) => a.code === 'epee');
    expect(epee).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/), code: 'epee', nom: 'Épée', description: 'Tranchante', prix: 100, devise: 'or', devise_nom: null,
      image_url: 'https://cdn.example.test/epee.png', metadonnees: { degats: 12, rarete: 'rare' },
      // The economy's additions (docs/economy.md): an old-style article is listed, not buyable.
      contenu: null, achetable: false,
    });
    const potion = r.body.data.find((a: { code: string }) => a.code === 'potion');
    expect(potion).toEqual({
      id: expect.any(String), code: 'potion', nom: 'Potion', description: null, prix: 2.5, devise: 'gemmes', devise_nom: null, image_url: null, metadonnees: {}, contenu: null, achetable: false,
    });
  });

  it('hides inactive articles, articles before their debut and after their fin', async () => {
    const listed = codes(await api.get('/shop/articles'));
    for (const hidden of ['cache', 'bientot', 'fini']) expect(listed).not.toContain(hidden);
  });

  it('works with a token too, and answers an empty list for a game without boutique', async () => {
    const { token } = await api.register('Client');
    expect((await api.get('/shop/articles', { token })).status).toBe(200);
    const empty = client(app.baseUrl, await app.applyGame(minimalGame('boutique-vide')));
    expect((await empty.get('/shop/articles')).body).toEqual({ ok: true, data: [] });
  });

  it('is per game: the same code in another game is another article', async () => {
    const a = (await api.get('/shop/articles')).body.data.find((x: { code: string }) => x.code === 'epee');
    const b = await apiB.get('/shop/articles');
    expect(b.body.data).toHaveLength(1);
    expect(b.body.data[0]).toMatchObject({ code: 'epee', nom: 'Épée de B', prix: 3, devise: 'pièces' });
    expect(b.body.data[0].id).not.toBe(a.id);
  });

  it('missing_key and invalid_key', async () => {
    const none = await api.get('/shop/articles', { key: null });
    expect([none.status, none.body.error]).toEqual([401, 'missing_key']);
    const bad = await api.get('/shop/articles', { key: `sk_live_${'Q'.repeat(32)}` });
    expect([bad.status, bad.body.error]).toEqual([401, 'invalid_key']);
  });

  it('keeps ids across applies; an unchanged file writes nothing', async () => {
    const before = await api.get('/shop/articles');
    const rows = () => app.sql<{ code: string; ctid: string; updated_at: Date }>(
      `select s.code, s.ctid::text, s.updated_at from manette.shop_articles s join manette.games g on g.id = s.game_id
       where g.slug = 'boutique-a' order by s.code`);
    const rowsBefore = await rows();
    expect(await app.applyGame(gameA())).toBe(keyA);
    expect(await rows()).toEqual(rowsBefore);
    expect((await api.get('/shop/articles')).body).toEqual(before.body);
  });

  it('applies changes in place, hides articles removed from the file and revives them with their id', async () => {
    const before = (await api.get('/shop/articles')).body.data as { id: string; code: string }[];
    const idOf = (code: string) => before.find((a) => a.code === code)!.id;

    articles = boutique().filter((a) => a.code !== 'arc').map((a) => (a.code === 'epee' ? { ...a, prix: 120, ordre: 3 } : a));
    await app.applyGame(gameA());
    const changed = await api.get('/shop/articles');
    expect(codes(changed)).toEqual(['potion', 'zweihander', 'promo', 'epee']);
    expect(changed.body.data.find((a: { code: string }) => a.code === 'epee')).toMatchObject({ id: idOf('epee'), prix: 120 });
    const [arc] = await app.sql(`select removed_at from manette.shop_articles where id = $1`, [idOf('arc')]);
    expect(arc!.removed_at).toBeInstanceOf(Date);

    articles = boutique();
    await app.applyGame(gameA());
    const back = await api.get('/shop/articles');
    expect(codes(back)).toEqual(['potion', 'arc', 'epee', 'zweihander', 'promo']);
    expect(back.body.data.map((a: { id: string }) => a.id)).toEqual(before.map((a) => a.id));
  });

  it('an article made inactive or given a past fin leaves the shop', async () => {
    articles = boutique().map((a) => (a.code === 'potion' ? { ...a, actif: false } : a.code === 'promo' ? { ...a, fin: iso(-1) } : a));
    await app.applyGame(gameA());
    expect(codes(await api.get('/shop/articles'))).toEqual(['arc', 'epee', 'zweihander']);
    articles = boutique();
    await app.applyGame(gameA());
  });

  it('the config file refuses a fin before debut, duplicate codes and out-of-range values, naming the field', () => {
    const bad = (boutique: unknown[]) => parseGameConfig({ jeu: 'x', nom: 'X', boutique });
    const window = bad([{ code: 'a', nom: 'A', prix: 1, devise: 'or', debut: '2030-01-02T00:00:00Z', fin: '2030-01-01T00:00:00Z' }]);
    expect(window.ok).toBe(false);
    expect(!window.ok && window.error).toContain('boutique.0.fin');
    expect(bad([{ code: 'a', nom: 'A', prix: 1, devise: 'or' }, { code: 'a', nom: 'B', prix: 1, devise: 'or' }]).ok).toBe(false);
    const ordre = bad([{ code: 'a', nom: 'A', prix: 1, devise: 'or', ordre: 2 ** 31 }]);
    expect(!ordre.ok && ordre.error).toContain('boutique.0.ordre');
    expect(bad([{ code: 'a', nom: 'A', prix: -1, devise: 'or' }]).ok).toBe(false);
  });
});

describe('GET /panel', () => {
  it('serves the documented defaults for a game without panel', async () => {
    const r = await apiB.get('/panel');
    expect(r.status).toBe(200);
    expect(r.body.ok).toBe(true);
    expect(Object.keys(r.body.data).sort()).toEqual(['connexions', 'google_client_id', 'textes', 'theme']);
    expect(r.body.data.google_client_id).toBeNull();
    expect(r.body.data.connexions).toEqual([]);
    expect(r.body.data.theme).toEqual({
      couleur_primaire: '#6c5ce7', couleur_secondaire: '#a29bfe', couleur_fond: '#ffffff', couleur_surface: '#f5f6fa',
      couleur_texte: '#2d3436', couleur_texte_doux: '#636e72', couleur_erreur: '#d63031', couleur_succes: '#00b894',
      police: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif', rayon_bordure: '8px', logo_url: null,
    });
    expect(r.body.data.textes).toMatchObject({
      connexion_titre: 'Connexion', connexion_bouton: 'Se connecter', inscription_titre: 'Créer un compte',
      matchmaking_titre: 'Trouver une partie', matchmaking_attente: 'Recherche d’adversaires…', matchmaking_annuler: 'Annuler',
    });
    expect(Object.values(r.body.data.textes).every((t) => typeof t === 'string' && t.length > 0)).toBe(true);
  });

  it('puts the game\'s values over the defaults, key by key', async () => {
    const defaults = (await apiB.get('/panel')).body.data;
    const r = await api.get('/panel');
    expect(r.body.data.theme).toEqual({
      ...defaults.theme, couleur_primaire: '#e17055', police: 'Inter', logo_url: 'https://cdn.example.test/logo.svg', ombre: 'none',
    });
    expect(r.body.data.textes).toEqual({ ...defaults.textes, connexion_titre: 'Bienvenue, aventurier' });
  });

  it('follows a new apply of the file', async () => {
    await app.applyGame(gameA({ panel: { theme: { couleur_fond: '#000000' } } }));
    const r = await api.get('/panel');
    expect(r.body.data.theme).toMatchObject({ couleur_fond: '#000000', couleur_primaire: '#6c5ce7', logo_url: null });
    expect(r.body.data.textes.connexion_titre).toBe('Connexion');
  });

  it('missing_key and invalid_key', async () => {
    const none = await api.get('/panel', { key: null });
    expect([none.status, none.body.error]).toEqual([401, 'missing_key']);
    const bad = await api.get('/panel', { key: `sk_live_${'Q'.repeat(32)}` });
    expect([bad.status, bad.body.error]).toEqual([401, 'invalid_key']);
  });

  it('is documented in the OpenAPI document with the shop', async () => {
    const doc = (await api.get('/openapi.json')).body;
    expect(doc.paths['/panel'].get).toBeDefined();
    expect(doc.paths['/shop/articles'].get).toBeDefined();
  });
});
