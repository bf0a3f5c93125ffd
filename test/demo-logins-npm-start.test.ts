// `npm start` on the embedded default plays the platforms the demo's game file declares, as a
// newcomer meets them (docs/accounts.md):
// - Steam: the twin's Steam stand-in runs beside the API (the banner names it), and the demo
//   signs in with a test ticket ("Signing in to npm start's demo with a test Steam ticket"):
//   by the API (a ticket signs in once) and in Chromium by the login panel's Steam button,
//   which the page answers with a test ticket of a SteamID kept in that browser.
// - Supabase Auth: the twin's Supabase Auth runs beside it (the banner names it,
//   MANETTE_SUPABASE_AUTH_URL is set for the API), /demo/jeu.json names the project URL, and
//   in Chromium the panel's Supabase button opens the page's sign-in, where supabase-js (served
//   by the API) creates an account and signs in; the SDK's auth.fromSupabase turns the session
//   into a Manette player: the same player after a reload and after signing out and in again,
//   a new one after the account is deleted (confirmed by a fresh Supabase token).
// Screenshots (desktop and phone, English and French) go to SCREENSHOT_DIR.
import type { ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { freePort } from './support/net.js';
import { npmStart } from './support/npm-start.js';
import { stackProcessesOf, until } from './support/local-procs.js';
import { haveBrowser, launchBrowser, SCREENSHOT_DIR, warnIfNoBrowser } from './support/browser.js';

warnIfNoBrowser('demo-logins-npm-start');
let root: string;
let dataDir: string;
let env: NodeJS.ProcessEnv;
const started: ChildProcess[] = [];
let proc: ChildProcess;
let out: () => string;
let demoLink: string;
let key: string;
let api: string;
let browser: Browser | undefined;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'manette-logins-start-'));
  await chmod(root, 0o755); // as root, Postgres runs as the `postgres` user and must reach it
  dataDir = path.join(root, 'data');
  env = {
    ...process.env,
    PORT: String(await freePort()),
    MANETTE_PG_PORT: String(await freePort()),
    MANETTE_REALTIME_PORT: '0',
    MANETTE_SUPABASE_AUTH_PORT: '0',
    MANETTE_DATA_DIR: dataDir,
    MANETTE_WORKERS: '1',
    LOG_LEVEL: 'warn',
    LANG: 'en_US.UTF-8',
    LC_ALL: '',
  };
  // A newcomer's shell: nothing of Steam or Supabase Auth set.
  for (const name of ['DATABASE_URL', 'MANETTE_STEAM_API_URL', 'MANETTE_STEAM_PUBLISHER_KEY', 'MANETTE_STEAM_PUBLISHER_KEYS', 'MANETTE_SUPABASE_AUTH_URL']) delete env[name];
  ({ proc, out } = await npmStart(env, started));
  demoLink = /(http:\/\/\S+\/demo\/\?key=sk_live_\w+)/.exec(out())![1]!;
  key = new URL(demoLink).searchParams.get('key')!;
  api = `http://127.0.0.1:${env.PORT}/api/public/v1`;
  if (haveBrowser) browser = await launchBrowser();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  if (proc && proc.exitCode === null) {
    const exited = new Promise((r) => proc.once('exit', r));
    process.kill(-proc.pid!, 'SIGINT');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
  }
  for (const p of started) try { process.kill(-p.pid!, 'SIGKILL'); } catch { /* gone */ }
  if (!(await until(() => stackProcessesOf(dataDir).length === 0, 20_000))) {
    for (const pid of stackProcessesOf(dataDir)) try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
  }
  await rm(root, { recursive: true, force: true });
});

type Errors = Page & { errors: string[] };
async function demoPage(locale: string, viewport = { width: 1280, height: 860 }): Promise<Errors> {
  const ctx = await browser!.newContext({ locale, viewport });
  const page = await ctx.newPage() as Errors;
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  await page.goto(demoLink);
  return page;
}
/** A new page whose player plays as a guest, on the login panel's link view. */
async function guestOnLinkView(): Promise<{ page: Errors; panel: ReturnType<Page['locator']>; guest: { id: string } }> {
  const page = await demoPage('en-US');
  const panel = page.locator('manette-login');
  await panel.getByRole('button', { name: 'Play without an account' }).click();
  await panel.getByText('Playing as a guest').waitFor({ timeout: 20_000 });
  const guest = (await who(page))!;
  await panel.getByRole('button', { name: 'Link an account' }).click();
  return { page, panel, guest };
}
const who = (page: Page) => page.evaluate(() => (window as any).Manette.lastClient().auth.player as { id: string; pseudo: string } | null);

