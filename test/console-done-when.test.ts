// Issue 21's "done when", as a studio lives it: `manette start` in one terminal and
// `manette console` in another (both real processes, on one database, the console finding
// the service's local Realtime through the data folder), the demo's game file. A studio
// watches two players play the demo live (they play in the demo page; the console's list
// follows over Realtime without a reload), replays the match step by step, edits the login
// panel's colour and sees the demo change, rotates the game's key (the API refuses the old
// one at once), and finds each of those writes in the audit page. Nothing asserts how long
// anything took.
import { copyFile, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { applyGameFile } from '../api/config/apply.js';
import { freshDatabase, query } from './support/harness.js';
import { startManette, stopManette, type ManetteProcess } from './support/manette-process.js';
import { haveBrowser, launchBrowser, SCREENSHOT_DIR, warnIfNoBrowser } from './support/browser.js';
import { startConsoleProcess, type ConsoleProcess } from './support/console.js';

warnIfNoBrowser('console-done-when');
const ROOT = path.join(import.meta.dirname, '..');
const NEW_COLOUR = '#e17055';
const NEW_RGB = 'rgb(225, 112, 85)';

describe.skipIf(!haveBrowser)('the studio console: a studio runs its live game', () => {
  let db: string;
  let gameFile: string;
  let service: ManetteProcess;
  let consoleProc: ConsoleProcess;
  let browser: Browser;
  let key: string;
  let origin: string;

  beforeAll(async () => {
    db = await freshDatabase();
    const dir = await mkdtemp(path.join(tmpdir(), 'manette-done-when-'));
    gameFile = path.join(dir, 'game.json');
    await copyFile(path.join(ROOT, 'examples/demo/game.json'), gameFile);
    key = (await applyGameFile(db, gameFile)).api_key;
    const dataDir = path.join(dir, '.manette');
    service = await startManette(db, dataDir, { MANETTE_WORKERS: '1' });
    origin = new URL(service.base).origin;
    consoleProc = await startConsoleProcess({ DATABASE_URL: db, MANETTE_DATA_DIR: dataDir }, ['--jeu', gameFile]);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    if (consoleProc) {
      try { process.kill(-consoleProc.proc.pid!, 'SIGINT'); } catch { /* gone */ }
    }
    if (service) await stopManette(service.proc);
  });

  it('watch two players live, replay, theme the login panel, rotate the key, find it all in the audit', async () => {
    // The console found the service's Realtime (the running instance of its data folder).
    expect(consoleProc.out()).toMatch(/Realtime\s+ws:\/\//);
    expect(consoleProc.out()).toContain(gameFile);

    const studio = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const con = await studio.newPage();
    const errors: string[] = [];
    con.on('pageerror', (e) => errors.push(e.message));
    await con.goto(consoleProc.link);
    await con.locator('.shell h1').waitFor();
    const consoleOrigin = new URL(consoleProc.link).origin;
    const go = async (hash: string, h1: string) => {
      await con.evaluate((h) => { location.hash = h; }, hash);
      await con.locator('h1').filter({ hasText: h1 }).waitFor();
    };
    await go('#/demo/matches', 'Matches');
    await con.locator('[data-live="on"]').waitFor({ timeout: 20_000 });

    // Two players sign up in the demo and press Play.
    const players: { page: Page; ctx: BrowserContext; pseudo: string }[] = [];
    for (const pseudo of ['lea', 'max']) {
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'en-US' });
      const page = await ctx.newPage();
      await page.goto(`${origin}/demo/?key=${key}`);
      const login = page.locator('manette-login');
      await login.getByRole('button', { name: 'No account yet? Sign up' }).click();
      await login.getByLabel('Username', { exact: true }).fill(pseudo);
      await login.getByLabel('Email').fill(`${pseudo}@example.test`);
      await login.getByLabel('Password (at least 8 characters)').fill('motdepasse-solide');
      await login.getByRole('button', { name: 'Create my account' }).click();
      // Signed in, or the panel's error: either way the failure says what the player saw.
      const signedIn = login.getByText(`Signed in as ${pseudo}`);
      await signedIn.or(login.getByRole('alert').filter({ hasText: /\S/ })).first().waitFor({ timeout: 60_000 });
      if (!(await signedIn.isVisible())) throw new Error(`not signed in; the panel said: ${await login.getByRole('alert').first().textContent()}`);
      players.push({ page, ctx, pseudo });
    }
    for (const p of players) await p.page.locator('manette-matchmaking').getByRole('button', { name: 'Play' }).click();
    for (const p of players) await p.page.locator('#match').waitFor({ state: 'visible', timeout: 20_000 });
    const turnOf = (p: Page) => p.locator('#turn').textContent();
    await expect.poll(async () => (await Promise.all(players.map((p) => turnOf(p.page)))).filter((t) => t === 'Your turn!').length, { timeout: 15_000 }).toBe(1);
    const [x, o] = (await turnOf(players[0]!.page)) === 'Your turn!' ? [players[0]!, players[1]!] : [players[1]!, players[0]!];

    // The match shows up in the console without a reload, on turn 1, X to play.
    const row = con.locator('tr[data-partie]');
    await row.waitFor({ timeout: 20_000 });
    const matchId = (await row.getAttribute('data-partie'))!;
    await waitText(row.locator('[data-tour]'), /^1$/);
    await waitText(row.locator('[data-a-jouer]'), whoseTurn(x.pseudo));

    // They play; the console follows each move live. X takes the middle column.
    const moves: [typeof x, number][] = [[x, 4], [o, 0], [x, 1], [o, 2], [x, 7]];
    for (const [i, [who, cell]] of moves.entries()) {
      await expect.poll(() => turnOf(who.page), { timeout: 15_000 }).toBe('Your turn!');
      await who.page.locator(`#board .cell[data-case="${cell}"]`).click();
      if (i < moves.length - 1) {
        await waitText(row.locator('[data-tour]'), new RegExp(`^${i + 2}$`));
        await waitText(row.locator('[data-a-jouer]'), whoseTurn((i % 2 === 0 ? o : x).pseudo));
      }
      if (i === 2) await con.screenshot({ path: path.join(SCREENSHOT_DIR, 'console-done-when-live.png') });
    }
    await expect.poll(() => turnOf(x.page), { timeout: 15_000 }).toContain('You won!');
    // Over: it leaves the list of matches in progress, live.
    await con.locator(`tr[data-partie="${matchId}"]`).waitFor({ state: 'detached', timeout: 20_000 });

    // Replay: every step's board, the win at the end.
    await con.evaluate((h) => { location.hash = h; }, `#/demo/matches/${matchId}`);
    await con.locator('[data-step="5"]').waitFor({ timeout: 20_000 });
    await con.locator('[data-first]').click();
    const boards: unknown[] = [];
    for (let step = 0; step <= 5; step++) {
      await con.locator(`[data-step="${step}"]`).waitFor();
      boards.push(JSON.parse((await con.locator('[data-etat]').textContent())!));
      if (step < 5) await con.locator('[data-next]').click();
    }
    const cells = (b: unknown) => (b as { etat_plateau: { cases: (string | null)[] } }).etat_plateau.cases;
    expect(cells(boards[0])).toEqual([null, null, null, null, null, null, null, null, null]);
    expect(cells(boards[1])![4]).toBe('X');
    expect(cells(boards[5])).toEqual(['O', 'X', 'O', null, 'X', null, null, 'X', null]);
    expect(boards[5]).toMatchObject({ statut: 'terminee' });
    await con.screenshot({ path: path.join(SCREENSHOT_DIR, 'console-done-when-replay.png') });

    // The login panel's colour: edited in the console, written to the game file, applied;
    // the demo shows it at its next load.
    const visitor = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'en-US' });
    const demo = await visitor.newPage();
    await demo.goto(`${origin}/demo/?key=${key}`);
    const demoButton = demo.locator('manette-login').locator('button.primary').first();
    await demoButton.waitFor({ timeout: 15_000 });
    const before = await demoButton.evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(before).not.toBe(NEW_RGB);
    await go('#/demo/panels', 'Panels');
    await con.locator('[data-state="in-step"]').waitFor();
    await con.locator('#panel\\.theme\\.couleur_primaire').fill(NEW_COLOUR);
    await con.getByRole('button', { name: 'Save to the file and apply' }).click();
    await con.locator('[data-saved]').waitFor();
    expect(JSON.parse(await readFile(gameFile, 'utf8')).panel.theme.couleur_primaire).toBe(NEW_COLOUR);
    await demo.reload();
    await expect.poll(() => demoButton.evaluate((el) => getComputedStyle(el).backgroundColor), { timeout: 15_000 }).toBe(NEW_RGB);
    await demo.screenshot({ path: path.join(SCREENSHOT_DIR, 'console-done-when-demo.png') });

    // Key rotation: a new key, then the old one revoked; the API refuses it at once.
    await go('#/demo/keys', 'Keys');
    await con.getByText(key).waitFor();
    await con.getByRole('button', { name: 'Create a key' }).click();
    const fresh = (await con.locator('code.key-big').textContent())!;
    expect(fresh).toMatch(/^sk_live_/);
    const oldRow = con.locator('tbody tr', { hasText: key });
    await oldRow.getByRole('button', { name: 'Revoke' }).click();
    await oldRow.getByRole('button', { name: 'Really revoke?' }).click();
    await con.getByText('Key revoked: the API refuses it from now on (401 invalid_key). Active keys left: 1.').waitFor();
    const api = (k: string) => fetch(`${service.base}/shop/articles`, { headers: { 'x-api-key': k } });
    expect((await api(key)).status).toBe(401);
    expect((await api(fresh)).status).toBe(200);

    // Each of those writes is in the audit page, newest first, by the console's operator.
    await go('#/demo/audit', 'Audit');
    await con.getByText('keys revoke', { exact: true }).waitFor();
    expect((await con.locator('tbody tr td:nth-child(3)').allTextContents()).slice(0, 3)).toEqual(['keys revoke', 'keys create', 'panel save']);
    for (const r of (await con.locator('tbody tr').all()).slice(0, 3)) expect(await r.locator('td').nth(1).textContent()).toContain(' (console)');
    await con.screenshot({ path: path.join(SCREENSHOT_DIR, 'console-done-when-audit.png') });
    const audit = await query<{ command: string }>(db, `select a.command from manette.admin_audit a join manette.games g on g.id = a.game_id
      where g.slug = 'demo' order by a.id`);
    expect(audit.map((a) => a.command)).toEqual(['panel save', 'keys create', 'keys revoke']);

    expect(errors).toEqual([]);
    expect(consoleOrigin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    for (const p of [...players]) await p.ctx.close();
    await visitor.close();
    await studio.close();
  }, 180_000); // many waits in a row, each bounded for a loaded machine
});

/** The player on turn, with the countdown of the demo's 30 s turns after the pseudo. */
const whoseTurn = (pseudo: string) => new RegExp(`^${pseudo}( \\d+ s left)?$`);

/** Waits until the element's text matches (the page updates it when Realtime says so). */
async function waitText(el: Locator, want: RegExp | string): Promise<void> {
  await expect.poll(async () => (await el.textContent())?.trim() ?? '', { timeout: 20_000 })
    .toMatch(typeof want === 'string' ? new RegExp(`^${want.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) : want);
}
