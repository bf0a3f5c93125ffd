// The console's Tables and Leaderboards pages (docs/console.md): against the real façade,
// the real console server and the real `manette` CLI on one database. Imports through the
// console give what `manette import` gives on a twin game (append, --replace, --cle); an
// edited row is what a player then reads; a refused edit says what the API says for the
// same donnees; deletes and retires are audited with avant / apres; the console's top and
// ranks are the API's. Then Chromium: the pages on real data, the refused edit's message
// by its field, screenshots (docs/img with UPDATE_SCREENSHOTS=1).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from './support/harness.js';
import { startTestConsole, type TestConsole } from './support/console.js';
import { haveBrowser, launchBrowser, SCREENSHOT_DIR, warnIfNoBrowser } from './support/browser.js';
import { runManetteJson } from './support/manette-cli.js';

const COLUMNS = { nom: { type: 'text', requis: true }, prix: { type: 'integer' }, rare: { type: 'boolean' }, meta: { type: 'json' } };
const gameFile = (jeu: string, nom: string) => ({
  jeu, nom,
  tables: {
    catalogue: { colonnes: COLUMNS, lecture: 'public', ecriture: 'serveur' },
    notes: { colonnes: COLUMNS, lecture: 'public', ecriture: 'joueurs' },
  },
  classements: { score: { nom: 'Meilleur score' }, jour: { reinitialisation: 'quotidienne', operateur: 'somme' } },
});

let app: TestApp;
let con: TestConsole;
let session: Awaited<ReturnType<TestConsole['session']>>;
let dir: string;
let key: string;
let twinKey: string;

type Row = { id: string; joueur_id: string | null; donnees: Record<string, unknown>; cree_le: string; maj_le: string };
type Envelope<T = any> = { status: number; body: { ok: boolean; data: T; error?: string; message?: string; details?: { champ: string; message: string }[] } };

