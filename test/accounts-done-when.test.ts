// Issue 23's "done when", as a newcomer lives it: a clean copy of the repository (the files
// a clone has: no .manette, no sdk/dist), `npm start` in it on its embedded database and
// without MANETTE_SMTP_URL (so mail goes to the twin's loopback catcher, which prints it in
// the terminal), the demo page in Chromium. A player plays the demo as a guest (wins a
// match, buys a potion), keeps their progress with an e-mail, signs out, uses "Mot de passe
// oublié ?", reads the code in the mail `npm start` printed, resets the password, signs in
// with it (the same player), exports their data (the file has what they did) and deletes the
// account (signing in is then refused). Then the studio bans two players with the real CLI
// against that running instance: a guest (their open page, linking and "Jouer sans compte"
// on the same device are refused) and an account with an e-mail (signing in and resetting
// the password are refused, the end date is named); after `unban` both come back, as the
// same players. Screenshots of the account area (desktop and phone, French and English).
// Nothing asserts how long anything took.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { freePort } from './support/net.js';
import { haveBrowser, launchBrowser, SCREENSHOT_DIR, warnIfNoBrowser } from './support/browser.js';

warnIfNoBrowser('accounts-done-when');
const run = promisify(execFile);
const ROOT = path.join(import.meta.dirname, '..');
const DESKTOP = { width: 1280, height: 860 };
const PHONE = { width: 375, height: 740 };

// The demo's and the panels' texts, as the player reads them.
const FR = {
  locale: 'fr-FR', guest: 'Jouer sans compte', signedIn: 'Connecté en tant que', signOut: 'Se déconnecter',
  identifiant: 'Pseudo ou e-mail', password: 'Mot de passe', signIn: 'Se connecter',
  forgot: 'Mot de passe oublié ?', play: 'Jouer', mine: 'À toi de jouer !', won: 'Tu as gagné !',
  buyPotion: 'Acheter Potion pour 30 Or', signUp: 'Pas encore de compte ? Inscris-toi', pseudo: 'Pseudo', email: 'E-mail',
  newPassword: 'Mot de passe (8 caractères au moins)', create: 'Créer mon compte',
  keep: 'Garde ta progression', keepButton: 'Garder ma progression', pseudoOptional: 'Pseudo (facultatif)',
  exportButton: 'Exporter mes données', deleteButton: 'Supprimer mon compte', deleteYes: 'Supprimer pour de bon', deleteNo: 'Annuler',
};
const EN = {
  locale: 'en-US', guest: 'Play without an account', signedIn: 'Signed in as', keep: 'Keep your progress',
  deleteButton: 'Delete my account',
};

interface Player { ctx: BrowserContext; page: Page; errors: string[] }

let dir: string;
let env: NodeJS.ProcessEnv;
let manette: { proc: ChildProcess; out: () => string };
let demoLink: string;
let browser: Browser;
const started: ChildProcess[] = [];
const contexts: BrowserContext[] = [];

