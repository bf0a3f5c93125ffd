// Issue 23's "done when", as a newcomer lives it: a clean copy of the repository (the files
// a clone has: no .manette, no sdk/dist), `npm start` in it on its embedded database and
// without MANETTE_SMTP_URL (so mail goes to the twin's loopback catcher, which prints it in
// the terminal), the demo page in Chromium. A player plays the demo as a guest (wins a
// match, buys a potion), links an e-mail in the login panel, signs out, uses "Mot de passe
// oublié ?", reads the code in the mail `npm start` printed, resets the password, signs in
// with it (the same player), exports their data from the page's account area (the file has
// what they did) and deletes the account (signing in is then refused). Then the studio bans
// two players with the real CLI against that running instance: a guest (the session she
// had is refused, for linking too; her page signs out; "Jouer sans compte" on the same
// device is refused) and an account with an e-mail (signing in and resetting the password
// are refused, the end date named); after `unban` both come back, as the same players.
// Screenshots of the account area (desktop and phone, French and English).
// Nothing asserts how long anything took.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { freePort } from './support/net.js';
import { cleanCopy } from './support/clean-copy.js';
import { stopStarted } from './support/npm-start.js';
import { haveBrowser, launchBrowser, SCREENSHOT_DIR, warnIfNoBrowser } from './support/browser.js';

warnIfNoBrowser('accounts-done-when');
const run = promisify(execFile);
const DESKTOP = { width: 1280, height: 860 };
const PHONE = { width: 375, height: 740 };

// The demo's and the panels' texts, as the player reads them.
const FR = {
  locale: 'fr-FR', guest: 'Jouer sans compte', asGuest: 'Tu joues en invité :', signedIn: 'Connecté en tant que', signOut: 'Se déconnecter',
  identifiant: 'Pseudo ou e-mail', password: 'Mot de passe', signIn: 'Se connecter',
  play: 'Jouer', mine: 'À toi de jouer !', won: 'Tu as gagné !', buyPotion: 'Acheter Potion pour 30 Or',
  signUp: 'Pas encore de compte ? Inscris-toi', pseudo: 'Pseudo', email: 'E-mail', newPassword: 'Mot de passe (8 caractères au moins)', create: 'Créer mon compte',
  link: 'Lier un compte', linkPseudo: 'Pseudo (facultatif)', linkButton: 'Lier mon compte', linked: 'Compte lié : ta progression est gardée.',
  forgot: 'Mot de passe oublié ?', getCode: 'Recevoir un code', code: 'Code reçu par e-mail (8 chiffres)',
  resetPassword: 'Nouveau mot de passe (8 caractères au moins)', resetButton: 'Changer le mot de passe',
  resetDone: 'Mot de passe changé. Connecte-toi avec le nouveau.',
  account: 'Ton compte', exportButton: 'Exporter mes données', deleteButton: 'Supprimer mon compte', deleteYes: 'Supprimer pour de bon',
};
const EN = { locale: 'en-US', guest: 'Play without an account', asGuest: 'Playing as a guest:', account: 'Your account', deleteButton: 'Delete my account' };

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
  dir = await cleanCopy('accounts');
  expect(existsSync(path.join(dir, '.manette'))).toBe(false);
  expect(existsSync(path.join(dir, 'sdk', 'dist'))).toBe(false);

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
  await stopStarted(started);
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

const demoKey = () => new URL(demoLink).searchParams.get('key')!;
const apiBase = () => `${new URL(demoLink).origin}/api/public/v1`;
const login = (p: Player) => p.page.locator('manette-login');
const account = (p: Player) => p.page.locator('#account');

/** "Jouer sans compte" in the login panel; resolves with the guest's pseudo. */
async function playAsGuest(p: Player, L: { guest: string; asGuest: string } = FR): Promise<string> {
  await login(p).getByRole('button', { name: L.guest }).click();
  const signed = login(p).getByText(new RegExp(`^${L.asGuest} invite_\\d{6}$`));
  await signed.waitFor({ timeout: 20_000 });
  return (await signed.textContent())!.slice(L.asGuest.length + 1);
}

