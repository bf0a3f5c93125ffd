// Game texts per language (docs/api.md, Texts per language): every player-facing text of the
// game file (nom, monnaies/objets nom, boutique nom and description, panel.textes) is one
// string, or {"fr": ..., "en": ...}. Over real HTTP on a real database, the API answers each
// as one string in the request's language (English when Accept-Language prefers en, French
// otherwise; the other language when the asked one is missing), for both forms of the file;
// the reset mail names the game in the player's language; a bad shape is refused by name,
// by `manette apply` and by parseGameConfig, in both locales.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from './support/harness.js';
import { runManetteJson } from './support/manette-cli.js';
import { startMailCatcher, type CaughtMail, type MailCatcher } from '../twin/mail/catcher.js';
import { parseGameConfig } from '../api/config/game-config.js';
import { newApiKey } from '../api/security/tokens.js';

/** Every text per language (or in one language only: the other falls back to it). */
const PER_LANGUAGE = {
  jeu: 'textes-langues', nom: { fr: 'Démo', en: 'Demo' },
  monnaies: {
    or: { nom: { fr: 'Or', en: 'Gold' }, depart: 100 },
    gemmes: { nom: { en: 'Gems' } },
    pieces: { nom: 'Pièces' },
  },
  objets: {
    couronne: { nom: { fr: 'Couronne', en: 'Crown' }, empilable: false },
    potion: { nom: 'Potion' },
  },
  boutique: [
    { code: 'couronne', nom: { fr: 'Couronne', en: 'Crown' }, description: { fr: 'Pour régner.', en: 'To rule.' },
      prix: 10, devise: 'or', contenu: { objets: { couronne: 1 } } },
    { code: 'potion', nom: 'Potion', description: 'Une fiole.', prix: 5, devise: 'or', contenu: { objets: { potion: 1 } } },
    { code: 'bouclier', nom: { fr: 'Bouclier' }, description: { en: 'Blocks.' }, prix: 1, devise: 'or' },
  ],
  panel: { textes: { connexion_titre: { fr: 'Morpion', en: 'Tic-tac-toe' }, connexion_bouton: 'Entrer', matchmaking_titre: { en: 'Find a game' } } },
};

/** The same game with one string per text, as every file was written before. */
const STRINGS = {
  ...PER_LANGUAGE, jeu: 'textes-chaines', nom: 'Démo',
  monnaies: { or: { nom: 'Or', depart: 100 }, gemmes: { nom: 'Gemmes' }, pieces: { nom: 'Pièces' } },
  objets: { couronne: { nom: 'Couronne', empilable: false }, potion: { nom: 'Potion' } },
  boutique: [
    { code: 'couronne', nom: 'Couronne', description: 'Pour régner.', prix: 10, devise: 'or', contenu: { objets: { couronne: 1 } } },
    { code: 'potion', nom: 'Potion', description: 'Une fiole.', prix: 5, devise: 'or', contenu: { objets: { potion: 1 } } },
    { code: 'bouclier', nom: 'Bouclier', prix: 1, devise: 'or' },
  ],
  panel: { textes: { connexion_titre: 'Morpion', connexion_bouton: 'Entrer' } },
};

let app: TestApp;
let catcher: MailCatcher;
let perLanguage: ReturnType<typeof client>;
let strings: ReturnType<typeof client>;

/** Accept-Language values and the language each one gets. */
const HEADERS: [string | undefined, 'fr' | 'en'][] = [
  ['en', 'en'], ['en-US,en;q=0.9', 'en'], ['fr', 'fr'], ['fr-FR,fr;q=0.9,en;q=0.8', 'fr'], ['de', 'fr'], [undefined, 'fr'],
];
const lang = (l: string | undefined) => (l === undefined ? {} : { headers: { 'accept-language': l } });

beforeAll(async () => {
  catcher = await startMailCatcher();
  app = await startTestApp({ MANETTE_SMTP_URL: catcher.url });
  perLanguage = client(app.baseUrl, await app.applyGame(PER_LANGUAGE));
  strings = client(app.baseUrl, await app.applyGame(STRINGS));
}, 120_000);
afterAll(async () => {
  await app?.close();
  await catcher?.stop();
});

let counter = 0;
async function player(via: ReturnType<typeof client>) {
  const pseudo = `texte_${++counter}_${Math.random().toString(36).slice(2, 7)}`;
  const r = await via.register(pseudo);
  return { token: r.token, email: `${pseudo}@example.test` };
}

const names = (rows: { code: string; nom: string }[]) => Object.fromEntries(rows.map((r) => [r.code, r.nom]));