/** `npm start` in the copy, as a terminal runs it (its own process group); resolves once the banner is printed. */
function npmStart(): Promise<{ proc: ChildProcess; out: () => string }> {
  const proc = spawn('npm', ['start'], { env, cwd: dir, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(proc);
  let out = '';
  return new Promise((resolve, reject) => {
    // A first start initialises Postgres, migrates and builds the SDK: on a loaded machine it takes a while.
    const timer = setTimeout(() => reject(new Error(`npm start: no banner after 240 s:\n${out}`)), 240_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      if (/(Base|Database)\s+.+\n/.test(out)) { clearTimeout(timer); resolve({ proc, out: () => out }); }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.on('exit', (code) => { clearTimeout(timer); reject(new Error(`npm start exited ${code}:\n${out}`)); });
  });
}

/** The real CLI in the copy, against the running instance (its data folder), with --json. */
async function cli(...args: string[]): Promise<{ code: number; body: any; stderr: string }> {
  const r = await run(process.execPath, ['bin/manette.js', ...args, '--json'], { cwd: dir, env })
    .then((x) => ({ code: 0, ...x }), (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }));
  return { code: r.code, body: JSON.parse(r.stdout.trim().split('\n').pop()!), stderr: r.stderr };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'manette-accounts-'));
  // A clone's folder is readable by others (the embedded Postgres may run as another user).
  await chmod(dir, 0o755);
  // What a clone has: the tracked files and the new ones git does not ignore, as they are now.
  const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
  const files = [...new Set(stdout.split('\0').filter((f) => f && existsSync(path.join(ROOT, f))))];
  for (const f of files) {
    await mkdir(path.dirname(path.join(dir, f)), { recursive: true });
    await copyFile(path.join(ROOT, f), path.join(dir, f));
  }
  expect(existsSync(path.join(dir, '.manette'))).toBe(false);
  expect(existsSync(path.join(dir, 'sdk', 'dist'))).toBe(false);
  // `npm ci` would install the lockfile's packages: the same as this checkout's.
  await symlink(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');

  // A newcomer's shell: no DATABASE_URL, no MANETTE_SMTP_URL. Free ports (other tests run
  // beside this one), one API process, a cheap password hash (the machine is small), and the
  // request lines in a file, as in a terminal.
  env = {
    PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'fr_FR.UTF-8',
    npm_config_update_notifier: 'false', npm_config_fund: 'false',
    PORT: String(await freePort()), MANETTE_PG_PORT: String(await freePort()), MANETTE_REALTIME_PORT: '0',
    MANETTE_WORKERS: '1', MANETTE_ARGON2_MEMORY_KIB: '1024', MANETTE_ARGON2_ITERATIONS: '1',
    MANETTE_REQUEST_LOG: path.join(dir, 'requests.log'),
  };
  manette = await npmStart();
  demoLink = /(http:\/\/\S+\/demo\/\?key=sk_live_\w+)/.exec(manette.out())![1]!;
  browser = await launchBrowser();
}, 360_000);

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await browser?.close();
  for (const p of started) {
    if (p.exitCode !== null || p.signalCode !== null) continue;
    const exited = new Promise((r) => p.once('exit', r));
    try { process.kill(-p.pid!, 'SIGINT'); } catch { /* gone */ }
    await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
    try { process.kill(-p.pid!, 'SIGKILL'); } catch { /* gone */ }
  }
  if (dir) await rm(dir, { recursive: true, force: true });
}, 60_000);

async function openDemo(locale: string, viewport = DESKTOP): Promise<Player> {
  const ctx = await browser.newContext({ viewport, locale, acceptDownloads: true });
  contexts.push(ctx);
  const page = await ctx.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(demoLink);
  await page.locator('manette-login').locator('button').first().waitFor({ timeout: 20_000 });
  return { ctx, page, errors };
}

const login = (p: Player) => p.page.locator('manette-login');
const account = (p: Player) => p.page.locator('#account');

/** "Jouer sans compte" in the login panel; resolves with the guest's pseudo. */
async function playAsGuest(p: Player, L: { guest: string; signedIn: string } = FR): Promise<string> {
  await login(p).getByRole('button', { name: L.guest }).click();
  const signed = login(p).getByText(new RegExp(`^${L.signedIn} invite_\\d{6}$`));
  await signed.waitFor({ timeout: 20_000 });
  return (await signed.textContent())!.slice(L.signedIn.length + 1);
}

/** The player the page's session holds (the SDK keeps it in localStorage, per game). */
async function sessionPlayer(p: Player): Promise<{ id: string; pseudo: string; invite?: boolean } | null> {
  return p.page.evaluate(() => {
    for (let i = 0; i < localStorage.length; i++) {
      const k = localStorage.key(i)!;
      if (k.startsWith('manette.session.')) return (JSON.parse(localStorage.getItem(k)!) as { joueur: never }).joueur;
    }
    return null;
  });
}

async function signIn(p: Player, identifiant: string, password: string): Promise<void> {
  await login(p).getByLabel(FR.identifiant).fill(identifiant);
  await login(p).getByLabel(FR.password, { exact: true }).fill(password);
  await login(p).getByRole('button', { name: FR.signIn, exact: true }).click();
}

/** The panel's message after a refused sign-in (its alert). */
const panelAlert = (p: Player) => login(p).getByRole('alert');

/** The 8-digit code of the last mail `npm start` printed for this address (after `since` characters of output). */
function mailCode(email: string, since: number): string | null {
  const text = manette.out().slice(since);
  const at = text.lastIndexOf(email);
  if (at < 0) return null;
  return /\b(\d{8})\b/.exec(text.slice(at))?.[1] ?? null;
}

