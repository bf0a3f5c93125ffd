// The console's Panels page (console/web/pages/panels.tsx, console/server/routes/panel.ts):
// the real <manette-login> and <manette-matchmaking> show the draft live in French and
// English; Save writes the `panel` part of the console's game file (its other parts and
// layout untouched) and applies it as `manette apply` does (applying the saved file again
// with the real CLI changes nothing), with one `panel save` audit row; the real API's
// GET /panel and the real demo page show the new colour. A file edited on disk meanwhile,
// a file that differs from the database outside the panel, an invalid value, no file and
// another game's file: each refused with its envelope and nothing changed. Real console,
// real façade, real database, real CLI, real Chromium.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { parseGameConfig } from '../api/config/game-config.js';
import { startTestApp, type TestApp } from './support/harness.js';
import { startTestConsole, type TestConsole } from './support/console.js';
import { haveBrowser, launchBrowser, SCREENSHOT_DIR, warnIfNoBrowser } from './support/browser.js';
import { runManetteJson } from './support/manette-cli.js';

const JEU = 'panels-demo';
const DEMO_FILE = path.resolve(import.meta.dirname, '..', 'examples', 'demo', 'game.json');
const NEW_COLOUR = '#e17055';
const NEW_RGB = 'rgb(225, 112, 85)';
const OLD_RGB = 'rgb(108, 92, 231)';

let app: TestApp;
let con: TestConsole;
let dir: string;
let gameFile: string;
let original: string;
let key: string;
let browser: Browser | undefined;

/** The stored config, its last update, and the audit rows of the game. */
async function dbState(jeu = JEU) {
  const [game] = await app.sql<{ config: Record<string, unknown>; updated_at: string; name: string }>(
    'select config, updated_at::text, name from manette.games where slug = $1', [jeu]);
  const audit = await app.sql<{ command: string; details: any; operator: string }>(
    `select command, details, operator from manette.admin_audit a join manette.games g on g.id = a.game_id
     where g.slug = $1 order by a.id`, [jeu]);
  return { ...game!, audit };
}

/** A copy of the demo's game file as game `jeu`, its formatting kept. */
async function gameFileFor(jeu: string, name = `${jeu}.json`): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, (await readFile(DEMO_FILE, 'utf8')).replace('"jeu": "demo"', `"jeu": "${jeu}"`));
  return file;
}

beforeAll(async () => {
  app = await startTestApp();
  dir = await mkdtemp(path.join(tmpdir(), 'manette-console-panels-'));
  gameFile = await gameFileFor(JEU, 'game.json');
  original = await readFile(gameFile, 'utf8');
  const applied = await runManetteJson(['apply', gameFile], app.databaseUrl, 'en_US.UTF-8');
  expect(applied.code, applied.stderr).toBe(0);
  key = applied.body.api_key ?? applied.body.data.api_key;
  con = await startTestConsole({ databaseUrl: app.databaseUrl, gameFile });
  warnIfNoBrowser('test/console-panels.test.ts');
  if (haveBrowser) browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await con?.close();
  await app?.close();
});