describe('npm start plays the demo\'s platforms', () => {
  it('Steam: runs the stand-in; the demo signs in with a test ticket, once per ticket, by the API and by its login panel', async () => {
    const steamUrl = /Steam\s+(http:\/\/127\.0\.0\.1:\d+)\s/.exec(out())?.[1];
    expect(steamUrl, out()).toBeDefined();
    const login = (ticket: string) => fetch(`${api}/players/login/steam`, {
      method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ ticket }),
    });
    const { ticket } = await (await fetch(`${steamUrl}/test-ticket?steamid=76561197960287930`)).json() as { ticket: string };
    const first = await login(ticket);
    expect(first.status).toBe(200);
    const joueur = (await first.json()).data.joueur;
    // The docs' one-liner: the hex of manette-test-ticket:<SteamID64>:<anything>.
    const hex = (s: string) => Buffer.from(s).toString('hex');
    const second = await login(hex(`manette-test-ticket:76561197960287930:${Date.now()}`));
    expect((await second.json()).data.joueur.id).toBe(joueur.id);
    expect((await login(ticket)).status).toBe(401);

    if (!browser) return;
    const page = await demoPage('en-US');
    const panel = page.locator('manette-login');
    const steam = panel.locator('button[data-fournisseur="steam"]');
    await steam.click();
    const signedIn = panel.getByText('Signed in as');
    await signedIn.waitFor({ timeout: 20_000 });
    const steamPlayer = (await who(page))!;
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'demo-steam.png') });
    // Signed out, then Steam again: the same SteamID, so the same player.
    await panel.getByRole('button', { name: 'Sign out' }).click();
    await steam.click();
    await signedIn.waitFor({ timeout: 20_000 });
    expect((await who(page))!.id).toBe(steamPlayer.id);
    expect(steamPlayer.id).not.toBe(joueur.id);
    // Its account has no password: the deletion is confirmed by a fresh Steam ticket.
    await page.locator('#delete').click();
    await expect.poll(() => page.locator('#delete-text').textContent()).toContain('Your Steam account confirms it');
    expect(await page.locator('#delete-password-box').isHidden()).toBe(true);
    await page.locator('#delete-form button[type="submit"]').click();
    await page.locator('#account-note').getByText('Your account is deleted').waitFor({ timeout: 20_000 });
    expect(await who(page)).toBeNull();
    await steam.click();
    await signedIn.waitFor({ timeout: 20_000 });
    expect((await who(page))!.id).not.toBe(steamPlayer.id);
    expect(page.errors).toEqual([]);
    await page.context().close();

    // A guest links Steam from the panel's link view: the same player, no longer a guest.
    const { page: other, panel: otherPanel, guest } = await guestOnLinkView();
    await otherPanel.locator('button[data-fournisseur="steam"]').click();
    await otherPanel.getByText('Account linked').waitFor({ timeout: 20_000 });
    const linked = await other.evaluate(() => (window as any).Manette.lastClient().auth.player as { id: string; invite: boolean });
    expect(linked).toMatchObject({ id: guest.id, invite: false });
    expect(other.errors).toEqual([]);
    await other.context().close();
  }, 120_000);

  it('Supabase Auth: runs the stand-in; the demo creates an account, signs in with its session, keeps the player, deletes it', async () => {
    const authUrl = /Auth\s+(http:\/\/127\.0\.0\.1:\d+\/auth\/v1)\s/.exec(out())?.[1];
    expect(authUrl, out()).toBeDefined();
    const origin = authUrl!.replace(/\/auth\/v1$/, '');
    // The page learns the project URL and the provider from jeu.json, and gets supabase-js here.
    const described = await (await fetch(`${new URL(demoLink).origin}/demo/jeu.json`, { headers: { 'x-api-key': key } })).json();
    expect(described.supabase).toEqual({ fournisseur: 'supabase', url: origin });
    const script = await fetch(`${new URL(demoLink).origin}/demo/vendor/supabase.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    expect(await script.text()).toContain('createClient');

    if (!browser) return;
    const page = await demoPage('en-US');
    const panel = page.locator('manette-login');
    const button = panel.locator('button[data-fournisseur="supabase"]');
    expect(await button.textContent()).toContain('Supabase');
    await button.click();
    const dialog = page.locator('#supabase-dialog');
    await dialog.getByRole('heading', { name: 'Supabase account' }).waitFor();
    const stamp = String(Date.now()).slice(-6);
    const email = `ada-${stamp}@studio.test`;
    await page.fill('#supabase-email', email);
    // Supabase Auth's own rules answer, in the page's language.
    await page.fill('#supabase-password', 'court');
    await dialog.getByRole('button', { name: 'Create the account' }).click();
    await page.fill('#supabase-name', `Ada ${stamp}`);
    await dialog.getByText('The password needs at least 6 characters.').waitFor({ timeout: 20_000 });
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'demo-supabase-en.png') });
    await page.fill('#supabase-password', 'mot-de-passe-ada');
    await dialog.getByRole('button', { name: 'Create the account' }).click();
    const signedIn = panel.getByText('Signed in as');
    await signedIn.waitFor({ timeout: 20_000 });
    expect(await dialog.isVisible()).toBe(false);
    const ada = (await who(page))!;
    // Named after the Supabase user's full_name.
    expect(ada.pseudo).toBe(`Ada_${stamp}`);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'demo-supabase-signed-in-en.png') });

    // The server knows the player by that Supabase user: its export names the identity.
    const exported = await page.evaluate(() => (window as any).Manette.lastClient().auth.exportData());
    expect(JSON.stringify(exported)).toContain(authUrl);

    // A reload: the same player, no second sign-in needed.
    await page.reload();
    await signedIn.waitFor({ timeout: 20_000 });
    expect((await who(page))!.id).toBe(ada.id);

    // Signed out with the panel: out of Supabase too (a reload stays signed out).
    await panel.getByRole('button', { name: 'Sign out' }).click();
    await button.waitFor();
    await expect.poll(() => page.evaluate(() => localStorage.getItem('manette-demo:supabase'))).toBeNull();
    await page.reload();
    await button.waitFor();
    expect(await who(page)).toBeNull();

    // A wrong password, then the right one: the same player as before.
    await button.click();
    await page.fill('#supabase-email', email);
    await page.fill('#supabase-password', 'pas-le-bon');
    await dialog.getByRole('button', { name: 'Sign in' }).click();
    await dialog.getByText('Wrong e-mail address or password.').waitFor({ timeout: 20_000 });
    await page.fill('#supabase-password', 'mot-de-passe-ada');
    await dialog.getByRole('button', { name: 'Sign in' }).click();
    await signedIn.waitFor({ timeout: 20_000 });
    expect((await who(page))!.id).toBe(ada.id);

    // Deleting the account: confirmed by a fresh Supabase token (no password asked); the same
    // Supabase account then makes a new player.
    await page.locator('#delete').click();
    await expect.poll(() => page.locator('#delete-text').textContent()).toContain('Your Supabase account confirms it');
    await page.locator('#delete-form button[type="submit"]').click();
    await page.locator('#account-note').getByText('Your account is deleted').waitFor({ timeout: 20_000 });
    expect(await who(page)).toBeNull();
    await button.click();
    await page.fill('#supabase-email', email);
    await page.fill('#supabase-password', 'mot-de-passe-ada');
    await dialog.getByRole('button', { name: 'Sign in' }).click();
    await signedIn.waitFor({ timeout: 20_000 });
    expect((await who(page))!.id).not.toBe(ada.id);
    expect(page.errors).toEqual([]);
    await page.context().close();

    // A guest links a new Supabase account from the link view: the same player, followed since.
    const { page: guestPage, panel: guestPanel, guest } = await guestOnLinkView();
    await guestPanel.locator('button[data-fournisseur="supabase"]').click();
    await guestPage.fill('#supabase-email', `grace-${stamp}@studio.test`);
    await guestPage.fill('#supabase-password', 'mot-de-passe-grace');
    await guestPage.locator('#supabase-dialog').getByRole('button', { name: 'Create the account' }).click();
    await guestPanel.getByText('Signed in as').waitFor({ timeout: 20_000 });
    await expect.poll(async () => (await who(guestPage))?.id).toBe(guest.id);
    await guestPage.reload();
    await guestPanel.getByText('Signed in as').waitFor({ timeout: 20_000 });
    expect((await who(guestPage))!.id).toBe(guest.id);
    expect(guestPage.errors).toEqual([]);
    await guestPage.context().close();

    // French, on a phone: the dialog in the page's language.
    const phone = await demoPage('fr-FR', { width: 390, height: 844 });
    await phone.locator('manette-login button[data-fournisseur="supabase"]').click();
    await phone.locator('#supabase-dialog').getByRole('heading', { name: 'Compte Supabase' }).waitFor();
    await phone.fill('#supabase-email', email);
    await phone.screenshot({ path: path.join(SCREENSHOT_DIR, 'demo-supabase-fr-phone.png') });
    await phone.fill('#supabase-password', 'mot-de-passe-ada');
    await phone.locator('#supabase-dialog').getByRole('button', { name: 'Se connecter' }).click();
    await phone.locator('manette-login').getByText('Connecté').waitFor({ timeout: 20_000 });
    await phone.screenshot({ path: path.join(SCREENSHOT_DIR, 'demo-supabase-signed-in-fr-phone.png') });
    expect(phone.errors).toEqual([]);
    await phone.context().close();
  }, 180_000);
});