describe('a game file with texts per language', () => {
  it('GET /shop/articles: nom and description in the request\'s language, the other one when missing, sorted by that nom', async () => {
    const expected = {
      fr: [['couronne', 'Couronne', 'Pour régner.'], ['bouclier', 'Bouclier', 'Blocks.'], ['potion', 'Potion', 'Une fiole.']],
      en: [['bouclier', 'Bouclier', 'Blocks.'], ['couronne', 'Crown', 'To rule.'], ['potion', 'Potion', 'Une fiole.']],
    };
    for (const [header, l] of HEADERS) {
      const r = await perLanguage.get('/shop/articles', lang(header));
      expect(r.status).toBe(200);
      // Sorted by ordre (all 0), then by the name the player reads.
      expect(r.body.data.map((a: any) => [a.code, a.nom, a.description]), `Accept-Language: ${header}`)
        .toEqual([...expected[l]].sort((a, b) => a[1]!.localeCompare(b[1]!, l)));
      for (const a of r.body.data) {
        expect(typeof a.nom).toBe('string');
        expect(typeof a.description).toBe('string');
        // The currency's name, for a shop that has no wallet to name it from (signed out).
        expect(a.devise_nom).toBe(l === 'en' ? 'Gold' : 'Or');
      }
    }
  });

  it('wallet, purchase, inventory, use and export: names in the request\'s language', async () => {
    const p = await player(perLanguage);
    const wallet = { fr: { or: 'Or', gemmes: 'Gems', pieces: 'Pièces' }, en: { or: 'Gold', gemmes: 'Gems', pieces: 'Pièces' } };
    for (const [header, l] of HEADERS) {
      const r = await perLanguage.get('/economie/portefeuille', { ...lang(header), token: p.token });
      expect(r.status).toBe(200);
      expect(names(r.body.data)).toEqual(wallet[l]);
    }
    // A purchase answers the wallet and the inventory as the player reads them.
    const en = await perLanguage.post('/shop/acheter', { code: 'couronne' }, { token: p.token, headers: { 'accept-language': 'en', 'idempotency-key': 'texte-achat-1' } });
    expect(en.status, JSON.stringify(en.body)).toBe(200);
    expect(names(en.body.data.portefeuille)).toEqual(wallet.en);
    expect(names(en.body.data.inventaire)).toEqual({ couronne: 'Crown' });
    const fr = await perLanguage.post('/shop/acheter', { code: 'potion', quantite: 2 }, { token: p.token, headers: { 'accept-language': 'fr' } });
    expect(fr.status, JSON.stringify(fr.body)).toBe(200);
    expect(names(fr.body.data.portefeuille)).toEqual(wallet.fr);
    expect(names(fr.body.data.inventaire)).toEqual({ couronne: 'Couronne', potion: 'Potion' });
    // The Idempotency-Key replay gives the stored answer (the first request's language).
    const replay = await perLanguage.post('/shop/acheter', { code: 'couronne' }, { token: p.token, headers: { 'accept-language': 'fr', 'idempotency-key': 'texte-achat-1' } });
    expect(replay.body).toEqual(en.body);

    for (const [header, l] of HEADERS) {
      const inv = await perLanguage.get('/economie/inventaire', { ...lang(header), token: p.token });
      expect(names(inv.body.data)).toEqual({ couronne: l === 'en' ? 'Crown' : 'Couronne', potion: 'Potion' });
    }
    const used = await perLanguage.post('/economie/utiliser', { objet: 'potion', quantite: 1 }, { token: p.token, headers: { 'accept-language': 'en' } });
    expect(used.status, JSON.stringify(used.body)).toBe(200);
    expect(names(used.body.data.inventaire)).toEqual({ couronne: 'Crown', potion: 'Potion' });

    const exported = await perLanguage.get('/players/me/export', { token: p.token, headers: { 'accept-language': 'en' } });
    expect(exported.status).toBe(200);
    const data = JSON.stringify(exported.body);
    expect(data).toContain('"nom":"Gold"');
    expect(data).toContain('"nom":"Crown"');
    expect(data).not.toContain('"nom":"Or"');
  });

  it('GET /panel: the game\'s texts in the request\'s language over the defaults', async () => {
    for (const [header, l] of HEADERS) {
      const textes = (await perLanguage.get('/panel', lang(header))).body.data.textes;
      expect(textes.connexion_titre).toBe(l === 'en' ? 'Tic-tac-toe' : 'Morpion');
      expect(textes.connexion_bouton).toBe('Entrer');
      // Given in English only: the French player gets the English one, not the default.
      expect(textes.matchmaking_titre).toBe('Find a game');
      expect(textes.connexion_identifiant).toBe(l === 'en' ? 'Username or email' : 'Pseudo ou e-mail');
      expect(Object.values(textes).every((v) => typeof v === 'string')).toBe(true);
    }
  });

  it('the reset mail names the game in the player\'s language', async () => {
    for (const l of ['en', 'fr'] as const) {
      const p = await player(perLanguage);
      const before = new Set(catcher.messages());
      const r = await perLanguage.post('/players/mot-de-passe/oubli', { email: p.email }, { headers: { 'accept-language': l } });
      expect(r.status).toBe(200);
      const mail: CaughtMail = await catcher.waitFor((m) => !before.has(m) && m.envelopeTo.includes(p.email.toLowerCase()));
      expect(mail.subject).toContain(l === 'en' ? 'Demo' : 'Démo');
      expect(mail.subject).not.toContain(l === 'en' ? 'Démo' : 'Demo');
    }
  });

  it('the console and the admin tooling keep one text: the French one, else the English one', async () => {
    const rows = await app.sql<{ code: string; name: string; names: unknown }>(
      `select c.code, c.name, c.names from manette.currencies c join manette.games g on g.id = c.game_id
       where g.slug = 'textes-langues' order by c.code`);
    expect(rows).toEqual([
      { code: 'gemmes', name: 'Gems', names: { en: 'Gems' } },
      { code: 'or', name: 'Or', names: { fr: 'Or', en: 'Gold' } },
      { code: 'pieces', name: 'Pièces', names: null },
    ]);
    expect((await app.sql(`select name from manette.games where slug = 'textes-langues'`))[0]!.name).toBe('Démo');
  });
});