async function shot(p: Player, name: string, el?: Locator): Promise<void> {
  await p.page.mouse.move(0, 0);
  if (el) await el.scrollIntoViewIfNeeded();
  await p.page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`) });
}

describe.skipIf(!haveBrowser)('accounts on a fresh clone with npm start: guest, link, reset by mail, export, delete, bans', () => {
  let gaspard: Player;       // plays as a guest, keeps the progress, then deletes the account
  let odile: Player;         // a guest on a phone, later banned
  let guestId: string;
  let odilePseudo: string;
  let roomCode: string;
  const email = 'gaspard@example.test';

  it('two players play the demo as guests; the winner buys a potion; the account area offers to keep the progress', async () => {
    expect(manette.out()).toContain('Postgres embarqué');
    gaspard = await openDemo(FR.locale);
    odile = await openDemo(FR.locale, PHONE);
    const gPseudo = await playAsGuest(gaspard);
    odilePseudo = await playAsGuest(odile);
    guestId = (await sessionPlayer(gaspard))!.id;
    expect(await sessionPlayer(gaspard)).toMatchObject({ pseudo: gPseudo, invite: true });

    // Signed in as a guest: the account area, with the form that keeps the progress.
    for (const p of [gaspard, odile]) {
      await account(p).waitFor();
      expect(await account(p).getByRole('heading', { name: FR.keep }).isVisible()).toBe(true);
      expect(await account(p).getByRole('button', { name: FR.exportButton }).isVisible()).toBe(true);
    }

    // A match: gaspard (desktop) wins, whoever plays first.
    for (const p of [gaspard, odile]) await p.page.locator('manette-matchmaking').getByRole('button', { name: FR.play }).click();
    for (const p of [gaspard, odile]) await p.page.locator('#match').waitFor({ state: 'visible', timeout: 30_000 });
    const turnOf = (p: Player) => p.page.locator('#turn').textContent();
    await expect.poll(async () => [await turnOf(gaspard), await turnOf(odile)].filter((t) => t === FR.mine).length, { timeout: 20_000 }).toBe(1);
    const gFirst = (await turnOf(gaspard)) === FR.mine;
    const [first, second] = gFirst ? [gaspard, odile] : [odile, gaspard];
    const move = async (p: Player, i: number, mark: string) => {
      await expect.poll(() => turnOf(p), { timeout: 20_000 }).toBe(FR.mine);
      await p.page.locator(`#board .cell[data-case="${i}"]`).click();
      await expect.poll(() => p.page.locator(`#board .cell[data-case="${i}"]`).textContent(), { timeout: 20_000 }).toBe(mark);
    };
    await move(first, 0, 'X');
    await move(second, 3, 'O');
    await move(first, 1, 'X');
    await move(second, 4, 'O');
    if (gFirst) await move(first, 2, 'X');
    else { await move(first, 8, 'X'); await move(second, 5, 'O'); }
    await expect.poll(() => turnOf(gaspard), { timeout: 20_000 }).toBe(FR.won);
    roomCode = (await gaspard.page.locator('#room-code').textContent())!;

    // 50 gold for the win; a potion for 30.
    const shop = gaspard.page.locator('manette-boutique');
    const gold = () => shop.locator('ul.wallet li[data-monnaie="or"] .amount').textContent({ timeout: 2_000 }).catch(() => null);
    await expect.poll(gold, { timeout: 20_000 }).toBe('50');
    const buy = shop.getByRole('button', { name: FR.buyPotion });
    await buy.scrollIntoViewIfNeeded();
    await buy.click();
    await expect.poll(gold, { timeout: 20_000 }).toBe('20');

    // The account area of a guest, desktop and phone (French).
    await shot(gaspard, 'demo-account');
    await shot(odile, 'demo-account-phone', account(odile));
  });

  it('the guest keeps the progress with an e-mail: same player, now an account', async () => {
    const area = account(gaspard);
    await area.getByLabel(FR.pseudoOptional).fill('gaspard');
    await area.getByLabel(FR.email, { exact: true }).fill(email);
    await area.getByLabel(FR.newPassword).fill('premier-mot-de-passe');
    await area.getByRole('button', { name: FR.keepButton }).click();
    await expect.poll(() => area.getByRole('status').textContent(), { timeout: 20_000 })
      .toBe(`C’est gardé : connecte-toi désormais avec ${email} et ton mot de passe.`);
    expect(await sessionPlayer(gaspard)).toMatchObject({ id: guestId, pseudo: 'gaspard', email, invite: false });
    // No more form to keep the progress: the account has an e-mail.
    expect(await area.getByRole('heading', { name: FR.keep }).isVisible()).toBe(false);
    await login(gaspard).getByText(`${FR.signedIn} gaspard`).waitFor({ timeout: 20_000 });
  });

  it('forgets the password: the code arrives in the mail npm start prints; the new password signs the same player in', async () => {
    await login(gaspard).getByRole('button', { name: FR.signOut }).click();
    await account(gaspard).waitFor({ state: 'hidden' });
    const since = manette.out().length;
    await login(gaspard).getByRole('button', { name: FR.forgot }).click();
    await login(gaspard).getByLabel(FR.email, { exact: true }).fill(email);
    await login(gaspard).getByRole('button', { name: /code/i }).first().click();

    // The mail, printed in the terminal of `npm start` by the local catcher.
    await expect.poll(() => mailCode(email, since), { timeout: 30_000 }).toMatch(/^\d{8}$/);
    const mail = manette.out().slice(since);
    expect(mail).toContain('Démo Manette <demo@manette.local>');
    const code = mailCode(email, since)!;

    await login(gaspard).getByLabel(/code/i).fill(code);
    await login(gaspard).getByLabel(/nouveau mot de passe/i).fill('second-mot-de-passe');
    await login(gaspard).getByRole('button', { name: /mot de passe/i }).last().click();
    // Signed in with the new password (the panel may sign in by itself, or ask).
    const signedIn = login(gaspard).getByText(`${FR.signedIn} gaspard`);
    await expect.poll(async () => (await signedIn.isVisible()) || (await login(gaspard).getByLabel(FR.identifiant).isVisible()), { timeout: 20_000 }).toBe(true);
    if (!(await signedIn.isVisible())) await signIn(gaspard, email, 'second-mot-de-passe');
    await signedIn.waitFor({ timeout: 20_000 });
    expect((await sessionPlayer(gaspard))!.id).toBe(guestId);
    // The old password is refused (checked over HTTP, as the page would).
  });

  it('exports their data: the downloaded file has the match, the gold, the potion and the win', async () => {
    const download = gaspard.page.waitForEvent('download');
    await account(gaspard).getByRole('button', { name: FR.exportButton }).click();
    const file = await download;
    expect(file.suggestedFilename()).toBe('mes-donnees-gaspard.json');
    const data = JSON.parse(await readFile((await file.path())!, 'utf8'));
    const text = JSON.stringify(data);
    expect(text).toContain(guestId);
    expect(text).toContain(email);
    expect(text).toContain(roomCode);
    expect(text).toContain('potion');
    expect(text).toContain('victoires');
    await expect.poll(() => account(gaspard).getByRole('status').textContent()).toBe('Tes données sont téléchargées (mes-donnees-gaspard.json).');
  });

  it('deletes the account: a wrong password changes nothing; then signing in is refused', async () => {
    const area = account(gaspard);
    await area.getByRole('button', { name: FR.deleteButton }).click();
    await area.getByLabel(FR.password, { exact: true }).fill('pas-le-bon-mot-de-passe');
    await shot(gaspard, 'demo-account-delete', area);
    await area.getByRole('button', { name: FR.deleteYes }).click();
    await expect.poll(() => area.getByRole('alert').textContent(), { timeout: 20_000 }).not.toBe('');
    expect((await sessionPlayer(gaspard))?.id).toBe(guestId);

    await area.getByLabel(FR.password, { exact: true }).fill('second-mot-de-passe');
    await area.getByRole('button', { name: FR.deleteYes }).click();
    await gaspard.page.locator('#account-note').getByText('Ton compte est supprimé : plus rien de toi ne reste ici.').waitFor({ timeout: 20_000 });
    expect(await area.isVisible()).toBe(false);
    expect(await sessionPlayer(gaspard)).toBeNull();

    await signIn(gaspard, email, 'second-mot-de-passe');
    await expect.poll(() => panelAlert(gaspard).textContent(), { timeout: 20_000 }).toMatch(/.+/);
    expect(await sessionPlayer(gaspard)).toBeNull();
    expect(gaspard.errors).toEqual([]);
  });

  it('a banned guest cannot come back: the open page, linking and the guest door are refused; unban lets the same guest back', async () => {
    const ban = await cli('players', 'ban', 'demo', odilePseudo, '--raison', 'Triche au morpion');
    expect(ban.code, ban.stderr).toBe(0);
    // The open page: its session is revoked; keeping the progress is refused and the page signs out.
    const area = account(odile);
    await area.getByLabel(FR.email, { exact: true }).fill('odile@example.test');
    await area.getByLabel(FR.newPassword).fill('mot-de-passe-odile');
    await area.getByRole('button', { name: FR.keepButton }).click();
    await odile.page.locator('#account-note').waitFor({ timeout: 20_000 });
    expect(await sessionPlayer(odile)).toBeNull();
    // The same device, "Jouer sans compte": refused, the panel says she is suspended.
    await login(odile).getByRole('button', { name: FR.guest }).click();
    await expect.poll(() => panelAlert(odile).textContent(), { timeout: 20_000 }).toMatch(/suspendu/i);
    expect(await sessionPlayer(odile)).toBeNull();

    const unban = await cli('players', 'unban', 'demo', odilePseudo);
    expect(unban.code, unban.stderr).toBe(0);
    expect(await playAsGuest(odile)).toBe(odilePseudo);
    expect(odile.errors).toEqual([]);
  });

  it('a banned account cannot come back: sign-in and password reset are refused with the end date; unban lets it back', async () => {
    const rita = await openDemo(FR.locale);
    await login(rita).getByRole('button', { name: FR.signUp }).click();
    await login(rita).getByLabel(FR.pseudo, { exact: true }).fill('rita');
    await login(rita).getByLabel(FR.email, { exact: true }).fill('rita@example.test');
    await login(rita).getByLabel(FR.newPassword).fill('mot-de-passe-rita');
    await login(rita).getByRole('button', { name: FR.create }).click();
    await login(rita).getByText(`${FR.signedIn} rita`).waitFor({ timeout: 20_000 });
    const ritaId = (await sessionPlayer(rita))!.id;

    const ban = await cli('players', 'ban', 'demo', 'rita@example.test', '--jusqu-a', '2030-01-01T00:00:00Z', '--raison', 'Insultes');
    expect(ban.code, ban.stderr).toBe(0);
    // Her page: the next call is refused, the session ends.
    await rita.page.reload();
    await login(rita).getByLabel(FR.identifiant).waitFor({ timeout: 20_000 });
    expect(await sessionPlayer(rita)).toBeNull();
    await signIn(rita, 'rita@example.test', 'mot-de-passe-rita');
    await expect.poll(() => panelAlert(rita).textContent(), { timeout: 20_000 }).toMatch(/suspendu.*2030/i);
    expect(await sessionPlayer(rita)).toBeNull();

    const unban = await cli('players', 'unban', 'demo', 'rita');
    expect(unban.code, unban.stderr).toBe(0);
    await signIn(rita, 'rita', 'mot-de-passe-rita');
    await login(rita).getByText(`${FR.signedIn} rita`).waitFor({ timeout: 20_000 });
    expect((await sessionPlayer(rita))!.id).toBe(ritaId);
    expect(rita.errors).toEqual([]);
  });

  it('the account area in English, desktop and phone', async () => {
    for (const [viewport, name] of [[DESKTOP, 'demo-account-en'], [PHONE, 'demo-account-phone-en']] as const) {
      const p = await openDemo(EN.locale, viewport);
      await playAsGuest(p, EN);
      await account(p).getByRole('heading', { name: EN.keep }).waitFor();
      await shot(p, name, viewport === PHONE ? account(p) : undefined);
      if (viewport === DESKTOP) {
        await account(p).getByRole('button', { name: EN.deleteButton }).click();
        await shot(p, 'demo-account-delete-en', account(p));
      }
      expect(p.errors).toEqual([]);
    }
  });
});