describe('GET /games/:jeu/panel', () => {
  it('gives the stored panel, GET /panel\'s merge in both languages, and the file in step', async () => {
    const s = await con.session();
    const body = await (await s.fetch(`/api/games/${JEU}/panel`)).json() as any;
    expect(body.ok).toBe(true);
    const d = body.data;
    // The demo's login title is given per language (docs/api.md, Texts per language).
    expect(d.panel).toEqual({ theme: { couleur_primaire: '#6c5ce7', police: 'Inter' }, textes: { connexion_titre: { fr: 'Morpion', en: 'Tic-tac-toe' } } });
    expect(d.effectif.theme).toMatchObject({ couleur_primaire: '#6c5ce7', police: 'Inter', couleur_fond: '#ffffff', logo_url: null });
    expect([d.effectif.textes.fr.connexion_titre, d.effectif.textes.en.connexion_titre]).toEqual(['Morpion', 'Tic-tac-toe']);
    expect([d.effectif.textes.fr.connexion_bouton, d.effectif.textes.en.connexion_bouton]).toEqual(['Se connecter', 'Sign in']);
    // The same as the real API's GET /panel.
    const api = await (await fetch(`${app.baseUrl}/panel`, { headers: { 'x-api-key': key, 'accept-language': 'en' } })).json() as any;
    expect(d.effectif.theme).toEqual(api.data.theme);
    expect(d.effectif.textes.en).toEqual(api.data.textes);
    expect(d.fichier).toMatchObject({ chemin: gameFile, jeu: JEU, meme_jeu: true, en_phase: true, parties_differentes: [], erreur: null });
    expect(d.fichier.version).toMatch(/^[0-9a-f]{64}$/);
    expect(Object.keys(d.config.modes)).toEqual(['1v1', '2v2']);
  });
});

/**
 * The Panels page of `c`, signed in. The hash is set again once the shell is up: the
 * shell's "first game" redirect may otherwise land on the overview when the page's hash
 * arrives while the shell boots.
 */
async function openPanels(c: TestConsole, ctx: BrowserContext, lang: 'en' | 'fr', jeu = JEU): Promise<Page> {
  const page = await c.open(ctx, `#/${jeu}/panels`, lang);
  await page.evaluate((h) => { location.hash = h; }, `#/${jeu}/panels`);
  await page.locator('.pn-layout').waitFor();
  return page;
}

/** The computed `prop` of `sel` inside the shadow root of the preview element `which` (e.g. login-fr). */
const inPreview = (page: Page, which: string, sel: string, prop: string) =>
  page.$eval(`[data-preview="${which}"]`, (el, [s, p]) => {
    const node = el.shadowRoot!.querySelector(s!);
    return node ? (p === 'text' ? node.textContent : getComputedStyle(node).getPropertyValue(p!)) : null;
  }, [sel, prop] as const);