describe('a game file with one string per text (as before)', () => {
  it('answers the same strings whatever the language', async () => {
    const p = await player(strings);
    for (const [header] of HEADERS) {
      const articles = (await strings.get('/shop/articles', lang(header))).body.data;
      expect(articles.map((a: any) => [a.nom, a.description, a.devise_nom])).toEqual([
        ['Bouclier', null, 'Or'], ['Couronne', 'Pour régner.', 'Or'], ['Potion', 'Une fiole.', 'Or']]);
      const wallet = (await strings.get('/economie/portefeuille', { ...lang(header), token: p.token })).body.data;
      expect(names(wallet)).toEqual({ or: 'Or', gemmes: 'Gemmes', pieces: 'Pièces' });
      const textes = (await strings.get('/panel', lang(header))).body.data.textes;
      expect([textes.connexion_titre, textes.connexion_bouton]).toEqual(['Morpion', 'Entrer']);
    }
    const bought = await strings.post('/shop/acheter', { code: 'couronne' }, { token: p.token, headers: { 'accept-language': 'en' } });
    expect(names(bought.body.data.inventaire)).toEqual({ couronne: 'Couronne' });
  });

  it('a file moving from one form to the other changes the answers, and back', async () => {
    const jeu = 'textes-bascule';
    const key = await app.applyGame({ ...STRINGS, jeu });
    const via = client(app.baseUrl, key);
    const crown = async (l: string) => (await via.get('/shop/articles', lang(l))).body.data.find((a: any) => a.code === 'couronne');
    expect((await crown('en')).nom).toBe('Couronne');
    await app.applyGame({ ...PER_LANGUAGE, jeu });
    expect(await crown('en')).toMatchObject({ nom: 'Crown', description: 'To rule.' });
    expect(await crown('fr')).toMatchObject({ nom: 'Couronne', description: 'Pour régner.' });
    await app.applyGame({ ...STRINGS, jeu });
    expect(await crown('en')).toMatchObject({ nom: 'Couronne', description: 'Pour régner.' });
    const stored = await app.sql(`select s.names, s.descriptions from manette.shop_articles s join manette.games g on g.id = s.game_id
      where g.slug = $1 and s.code = 'couronne'`, [jeu]);
    expect(stored).toEqual([{ names: null, descriptions: null }]);
  });
});