/** A console call with the session (cookie, CSRF) in `lang`. */
async function consoleCall<T = any>(method: string, p: string, body?: unknown, lang: 'en' | 'fr' = 'en'): Promise<Envelope<T>> {
  const res = await session.fetch(`/api${p}`, { method, headers: { 'x-console-lang': lang }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: res.status, body: await res.json() as Envelope<T>['body'] };
}
const listed = async (k: string, table = 'catalogue') =>
  ((await client(app.baseUrl, k).get(`/tables/${table}?limit=200`)).body.data as Row[]);
const donneesOf = async (k: string) => (await listed(k)).map((r) => r.donnees);
const audit = async (jeu: string) => (await app.sql<{ command: string; details: any; operator: string }>(`select a.command, a.details, a.operator
  from manette.admin_audit a join manette.games g on g.id = a.game_id where g.slug = $1 order by a.id`, [jeu]));

let n = 0;
async function file(content: string, ext = 'csv'): Promise<string> {
  const f = path.join(dir, `f${++n}.${ext}`);
  await writeFile(f, content);
  return f;
}

beforeAll(async () => {
  app = await startTestApp();
  dir = await mkdtemp(path.join(tmpdir(), 'manette-console-tables-'));
  key = await app.applyGame(gameFile('ctl', 'Château'));
  twinKey = await app.applyGame(gameFile('ctl-cli', 'Jumeau'));
  con = await startTestConsole({ databaseUrl: app.databaseUrl });
  session = await con.session();
});
afterAll(async () => {
  await con?.close();
  await app?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('import', () => {
  const steps: { what: string; csv: string; mode: 'ajout' | 'replace' | 'cle'; flags: string[] }[] = [
    { what: 'append', csv: 'nom,prix,rare,meta\nÉpée,120,true,"{""niveau"": 2}"\nArc,95,false,\n"Bouclier, lourd",80,,[1]\n', mode: 'ajout', flags: [] },
    { what: 'append again', csv: 'nom,prix\nPotion,5\n', mode: 'ajout', flags: [] },
    { what: 'replace', csv: 'nom,prix,rare\nÉpée,120,TRUE\nArc,95,false\nHache,40,\n', mode: 'replace', flags: ['--replace'] },
    { what: 'key upsert', csv: 'nom,prix\nArc,99\nMasse,60\n', mode: 'cle', flags: ['--cle', 'nom'] },
  ];
  it.each(steps)('$what: the console’s CSV import gives what `manette import` gives', async ({ csv, mode, flags }) => {
    const before = (await audit('ctl')).length;
    const byConsole = await consoleCall('POST', '/games/ctl/tables/catalogue/import', { format: 'csv', contenu: csv, mode, ...(mode === 'cle' ? { cle: 'nom' } : {}) });
    const byCli = await runManetteJson(['import', 'ctl-cli', 'catalogue', await file(csv), ...flags], app.databaseUrl, 'en_US.UTF-8');
    expect(byCli.code, byCli.stderr).toBe(0);
    expect(byConsole.status).toBe(200);
    const { ids: _a, jeu: _j, ...counts } = byConsole.body.data;
    const { ids: _b, jeu: _k, ...cliCounts } = byCli.body.data;
    expect(counts).toEqual(cliCounts);
    expect(await donneesOf(key)).toEqual(await donneesOf(twinKey));
    // One audit row, the CLI's, by the console's operator.
    const [console1, ...more] = (await audit('ctl')).slice(before);
    expect(more).toEqual([]);
    expect(console1!.operator).toMatch(/ \(console\)$/);
    expect({ command: console1!.command, ...console1!.details }).toEqual({ command: 'import', ...(await audit('ctl-cli')).at(-1)!.details });
  });

  it('the end state is the file’s rows, updated by key', async () => {
    expect(await donneesOf(key)).toEqual([
      { nom: 'Épée', prix: 120, rare: true }, { nom: 'Arc', prix: 99 }, { nom: 'Hache', prix: 40 }, { nom: 'Masse', prix: 60 }]);
  });

  it('a bad row: the CLI’s details, nothing written; a JSON file too', async () => {
    const before = await listed(key);
    const bad = 'nom,prix\nHache,10\n,lourd\n';
    const byConsole = await consoleCall('POST', '/games/ctl/tables/catalogue/import', { format: 'csv', contenu: bad, mode: 'replace' });
    const byCli = await runManetteJson(['import', 'ctl-cli', 'catalogue', await file(bad), '--replace'], app.databaseUrl, 'en_US.UTF-8');
    expect(byConsole.status).toBe(400);
    expect(byConsole.body).toEqual(byCli.body);
    expect(byConsole.body.details).toEqual([
      { champ: 'lignes[3].donnees.prix', message: 'integer expected' }, { champ: 'lignes[3].donnees.nom', message: 'required column missing' }]);
    expect(await listed(key)).toEqual(before);

    const json = await consoleCall('POST', '/games/ctl/tables/catalogue/import', { format: 'json', contenu: '[{"nom": "Dague", "prix": 7}]', mode: 'ajout' }, 'fr');
    expect(json.body.data).toMatchObject({ importees: 1, inserees: 1 });
  });

  it('a text that is not a CSV or JSON file: invalid_input, with the CLI’s wording; a bad mode: validation_failed', async () => {
    const before = await listed(key);
    const dup = await consoleCall('POST', '/games/ctl/tables/catalogue/import', { format: 'csv', contenu: 'nom,nom\na,b\n', mode: 'ajout', nom: 'prix.csv' });
    expect(dup).toEqual({ status: 400, body: { ok: false, error: 'invalid_input', message: 'prix.csv: column "nom" appears twice in the header' } });
    const notJson = await consoleCall('POST', '/games/ctl/tables/catalogue/import', { format: 'json', contenu: '{"nom": 1}', mode: 'ajout' }, 'fr');
    expect(notJson.body).toMatchObject({ error: 'invalid_input', message: 'JSON : un tableau JSON d’objets est attendu' });
    const noKey = await consoleCall('POST', '/games/ctl/tables/catalogue/import', { format: 'csv', contenu: 'nom\na\n', mode: 'cle' });
    expect([noKey.status, noKey.body.error, noKey.body.details?.[0]?.champ]).toEqual([400, 'validation_failed', 'cle']);
    expect(await listed(key)).toEqual(before);
  });
});

describe('rows', () => {
  let alice: { token: string; data: { joueur: { id: string } } };
  beforeAll(async () => {
    alice = await client(app.baseUrl, key).register('Alice');
  });

  it('are listed with the API’s filters: the same rows as GET /tables', async () => {
    for (const q of ['prix=120', 'rare=true', 'prix=40&nom=Hache', 'nom=Personne']) {
      const c = await consoleCall<{ lignes: Row[] }>('GET', `/games/ctl/tables/catalogue/rows?${q}`);
      const a = await client(app.baseUrl, key).get(`/tables/catalogue?${q}`);
      expect(c.body.data.lignes.map((r) => r.id), q).toEqual(a.body.data.map((r: Row) => r.id));
    }
    const bad = await consoleCall('GET', '/games/ctl/tables/catalogue/rows?prix=cher&zut=1');
    const api = await client(app.baseUrl, key).get('/tables/catalogue?prix=cher&zut=1', { headers: { 'accept-language': 'en' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual(api.body);
    const tables = await consoleCall('GET', '/games/ctl/tables');
    expect(tables.body.data.map((t: any) => [t.nom, t.ecriture, t.lignes])).toEqual([['catalogue', 'serveur', 5], ['notes', 'joueurs', 0]]);
  });

  it('an edit is what a player then reads, audited with avant and apres', async () => {
    const [arc] = (await listed(key)).filter((r) => r.donnees.nom === 'Arc');
    const before = (await audit('ctl')).length;
    const r = await consoleCall<Row>('PATCH', `/games/ctl/tables/catalogue/rows/${arc!.id}`, { donnees: { prix: 101, rare: true, meta: { x: 1 } } });
    expect(r.status).toBe(200);
    const read = await client(app.baseUrl, key).get(`/tables/catalogue/${arc!.id}`, { token: alice.token });
    expect(read.body.data).toEqual(r.body.data);
    expect(read.body.data.donnees).toEqual({ nom: 'Arc', prix: 101, rare: true, meta: { x: 1 } });
    const rows = (await audit('ctl')).slice(before);
    expect(rows).toEqual([{ command: 'row update', operator: expect.stringMatching(/ \(console\)$/),
      details: { table: 'catalogue', id: arc!.id, avant: { nom: 'Arc', prix: 99 }, apres: { nom: 'Arc', prix: 101, rare: true, meta: { x: 1 } } } }]);
  });

  it('a refused edit says what the API says for the same donnees, by field; nothing changes', async () => {
    const note = await client(app.baseUrl, key).post('/tables/notes', { donnees: { nom: 'à moi', prix: 1 } }, { token: alice.token });
    expect(note.status).toBe(201);
    const [arc] = (await listed(key)).filter((r) => r.donnees.nom === 'Arc');
    const before = { rows: await listed(key), audit: (await audit('ctl')).length };
    const bad = { nom: null, prix: 'cher', rare: 'oui', autre: 1 };
    for (const lang of ['en', 'fr'] as const) {
      const c = await consoleCall('PATCH', `/games/ctl/tables/catalogue/rows/${arc!.id}`, { donnees: bad }, lang);
      const a = await client(app.baseUrl, key).request('PATCH', `/tables/notes/${note.body.data.id}`,
        { body: { donnees: bad }, token: alice.token, headers: { 'accept-language': lang } });
      expect(c.status).toBe(400);
      expect(c.body).toEqual(a.body);
      expect(c.body.details).toContainEqual(lang === 'en'
        ? { champ: 'donnees.prix', message: 'integer expected' } : { champ: 'donnees.prix', message: 'entier attendu' });
    }
    expect(await listed(key)).toEqual(before.rows);
    expect((await audit('ctl')).length).toBe(before.audit);
  });

  it('a players’ table is theirs: no edit, no delete; another game’s row is not found', async () => {
    const [note] = await listed(key, 'notes');
    const edit = await consoleCall('PATCH', `/games/ctl/tables/notes/rows/${note!.id}`, { donnees: { prix: 2 } });
    expect([edit.status, edit.body.error]).toEqual([403, 'forbidden']);
    expect(edit.body.message).toMatch(/ecriture: serveur tables only/);
    const del = await consoleCall('DELETE', `/games/ctl/tables/notes/rows/${note!.id}`);
    expect([del.status, del.body.error]).toEqual([403, 'forbidden']);
    const [twinRow] = await listed(twinKey);
    const other = await consoleCall('PATCH', `/games/ctl/tables/catalogue/rows/${twinRow!.id}`, { donnees: { prix: 2 } });
    expect([other.status, other.body.error]).toEqual([404, 'row_not_found']);
    expect(await listed(key, 'notes')).toEqual([note]);
  });

  it('a row added and deleted: audited, gone for the API', async () => {
    const added = await consoleCall<Row>('POST', '/games/ctl/tables/catalogue/rows', { donnees: { nom: 'Lance', prix: 70 } });
    expect(added.status).toBe(200);
    expect((await client(app.baseUrl, key).get(`/tables/catalogue/${added.body.data.id}`)).body.data.donnees).toEqual({ nom: 'Lance', prix: 70 });
    const del = await consoleCall('DELETE', `/games/ctl/tables/catalogue/rows/${added.body.data.id}`);
    expect(del.body.data).toEqual({ jeu: 'ctl', table: 'catalogue', supprimees: 1, ids: [added.body.data.id] });
    expect((await client(app.baseUrl, key).get(`/tables/catalogue/${added.body.data.id}`)).status).toBe(404);
    expect((await audit('ctl')).slice(-2).map((a) => ({ command: a.command, ...a.details }))).toEqual([
      { command: 'row insert', table: 'catalogue', id: added.body.data.id, avant: null, apres: { nom: 'Lance', prix: 70 } },
      { command: 'rows delete', table: 'catalogue', mode: 'id', supprimees: 1, ids: [added.body.data.id],
        avant: [{ id: added.body.data.id, donnees: { nom: 'Lance', prix: 70 } }], apres: null },
    ]);
    const again = await consoleCall('DELETE', `/games/ctl/tables/catalogue/rows/${added.body.data.id}`);
    expect([again.status, again.body.error]).toEqual([404, 'row_not_found']);
  });
});

describe('leaderboards', () => {
  const players: Record<string, { token: string; id: string }> = {};
  beforeAll(async () => {
    const api = client(app.baseUrl, key);
    for (const [pseudo, v] of [['Bruno', 30], ['Chloe', 20], ['Dora', 20], ['Emile', 10], ['Fanny', 5]] as const) {
      const r = await api.register(pseudo);
      players[pseudo] = { token: r.token, id: r.data.joueur.id };
      expect((await api.post('/leaderboards/score/submit', { valeur: v }, { token: r.token })).status).toBe(200);
      expect((await api.post('/leaderboards/jour/submit', { valeur: v }, { token: r.token })).status).toBe(200);
    }
  });

  it('the boards, their config and entries', async () => {
    const r = await consoleCall('GET', '/games/ctl/leaderboards');
    expect(r.body.data.map((b: any) => [b.id, b.nom, b.reinitialisation, b.entrees])).toEqual([
      ['jour', null, 'quotidienne', 5], ['score', 'Meilleur score', 'aucune', 5]]);
  });

  it('the top and a player’s rank are the API’s', async () => {
    const api = await client(app.baseUrl, key).get('/leaderboards/score/scores?limit=10');
    const top = await consoleCall('GET', '/games/ctl/leaderboards/score?limit=10');
    expect(top.body.data.lignes).toEqual(api.body.data);
    expect(top.body.data.lignes.map((e: any) => e.rang)).toEqual([1, 2, 2, 4, 5]);
    const page = await consoleCall('GET', '/games/ctl/leaderboards/score?limit=2&offset=2');
    expect(page.body.data.lignes).toEqual((await client(app.baseUrl, key).get('/leaderboards/score/scores?limit=2&offset=2')).body.data);
    expect(page.body.data.plus).toBe(true);
    for (const who of ['Dora', players.Dora!.id]) {
      const r = await consoleCall('GET', `/games/ctl/leaderboards/score?joueur=${encodeURIComponent(who)}`);
      const mine = (await client(app.baseUrl, key).get('/leaderboards/score/scores?autour=moi&limit=1', { token: players.Dora!.token })).body.data[0];
      expect(r.body.data.joueur).toEqual({ ...mine, joueur_id: players.Dora!.id });
    }
    const daily = await consoleCall('GET', '/games/ctl/leaderboards/jour');
    expect(daily.body.data.periodes).toEqual([{ periode: daily.body.data.periode, entrees: 5, courante: true }]);
    expect(daily.body.data.periode).toBe(`${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`);
    const unknown = await consoleCall('GET', '/games/ctl/leaderboards/score?joueur=Personne');
    expect([unknown.status, unknown.body.error]).toEqual([404, 'player_not_found']);
  });

  it('retire removes the score: the API no longer lists it, the others move up, audited', async () => {
    const r = await consoleCall('POST', '/games/ctl/leaderboards/score/retire', { joueur_id: players.Chloe!.id });
    expect(r.body.data).toMatchObject({ classement: 'score', pseudo: 'Chloe', periode: null, avant: { valeur: 20, rang: 2 } });
    const api = (await client(app.baseUrl, key).get('/leaderboards/score/scores?limit=10')).body.data;
    expect(api.map((e: any) => [e.pseudo, e.rang])).toEqual([['Bruno', 1], ['Dora', 2], ['Emile', 3], ['Fanny', 4]]);
    const [last] = (await audit('ctl')).slice(-1);
    expect(last).toEqual({ command: 'leaderboard retire', operator: expect.stringMatching(/ \(console\)$/),
      details: { classement: 'score', joueur_id: players.Chloe!.id, pseudo: 'Chloe', periode: null, avant: { valeur: 20, rang: 2 }, apres: null } });
    const again = await consoleCall('POST', '/games/ctl/leaderboards/score/retire', { joueur_id: players.Chloe!.id });
    expect(again).toEqual({ status: 404, body: { ok: false, error: 'score_not_found', message: 'This player has no score on this leaderboard for this period.' } });
    // Another game's board or player: not found, nothing written.
    const n0 = (await audit('ctl')).length;
    const twinPlayer = (await client(app.baseUrl, twinKey).register('Zoe')).data.joueur.id;
    expect((await consoleCall('POST', '/games/ctl/leaderboards/score/retire', { joueur_id: twinPlayer })).body.error).toBe('player_not_found');
    expect((await consoleCall('POST', '/games/ctl/leaderboards/nope/retire', { joueur_id: players.Bruno!.id })).body.error).toBe('leaderboard_not_found');
    expect((await audit('ctl')).length).toBe(n0);
  });
});

describe.skipIf(!haveBrowser)('the pages', () => {
  warnIfNoBrowser('test/console-tables-leaderboards.test.ts');
  let browser: Browser;
  beforeAll(async () => { browser = await launchBrowser(); });
  afterAll(async () => { await browser?.close(); });

  const sizes = [{ width: 1280, height: 800, tag: '' }, { width: 768, height: 1024, tag: '-768' }];
  const langs = ['en', 'fr'] as const;
  /** Signed in, on the first game's overview (where the shell lands), then at `hash`: a hash
   *  given to con.open may be overtaken by the shell's landing when the page boots slowly. */
  async function open(hash: string, lang: 'en' | 'fr', width: number, height: number): Promise<Page> {
    const context = await browser.newContext({ viewport: { width, height } });
    const page = await con.open(context, '', lang);
    await page.waitForFunction(() => /^#\/[^/]+\/overview$/.test(location.hash));
    await page.evaluate((h) => { location.hash = h; }, hash);
    return page;
  }
  const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });

  it('tables: the list, a table’s rows, filters', async () => {
    for (const { width, height, tag } of sizes) {
      for (const lang of langs) {
        const suffix = `${tag}${lang === 'fr' ? '-fr' : ''}`;
        const page = await open('#/ctl/tables', lang, width, height);
        await page.locator('td a', { hasText: 'catalogue' }).waitFor();
        expect(await page.locator('tbody tr').count()).toBe(2);
        await shot(page, `console-tables${suffix}`);
        await page.locator('td a', { hasText: 'catalogue' }).click();
        await page.locator('td', { hasText: 'Hache' }).waitFor();
        expect(await page.locator('tbody tr').count()).toBe(5);
        await shot(page, `console-table-rows${suffix}`);
        await page.locator('form.filters input').nth(1).fill('120'); // meta (json) has no filter: nom, prix, rare
        await page.locator('form.filters button[type=submit]').click();
        await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1);
        expect(await page.locator('tbody tr').first().textContent()).toContain('Épée');
        await page.context().close();
      }
    }
  });

  it('a refused edit shows the API’s message by the field', async () => {
    for (const { width, height, tag } of sizes) {
      for (const lang of langs) {
        const page = await open('#/ctl/tables/catalogue', lang, width, height);
        const row = page.locator('tbody tr', { hasText: 'Hache' });
        await row.getByRole('button', { name: lang === 'en' ? 'Edit' : 'Modifier' }).click();
        await page.locator('#col-prix').fill('cher');
        await page.locator('#col-nom').fill('');
        await page.locator('.row-form button[type=submit]').click();
        const prix = page.locator('#col-prix-error');
        await prix.waitFor();
        expect(await prix.textContent()).toBe(lang === 'en' ? 'integer expected' : 'entier attendu');
        expect(await page.locator('#col-nom-error').textContent()).toBe(lang === 'en' ? 'required column: null is not allowed' : 'colonne obligatoire : null interdit');
        expect(await page.locator('.row-form .error strong').textContent()).toBe(lang === 'en' ? 'Some fields are invalid.' : 'Certains champs sont invalides.');
        expect(await page.locator('#col-prix').getAttribute('aria-invalid')).toBe('true');
        await page.locator('.edit-card').scrollIntoViewIfNeeded();
        await shot(page, `console-table-edit-refused${tag}${lang === 'fr' ? '-fr' : ''}`);
        await page.context().close();
      }
    }
    expect((await listed(key)).find((r) => r.donnees.nom === 'Hache')!.donnees).toEqual({ nom: 'Hache', prix: 40 });
  });

  it('an edit saved in the page is what the API serves', async () => {
    const page = await open('#/ctl/tables/catalogue', 'en', 1280, 800);
    await page.locator('tbody tr', { hasText: 'Masse' }).getByRole('button', { name: 'Edit' }).click();
    await page.locator('#col-prix').fill('65');
    await page.locator('#col-rare').selectOption('true');
    await page.locator('.row-form button[type=submit]').click();
    await page.locator('.edit-card').waitFor({ state: 'detached' });
    await page.locator('tbody td', { hasText: '65' }).waitFor();
    await page.context().close();
    expect((await listed(key)).find((r) => r.donnees.nom === 'Masse')!.donnees).toEqual({ nom: 'Masse', prix: 65, rare: true });
  });

  it('leaderboards: the list, a board’s top, a player’s rank', async () => {
    for (const { width, height, tag } of sizes) {
      for (const lang of langs) {
        const suffix = `${tag}${lang === 'fr' ? '-fr' : ''}`;
        const page = await open('#/ctl/leaderboards', lang, width, height);
        await page.locator('td a', { hasText: 'score' }).waitFor();
        await shot(page, `console-leaderboards-list${suffix}`);
        await page.locator('td a', { hasText: 'score' }).click();
        await page.locator('tbody td a', { hasText: 'Bruno' }).waitFor();
        expect(await page.locator('tbody tr td:first-child').allTextContents()).toEqual(['1', '2', '3', '4']);
        await page.locator('input[type=search]').fill('emile');
        await page.locator('input[type=search]').press('Enter');
        await page.locator('.player-rank', { hasText: 'Emile' }).waitFor();
        expect(await page.locator('.player-rank').textContent()).toContain(lang === 'en' ? 'rank 3' : 'rang 3');
        await shot(page, `console-leaderboards${suffix}`);
        if (tag === '' && lang === 'en') {
          // A daily board: its periods in a selector, today's first.
          await page.evaluate(() => { location.hash = '#/ctl/leaderboards/jour'; });
          await page.locator('tbody td a', { hasText: 'Fanny' }).waitFor();
          expect(await page.locator('select option').last().textContent()).toMatch(/\(current\) · 5$/);
          await shot(page, 'console-leaderboards-periods');
        }
        await page.context().close();
      }
    }
  });

  it('retire from the page', async () => {
    const page = await open('#/ctl/leaderboards/score', 'en', 1280, 800);
    const row = page.locator('tbody tr', { hasText: 'Fanny' });
    await row.getByRole('button', { name: 'Retire' }).click();
    await row.getByRole('button', { name: 'Really retire?' }).click();
    await page.locator('tbody td a', { hasText: 'Fanny' }).waitFor({ state: 'detached' });
    await page.context().close();
    const api = (await client(app.baseUrl, key).get('/leaderboards/score/scores?limit=10')).body.data;
    expect(api.map((e: any) => e.pseudo)).toEqual(['Bruno', 'Dora', 'Emile']);
    expect(con.errors).toEqual([]);
  });
});