describe.skipIf(!haveBrowser)('the editor in Chromium', () => {
  let ctx: BrowserContext;
  beforeAll(async () => { ctx = await browser!.newContext({ viewport: { width: 1280, height: 800 } }); });
  afterAll(async () => { await ctx?.close(); });

  /** The real demo page with the game's key: its login panel's primary button colour. */
  async function demoButtonColour(expected: string): Promise<Page> {
    const page = await ctx.newPage();
    await page.goto(`${new URL(app.baseUrl).origin}/demo/?key=${key}`);
    const button = page.locator('manette-login').locator('button.primary').first();
    await button.waitFor({ timeout: 15_000 });
    await expect.poll(() => button.evaluate((el) => getComputedStyle(el).backgroundColor), { timeout: 15_000 }).toBe(expected);
    return page;
  }

  it('edits the login panel\'s colour and title, the previews show them in FR and EN; Save writes the file and applies it; the demo changes', async () => {
    const demo = await demoButtonColour(OLD_RGB);
    const before = await dbState();

    const page = await openPanels(con, ctx, 'en');
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.locator('[data-state="in-step"]').waitFor();
    for (const l of ['fr', 'en']) {
      await expect.poll(() => inPreview(page, `login-${l}`, 'button.primary', 'background-color')).toBe(OLD_RGB);
      expect(await inPreview(page, `login-${l}`, 'h2', 'text')).toBe(l === 'fr' ? 'Morpion' : 'Tic-tac-toe');
    }
    // A text given per language: one field per language.
    expect(await page.locator('#panel\\.textes\\.connexion_titre\\.fr').inputValue()).toBe('Morpion');
    expect(await page.locator('#panel\\.textes\\.connexion_titre\\.en').inputValue()).toBe('Tic-tac-toe');
    // The matchmaking preview: a signed-in sample player, the game's first mode.
    expect(await inPreview(page, 'matchmaking-en', '.mode-value', 'text')).toBe('1v1');
    expect(await inPreview(page, 'matchmaking-fr', 'button.primary', 'text')).toBe('Jouer');

    await page.locator('#panel\\.theme\\.couleur_primaire').fill(NEW_COLOUR);
    await page.locator('#panel\\.textes\\.connexion_titre\\.fr').fill('Prêt à jouer ?');
    await page.locator('#panel\\.textes\\.connexion_titre\\.en').fill('Ready to play?');
    for (const l of ['fr', 'en']) {
      await expect.poll(() => inPreview(page, `login-${l}`, 'button.primary', 'background-color')).toBe(NEW_RGB);
      expect(await inPreview(page, `login-${l}`, 'h2', 'text')).toBe(l === 'fr' ? 'Prêt à jouer ?' : 'Ready to play?');
      expect(await inPreview(page, `matchmaking-${l}`, 'button.primary', 'background-color')).toBe(NEW_RGB);
    }
    // The languages' own defaults where the game sets nothing.
    expect(await inPreview(page, 'login-fr', 'button.primary', 'text')).toBe('Se connecter');
    expect(await inPreview(page, 'login-en', 'button.primary', 'text')).toBe('Sign in');
    // The colour picker follows the text field.
    expect(await page.getByLabel('couleur_primaire: colour picker').inputValue()).toBe(NEW_COLOUR);
    await page.locator('[data-state="in-step"] .badge.live').waitFor();

    // Screenshots: the editor and the previews, 1280 and 768, English and French.
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'console-panels.png'), fullPage: true });
    await page.getByRole('button', { name: 'Phone · 360 px' }).click();
    expect(await page.locator('.pn-phone .pn-screen').first().evaluate((el) => el.clientWidth)).toBe(360);
    await page.locator('.pn-previews').screenshot({ path: path.join(SCREENSHOT_DIR, 'console-panels-phone.png') });
    await page.getByRole('button', { name: 'Desktop' }).click();
    await page.setViewportSize({ width: 768, height: 1024 });
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'console-panels-768.png'), fullPage: true });
    await page.getByRole('button', { name: 'FR', exact: true }).click();
    await page.getByRole('button', { name: 'Enregistrer dans le fichier et appliquer' }).waitFor();
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'console-panels-768-fr.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'console-panels-fr.png'), fullPage: true });
    await page.getByRole('button', { name: 'EN', exact: true }).click();
    // The draft survived the language switch.
    expect(await page.locator('#panel\\.theme\\.couleur_primaire').inputValue()).toBe(NEW_COLOUR);

    await page.getByRole('button', { name: 'Save to the file and apply' }).click();
    await page.locator('[data-saved]').waitFor();
    expect(await page.locator('[data-saved] .success').textContent()).toBe(`Written to ${gameFile} and applied.`);
    await page.locator('[data-state="in-step"]').waitFor();

    // The file: its new panel, everything before it byte for byte as it was.
    const text = await readFile(gameFile, 'utf8');
    const json = JSON.parse(text);
    expect(json.panel).toEqual({ theme: { couleur_primaire: NEW_COLOUR, police: 'Inter' }, textes: { connexion_titre: { fr: 'Prêt à jouer ?', en: 'Ready to play?' } } });
    const head = original.slice(0, original.indexOf('"panel"'));
    expect(text.slice(0, head.length)).toBe(head);
    expect(text.endsWith('}\n')).toBe(true);
    // The panel keeps its layout too: only the values that changed are edited, in place.
    expect(text.slice(head.length)).toBe(original.slice(head.length)
      .replace('"couleur_primaire": "#6c5ce7"', `"couleur_primaire": "${NEW_COLOUR}"`)
      .replace('"fr": "Morpion"', '"fr": "Prêt à jouer ?"').replace('"en": "Tic-tac-toe"', '"en": "Ready to play?"'));
    const { panel: _p, ...rest } = json;
    const { panel: _o, ...restBefore } = JSON.parse(original);
    expect(rest).toEqual(restBefore);

    // The database: the file as `manette apply` stores it; applying it again changes nothing.
    const after = await dbState();
    const parsed = parseGameConfig(json);
    expect(parsed.ok && after.config).toEqual(parsed.ok && JSON.parse(JSON.stringify(parsed.config)));
    const again = await runManetteJson(['apply', gameFile], app.databaseUrl, 'en_US.UTF-8');
    expect(again.code, again.stderr).toBe(0);
    expect((await dbState()).updated_at).toBe(after.updated_at);
    // A twin game applied from the saved file by the real CLI stores the same config.
    const twin = path.join(dir, 'twin.json');
    await writeFile(twin, text.replace(`"jeu": "${JEU}"`, '"jeu": "panels-twin"'));
    expect((await runManetteJson(['apply', twin], app.databaseUrl, 'en_US.UTF-8')).code).toBe(0);
    expect({ ...(await dbState('panels-twin')).config, jeu: JEU }).toEqual(after.config);

    // One audit row, with the panel before and after, by the console's operator.
    expect(after.audit.length).toBe(before.audit.length + 1);
    const row = after.audit.at(-1)!;
    expect(row.command).toBe('panel save');
    expect(row.details).toEqual({
      fichier: gameFile,
      avant: { theme: { couleur_primaire: '#6c5ce7', police: 'Inter' }, textes: { connexion_titre: { fr: 'Morpion', en: 'Tic-tac-toe' } } },
      apres: { theme: { couleur_primaire: NEW_COLOUR, police: 'Inter' }, textes: { connexion_titre: { fr: 'Prêt à jouer ?', en: 'Ready to play?' } } },
    });
    expect(row.operator).toMatch(/ \(console\)$/);

    // The real API and the real demo page.
    const api = await (await fetch(`${app.baseUrl}/panel`, { headers: { 'x-api-key': key } })).json() as any;
    expect(api.data.theme.couleur_primaire).toBe(NEW_COLOUR);
    expect(api.data.textes.connexion_titre).toBe('Prêt à jouer ?');
    const apiEn = await (await fetch(`${app.baseUrl}/panel`, { headers: { 'x-api-key': key, 'accept-language': 'en' } })).json() as any;
    expect(apiEn.data.textes.connexion_titre).toBe('Ready to play?');
    await demo.reload();
    const button = demo.locator('manette-login').locator('button.primary').first();
    await expect.poll(() => button.evaluate((el) => getComputedStyle(el).backgroundColor), { timeout: 15_000 }).toBe(NEW_RGB);
    const demoLang = await demo.evaluate(() => document.documentElement.lang);
    await expect.poll(() => demo.locator('manette-login').locator('h2').textContent()).toBe(demoLang === 'fr' ? 'Prêt à jouer ?' : 'Ready to play?');
    await demo.screenshot({ path: path.join(SCREENSHOT_DIR, 'console-panels-demo-after.png') });
    await demo.close();
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a file edited on disk meanwhile: the conflict is shown, nothing is written', async () => {
    const page = await openPanels(con, ctx, 'en');
    await page.locator('[data-state="in-step"]').waitFor();
    const edited = `${await readFile(gameFile, 'utf8')}\n`;
    await writeFile(gameFile, edited);
    const before = await dbState();
    await page.locator('#panel\\.theme\\.couleur_fond').fill('#000000');
    await page.getByRole('button', { name: 'Save to the file and apply' }).click();
    await page.locator('.error code.code-tag', { hasText: 'game_file_changed' }).waitFor();
    expect(await readFile(gameFile, 'utf8')).toBe(edited);
    const after = await dbState();
    expect([after.config, after.updated_at, after.audit.length]).toEqual([before.config, before.updated_at, before.audit.length]);
    // Reloading reads the file again: in step (a newline changes no value).
    await page.getByRole('button', { name: 'Reload the file' }).click();
    await page.locator('[data-state="in-step"]').waitFor();
    await page.close();
  });

  it('a file that differs outside the panel: shown, a save refused; "apply the file as it is" applies it, audited', async () => {
    const text = await readFile(gameFile, 'utf8');
    await writeFile(gameFile, text.replace('"fr": "Démo"', '"fr": "Démo 2"'));
    const page = await openPanels(con, ctx, 'en');
    await page.locator('[data-state="differs"]').waitFor();
    expect(await page.locator('[data-state="differs"] .error strong').textContent()).toContain('also differ on nom');

    // The save is refused by the server too (what a stale page would send).
    const s = await con.session();
    const state = (await (await s.fetch(`/api/games/${JEU}/panel`)).json() as any).data;
    expect(state.fichier).toMatchObject({ en_phase: false, parties_differentes: ['nom'] });
    const before = await dbState();
    const res = await s.fetch(`/api/games/${JEU}/panel`, { method: 'PUT', body: JSON.stringify({ panel: { theme: {}, textes: {} }, version: state.fichier.version }) });
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ ok: false, error: 'game_file_differs', details: [{ champ: 'nom' }] });
    expect(await readFile(gameFile, 'utf8')).toContain('"fr": "Démo 2"');
    expect((await dbState()).audit.length).toBe(before.audit.length);
    expect((await dbState()).name).toBe('Démo');

    const apply = page.getByRole('button', { name: 'Apply the file as it is' });
    await apply.click();
    await page.getByRole('button', { name: `Really apply ${gameFile}?` }).click();
    await page.locator('[data-state="in-step"]').waitFor();
    const after = await dbState();
    expect(after.name).toBe('Démo 2');
    expect(after.audit.length).toBe(before.audit.length + 1);
    expect(after.audit.at(-1)).toMatchObject({ command: 'apply', details: { fichier: gameFile, parties: ['nom'] } });
    expect([after.audit.at(-1)!.details.avant.nom, after.audit.at(-1)!.details.apres.nom]).toEqual([{ fr: 'Démo', en: 'Demo' }, { fr: 'Démo 2', en: 'Demo' }]);
    expect(after.audit.at(-1)!.operator).toMatch(/ \(console\)$/);
    await page.close();
  });

  it('a file whose panel alone differs (edited by hand): the page starts from the file; saving applies it, audited with the database\'s panel as avant', async () => {
    const text = await readFile(gameFile, 'utf8');
    await writeFile(gameFile, text.replace('"police": "Inter"', '"police": "Georgia, serif"'));
    const dbPanel = (await dbState()).config.panel;
    const page = await openPanels(con, ctx, 'en');
    await page.locator('[data-state="panel-differs"]').waitFor();
    expect(await page.locator('#panel\\.theme\\.police').inputValue()).toBe('Georgia, serif');
    await expect.poll(() => inPreview(page, 'login-en', 'h2', 'font-family')).toBe('Georgia, serif');
    await page.getByRole('button', { name: 'Save to the file and apply' }).click();
    await page.locator('[data-saved]').waitFor();
    await page.locator('[data-state="in-step"]').waitFor();
    const after = await dbState();
    expect((after.config.panel as any).theme.police).toBe('Georgia, serif');
    expect(after.audit.at(-1)).toMatchObject({ command: 'panel save', details: { avant: dbPanel } });
    expect(JSON.parse(await readFile(gameFile, 'utf8')).panel.theme.police).toBe('Georgia, serif');
    await page.close();
  });

  it('an invalid value: the field\'s error is shown, nothing is written', async () => {
    const page = await openPanels(con, ctx, 'fr');
    await page.locator('[data-state="in-step"]').waitFor();
    const fileBefore = await readFile(gameFile, 'utf8');
    const before = await dbState();
    await page.locator('#panel\\.theme\\.couleur_primaire').fill(`#${'a'.repeat(500)}`);
    await page.getByRole('button', { name: 'Enregistrer dans le fichier et appliquer' }).click();
    const fieldError = page.locator('[id="panel.theme.couleur_primaire-erreur"]');
    await fieldError.waitFor();
    expect(await fieldError.textContent()).toMatch(/500/);
    expect(await page.locator('#panel\\.theme\\.couleur_primaire').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('.error strong').first().textContent()).toBe('Le fichier du jeu serait invalide : rien n’a été écrit.');
    expect(await readFile(gameFile, 'utf8')).toBe(fileBefore);
    const after = await dbState();
    expect([after.config, after.updated_at, after.audit.length]).toEqual([before.config, before.updated_at, before.audit.length]);
    await page.close();
  });
});