/** The session the page holds (the SDK keeps it in localStorage, per game): its token and player. */
async function session(p: Player): Promise<{ token: string; joueur: { id: string; pseudo: string; email: string | null; invite?: boolean } } | null> {
  return p.page.evaluate(() => {
    for (let i = 0; i < localStorage.length; i++) {
      const k = localStorage.key(i)!;
      if (/^manette\.session\.[^.]+$/.test(k)) return JSON.parse(localStorage.getItem(k)!);
    }
    return null;
  });
}
const sessionPlayer = async (p: Player) => (await session(p))?.joueur ?? null;

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
  let gaspard: Player;       // plays as a guest, links an e-mail, resets the password, exports, deletes
  let odile: Player;         // a guest on a phone, later banned
  let guestId: string;
  let odilePseudo: string;
  let gaspardCases: number[];   // the squares gaspard played
  const email = 'gaspard@example.test';

  it('two players play the demo as guests; the winner buys a potion; the account area shows', async () => {
    expect(manette.out()).toContain('Postgres embarqué');
    // No SMTP server: the banner says where the mails go.
    expect(manette.out()).toMatch(/Courriels\s+smtp:\/\/127\.0\.0\.1:\d+\s+\(capteur local/);
    gaspard = await openDemo(FR.locale);
    odile = await openDemo(FR.locale, PHONE);
    const gPseudo = await playAsGuest(gaspard);
    odilePseudo = await playAsGuest(odile);
    expect(await sessionPlayer(gaspard)).toMatchObject({ pseudo: gPseudo, email: null, invite: true });
    guestId = (await sessionPlayer(gaspard))!.id;

    // Signed in as a guest: the account area, with what a player may ask of their data.
    for (const p of [gaspard, odile]) {
      await account(p).getByRole('heading', { name: FR.account }).waitFor();
      expect(await account(p).getByRole('button', { name: FR.exportButton }).isVisible()).toBe(true);
      expect(await account(p).getByRole('button', { name: FR.deleteButton }).isVisible()).toBe(true);
    }

    // A match: gaspard (desktop) wins, whoever plays first.
    for (const p of [gaspard, odile]) await p.page.locator('manette-matchmaking').getByRole('button', { name: FR.play }).click();
    for (const p of [gaspard, odile]) await p.page.locator('#match').waitFor({ state: 'visible', timeout: 30_000 });
    const turnOf = (p: Player) => p.page.locator('#turn').textContent();
    await expect.poll(async () => [await turnOf(gaspard), await turnOf(odile)].filter((t) => t === FR.mine).length, { timeout: 20_000 }).toBe(1);
    const gFirst = (await turnOf(gaspard)) === FR.mine;
    const [first, second] = gFirst ? [gaspard, odile] : [odile, gaspard];
    gaspardCases = gFirst ? [0, 1, 2] : [3, 4, 5];
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

  it('the guest links an e-mail in the login panel: the same player, now an account', async () => {
    const panel = login(gaspard);
    await panel.getByRole('button', { name: FR.link }).click();
    await panel.getByLabel(FR.linkPseudo).fill('gaspard');
    await panel.getByLabel(FR.email, { exact: true }).fill(email);
    await panel.getByLabel(FR.newPassword).fill('premier-mot-de-passe');
    await panel.getByRole('button', { name: FR.linkButton }).click();
    await panel.getByText(FR.linked).waitFor({ timeout: 20_000 });
    await panel.getByText(`${FR.signedIn} gaspard`).waitFor();
    expect(await sessionPlayer(gaspard)).toMatchObject({ id: guestId, pseudo: 'gaspard', email, invite: false });
    // The account area stays, for the same player.
    expect(await account(gaspard).isVisible()).toBe(true);
  });

  it('forgets the password: the code is in the mail npm start prints; the new password signs the same player in', async () => {
    const panel = login(gaspard);
    await panel.getByRole('button', { name: FR.signOut }).click();
    await account(gaspard).waitFor({ state: 'hidden' });
    const since = manette.out().length;
    await panel.getByRole('button', { name: FR.forgot }).click();
    await panel.getByLabel(FR.email, { exact: true }).fill(email);
    await panel.getByRole('button', { name: FR.getCode }).click();

    // The mail, printed by the local catcher in the terminal of `npm start`.
    await expect.poll(() => mailCode(email, since), { timeout: 30_000 }).toMatch(/^\d{8}$/);
    const mail = manette.out().slice(since);
    expect(mail).toContain(`Courriel pour ${email}`);
    expect(mail).toContain('Objet : Démo : ton code pour changer de mot de passe');
    expect(mail).toContain('Bonjour gaspard,');

    await panel.getByLabel(FR.code).fill(mailCode(email, since)!);
    await panel.getByLabel(FR.resetPassword).fill('second-mot-de-passe');
    await panel.getByRole('button', { name: FR.resetButton }).click();
    await panel.getByText(FR.resetDone).waitFor({ timeout: 20_000 });
    // Back to sign in, the e-mail filled in: the old password is refused, the new one works.
    expect(await panel.getByLabel(FR.identifiant).inputValue()).toBe(email);
    await signIn(gaspard, email, 'premier-mot-de-passe');
    await expect.poll(() => panelAlert(gaspard).textContent(), { timeout: 20_000 }).toMatch(/.+/);
    expect(await session(gaspard)).toBeNull();
    await signIn(gaspard, email, 'second-mot-de-passe');
    await panel.getByText(`${FR.signedIn} gaspard`).waitFor({ timeout: 20_000 });
    expect((await sessionPlayer(gaspard))!.id).toBe(guestId);
  });

  it('exports their data: the downloaded file has their match, gold, potion, win and the reset', async () => {
    const download = gaspard.page.waitForEvent('download');
    await account(gaspard).getByRole('button', { name: FR.exportButton }).click();
    const file = await download;
    expect(file.suggestedFilename()).toBe('mes-donnees-gaspard.json');
    const data = JSON.parse(await readFile((await file.path())!, 'utf8'));
    await expect.poll(() => account(gaspard).getByRole('status').textContent()).toBe('Tes données sont téléchargées (mes-donnees-gaspard.json).');
    expect(data.joueur).toMatchObject({ id: guestId, pseudo: 'gaspard', email, invite: false });
    // The match they won as a guest, with their moves.
    expect(data.parties).toHaveLength(1);
    expect(data.parties[0]).toMatchObject({ mode_jeu: '1v1', statut: 'terminee', gagnant_id: guestId });
    expect((data.parties[0].actions as { action: string; donnees: { case?: number } }[]).map((a) => [a.action, a.donnees.case]))
      .toEqual(gaspardCases.map((c) => ['jouer', c]));
    expect(data.scores).toEqual([expect.objectContaining({ classement: 'victoires', valeur: 1 })]);
    expect(data.economie.portefeuille).toEqual([expect.objectContaining({ code: 'or', solde: 20 })]);
    expect(data.economie.inventaire).toEqual([expect.objectContaining({ code: 'potion', quantite: 1 })]);
    expect(data.reinitialisations).toHaveLength(1);
    expect(data.reinitialisations[0].utilise_le).toEqual(expect.any(String));
  });

  it('deletes the account: a wrong password changes nothing; then signing in is refused', async () => {
    const area = account(gaspard);
    await area.getByRole('button', { name: FR.deleteButton }).click();
    await area.getByLabel(FR.password, { exact: true }).fill('pas-le-bon-mot-de-passe');
    await shot(gaspard, 'demo-account-delete', area);
    await area.getByRole('button', { name: FR.deleteYes }).click();
    await expect.poll(() => area.getByRole('alert').textContent(), { timeout: 20_000 }).toBe('Identifiant ou mot de passe incorrect.');
    expect((await sessionPlayer(gaspard))?.id).toBe(guestId);

    await area.getByLabel(FR.password, { exact: true }).fill('second-mot-de-passe');
    await area.getByRole('button', { name: FR.deleteYes }).click();
    await gaspard.page.locator('#account-note').getByText('Ton compte est supprimé : plus rien de toi ne reste ici.').waitFor({ timeout: 20_000 });
    expect(await area.isVisible()).toBe(false);
    expect(await session(gaspard)).toBeNull();

    await signIn(gaspard, email, 'second-mot-de-passe');
    await expect.poll(() => panelAlert(gaspard).textContent(), { timeout: 20_000 }).toMatch(/.+/);
    expect(await session(gaspard)).toBeNull();
    // What support sees: the player is gone.
    const found = await cli('players', 'find', 'demo', email);
    expect(found.code).not.toBe(0);
    expect(gaspard.errors).toEqual([]);
  });

  it('a banned guest cannot come back: the session, linking and the guest door are refused; unban lets the same guest back', async () => {
    const before = (await session(odile))!;
    const ban = await cli('players', 'ban', 'demo', odilePseudo, '--raison', 'Triche au morpion');
    expect(ban.code, ban.stderr).toBe(0);
    expect(ban.body).toMatchObject({ ok: true, data: { id: before.joueur.id } });

    // The session she had is refused, for linking too; nothing changes.
    const lier = await fetch(`${apiBase()}/players/lier`, {
      method: 'POST', headers: { 'x-api-key': demoKey(), 'x-player-token': before.token, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'odile@example.test', password: 'mot-de-passe-odile' }),
    });
    expect(lier.status).toBe(401);
    expect((await lier.json()).error).toBe('invalid_token');
    // Her page finds out at its next call, and signs out.
    await odile.page.reload();
    await login(odile).getByRole('button', { name: FR.guest }).waitFor({ timeout: 20_000 });
    expect(await session(odile)).toBeNull();
    // The same device, "Jouer sans compte": refused, the panel says why.
    await login(odile).getByRole('button', { name: FR.guest }).click();
    await expect.poll(() => panelAlert(odile).textContent(), { timeout: 20_000 }).toBe('Ce compte est suspendu.');
    expect(await session(odile)).toBeNull();
    const found = await cli('players', 'find', 'demo', odilePseudo);
    expect(found.body.data).toMatchObject({ id: before.joueur.id, email: null });

    const unban = await cli('players', 'unban', 'demo', odilePseudo);
    expect(unban.code, unban.stderr).toBe(0);
    expect(await playAsGuest(odile)).toBe(odilePseudo);
    expect((await sessionPlayer(odile))!.id).toBe(before.joueur.id);
    expect(odile.errors).toEqual([]);
  });

  it('a banned account cannot come back: signing in and resetting the password are refused, the end date named; unban lets it back', async () => {
    const rita = await openDemo(FR.locale);
    const panel = login(rita);
    await panel.getByRole('button', { name: FR.signUp }).click();
    await panel.getByLabel(FR.pseudo, { exact: true }).fill('rita');
    await panel.getByLabel(FR.email, { exact: true }).fill('rita@example.test');
    await panel.getByLabel(FR.newPassword).fill('mot-de-passe-rita');
    await panel.getByRole('button', { name: FR.create }).click();
    await panel.getByText(`${FR.signedIn} rita`).waitFor({ timeout: 20_000 });
    const ritaId = (await sessionPlayer(rita))!.id;

    const ban = await cli('players', 'ban', 'demo', 'rita@example.test', '--jusqu-a', '2030-01-01', '--raison', 'Insultes');
    expect(ban.code, ban.stderr).toBe(0);
    // Her page: its next call is refused, the session ends.
    await rita.page.reload();
    await panel.getByLabel(FR.identifiant).waitFor({ timeout: 20_000 });
    expect(await session(rita)).toBeNull();
    // Sign in: refused, until the date the studio chose.
    await signIn(rita, 'rita@example.test', 'mot-de-passe-rita');
    await expect.poll(() => panelAlert(rita).textContent(), { timeout: 20_000 }).toBe('Ce compte est suspendu jusqu’au 1 janvier 2030 à 00:00 UTC.');
    expect(await session(rita)).toBeNull();
    // A password reset: the code arrives, the reset is refused.
    const since = manette.out().length;
    await panel.getByRole('button', { name: FR.forgot }).click();
    await panel.getByLabel(FR.email, { exact: true }).fill('rita@example.test');
    await panel.getByRole('button', { name: FR.getCode }).click();
    await expect.poll(() => mailCode('rita@example.test', since), { timeout: 30_000 }).toMatch(/^\d{8}$/);
    await panel.getByLabel(FR.code).fill(mailCode('rita@example.test', since)!);
    await panel.getByLabel(FR.resetPassword).fill('autre-mot-de-passe');
    await panel.getByRole('button', { name: FR.resetButton }).click();
    await expect.poll(() => panelAlert(rita).textContent(), { timeout: 20_000 }).toMatch(/^Ce compte est suspendu jusqu’au 1 janvier 2030/);
    await shot(rita, 'demo-banned', panel);

    const unban = await cli('players', 'unban', 'demo', 'rita');
    expect(unban.code, unban.stderr).toBe(0);
    await panel.getByRole('button', { name: /Retour à la connexion/ }).click();
    await signIn(rita, 'rita', 'mot-de-passe-rita');
    await panel.getByText(`${FR.signedIn} rita`).waitFor({ timeout: 20_000 });
    expect((await sessionPlayer(rita))!.id).toBe(ritaId);
    expect(rita.errors).toEqual([]);
  });

  it('the account area in English, desktop and phone', async () => {
    for (const [viewport, name] of [[DESKTOP, 'demo-account-en'], [PHONE, 'demo-account-phone-en']] as const) {
      const p = await openDemo(EN.locale, viewport);
      await playAsGuest(p, EN);
      await account(p).getByRole('heading', { name: EN.account }).waitFor();
      await shot(p, name, viewport === PHONE ? account(p) : undefined);
      if (viewport === DESKTOP) {
        await account(p).getByRole('button', { name: EN.deleteButton }).click();
        await shot(p, 'demo-account-delete-en', account(p));
      }
      expect(p.errors).toEqual([]);
    }
  });
});