describe('a bad text is refused by name', () => {
  const bad = {
    jeu: 'textes-mauvais', nom: { fr: 'Démo', de: 'Demo' },
    monnaies: { or: { nom: { fr: 5 } } },
    objets: { potion: { nom: {} } },
    boutique: [{ code: 'x', nom: ['X'], description: { en: 'ok' }, prix: 1, devise: 'or' }],
    panel: { textes: { connexion_titre: { en: '' }, connexion_bouton: 3 } },
  };
  const EN = [
    'nom: Unrecognized key: "de"',
    'monnaies.or.nom.fr: Invalid input: expected string, received number',
    'objets.potion.nom: at least one language: fr or en',
    'boutique.0.nom: text expected: a string, or an object per language {"fr": "…", "en": "…"}',
    'panel.textes.connexion_bouton: text expected: a string, or an object per language {"fr": "…", "en": "…"}',
  ];

  it('by manette apply, in the locale, and nothing is written', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'manette-textes-'));
    const file = path.join(dir, 'game.json');
    await writeFile(file, JSON.stringify(bad, null, 2));
    const en = await runManetteJson(['apply', file], app.databaseUrl, 'en_US.UTF-8');
    expect(en.code).toBe(1);
    expect(en.body).toMatchObject({ ok: false, error: 'invalid_game_file' });
    for (const line of EN) expect(en.body.message).toContain(`  ${line}`);
    // An empty English text where a panel text may be empty is accepted: only the shapes above.
    expect(en.body.message).not.toContain('panel.textes.connexion_titre');
    const fr = await runManetteJson(['apply', file], app.databaseUrl, 'fr_FR.UTF-8');
    expect(fr.code).toBe(1);
    expect(fr.body.message).toContain('  objets.potion.nom: au moins une langue : fr ou en');
    expect(fr.body.message).toContain('  boutique.0.nom: texte attendu : une chaîne, ou un objet par langue {"fr": "…", "en": "…"}');
    expect(fr.body.message).toContain('  monnaies.or.nom.fr: ');
    expect(await app.sql(`select 1 from manette.games where slug = 'textes-mauvais'`)).toEqual([]);
  });

  it('by parseGameConfig, per field; both good forms parse as written', () => {
    const r = parseGameConfig(bad, 'en');
    expect(r.ok).toBe(false);
    if (!r.ok) for (const line of EN.slice(2)) expect(r.error).toContain(`  ${line}`);
    const tooLong = parseGameConfig({ jeu: 'x', nom: { fr: 'a'.repeat(201) } }, 'fr');
    expect(!tooLong.ok && tooLong.error).toMatch(/^ {2}nom\.fr: /m);
    const emptyName = parseGameConfig({ jeu: 'x', nom: { en: '' } }, 'fr');
    expect(!emptyName.ok && emptyName.error).toMatch(/^ {2}nom\.en: /m);
    for (const good of [PER_LANGUAGE, STRINGS]) {
      const parsed = parseGameConfig(good);
      expect(parsed.ok).toBe(true);
      if (parsed.ok) {
        expect(parsed.config.nom).toEqual(good.nom);
        expect(parsed.config.monnaies).toEqual(good.monnaies);
        expect(parsed.config.panel.textes).toEqual(good.panel.textes);
      }
    }
  });

  it('by the database too, for a file applied without the CLI', async () => {
    const db = new pg.Client({ connectionString: app.databaseUrl });
    await db.connect();
    try {
      await db.query('set role manette_admin');
      const apply = (config: unknown) => db.query('select manette_admin.apply_game($1::jsonb, $2)', [JSON.stringify(config), newApiKey()]);
      await expect(apply({ ...STRINGS, jeu: 'textes-sql-a', nom: { de: 'X' } })).rejects.toThrow(/^nom : texte invalide/);
      await expect(apply({ ...STRINGS, jeu: 'textes-sql-b', monnaies: { or: { nom: { fr: 5 } } } })).rejects.toThrow(/^monnaies\.or : monnaie invalide/);
      await expect(apply({ ...STRINGS, jeu: 'textes-sql-c', objets: { potion: { nom: {} } } })).rejects.toThrow(/^objets\.potion : objet invalide/);
      await expect(apply({ ...STRINGS, jeu: 'textes-sql-d', boutique: [{ code: 'x', nom: 'X', description: { en: 3 }, prix: 1, devise: 'or' }] }))
        .rejects.toThrow(/^boutique\.0\.description: texte invalide/);
      await expect(apply({ ...STRINGS, jeu: 'textes-sql-e', boutique: [{ code: 'x', nom: { fr: 'X', de: 'Y' }, prix: 1, devise: 'or' }] }))
        .rejects.toThrow(/^boutique\.0\.nom: texte invalide/);
      // The good forms go through.
      expect((await apply({ ...PER_LANGUAGE, jeu: 'textes-sql-f' })).rows[0].apply_game.ok).toBe(true);
    } finally {
      await db.end();
    }
  });
});