describe('without a file of this game', () => {
  let other: TestConsole;
  let none: TestConsole;
  beforeAll(async () => {
    const otherFile = await gameFileFor('panels-other');
    expect((await runManetteJson(['apply', otherFile], app.databaseUrl, 'en_US.UTF-8')).code).toBe(0);
    other = await startTestConsole({ databaseUrl: app.databaseUrl, gameFile: otherFile });
    none = await startTestConsole({ databaseUrl: app.databaseUrl });
  });
  afterAll(async () => {
    await other?.close();
    await none?.close();
  });

  it('PUT and apply-file are refused (no_game_file), nothing changes', async () => {
    const fileBefore = await readFile(gameFile, 'utf8');
    const before = await dbState();
    for (const c of [other, none]) {
      const s = await c.session();
      const state = (await (await s.fetch(`/api/games/${JEU}/panel`)).json() as any).data;
      if (c === none) expect(state.fichier).toBeNull();
      else expect(state.fichier).toMatchObject({ jeu: 'panels-other', meme_jeu: false, en_phase: false });
      const put = await s.fetch(`/api/games/${JEU}/panel`, { method: 'PUT', body: JSON.stringify({ panel: { theme: { couleur_primaire: '#000000' }, textes: {} }, version: state.fichier?.version ?? 'x' }) });
      expect(put.status).toBe(409);
      expect(await put.json()).toMatchObject({ ok: false, error: 'no_game_file' });
      const apply = await s.fetch(`/api/games/${JEU}/panel/apply-file`, { method: 'POST', body: JSON.stringify({ version: state.fichier?.version ?? 'x' }) });
      expect(apply.status).toBe(409);
    }
    expect(await readFile(gameFile, 'utf8')).toBe(fileBefore);
    const after = await dbState();
    expect([after.config, after.updated_at, after.audit.length]).toEqual([before.config, before.updated_at, before.audit.length]);
    expect((await dbState('panels-other')).audit).toEqual([]);
  });

  it.skipIf(!haveBrowser)('the page shows the JSON of the panel part to paste, with a copy button', async () => {
    const ctx = await browser!.newContext({ viewport: { width: 1280, height: 800 } });
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write']);
    for (const [c, state] of [[none, 'no-file'], [other, 'other-game']] as const) {
      const page = await openPanels(c, ctx, 'en');
      await page.locator(`[data-state="${state}"]`).waitFor();
      expect(await page.getByRole('button', { name: /^Save/ }).count()).toBe(0);
      await page.locator('#panel\\.theme\\.couleur_primaire').fill('#00b894');
      const json = JSON.parse(`{${await page.locator('pre[data-json="panel"]').textContent()}}`);
      expect(json.panel.theme.couleur_primaire).toBe('#00b894');
      expect(json.panel.textes).toEqual(((await dbState()).config.panel as { textes: unknown }).textes);
      await page.getByRole('button', { name: 'Copy the JSON' }).click();
      await page.getByText('Copied.').waitFor();
      expect(JSON.parse(`{${await page.evaluate(() => navigator.clipboard.readText())}}`)).toEqual(json);
      if (state === 'other-game') {
        expect(await page.locator('[data-state="other-game"]').textContent()).toContain('panels-other');
        await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'console-panels-paste.png'), fullPage: true });
      }
      await page.close();
    }
    await ctx.close();
  });
});
