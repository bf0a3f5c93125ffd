// Bans in the studio console (console/server/routes/players.ts, console/web/pages/players.tsx):
// the ban and unban endpoints call manette_admin.players_ban / players_unban as the CLI does
// (audited with the operator "... (console)"), bad input gets the envelope and changes
// nothing; then the Players page in Chromium: a ban clicked through (reason, end date), the
// API refusing the player, the suspension shown in the list and on the page, an unban
// clicked through; screenshots at desktop and phone widths, English and French
// (UPDATE_SCREENSHOTS=1 writes them to docs/img).
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { client, startTestApp, type TestApp } from './support/harness.js';
import { startTestConsole, type TestConsole } from './support/console.js';
import { haveBrowser, launchBrowser, SCREENSHOT_DIR, warnIfNoBrowser } from './support/browser.js';

let app: TestApp;
let con: TestConsole;
let s: Awaited<ReturnType<TestConsole['session']>>;
let key: string;
const GAME = { modes: { '1v1': { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', elo_ecart_initial: 10000 } } };

beforeAll(async () => {
  app = await startTestApp();
  key = await app.applyGame({ jeu: 'cban', nom: 'Bans', ...GAME });
  con = await startTestConsole({ databaseUrl: app.databaseUrl });
  s = await con.session();
});
afterAll(async () => {
  await con?.close();
  await app?.close();
});

const web = () => client(app.baseUrl, key);
const post = async (p: string, body: unknown = {}, headers: Record<string, string> = {}) => {
  const r = await s.fetch(`/api${p}`, { method: 'POST', body: JSON.stringify(body), headers });
  return { status: r.status, body: await r.json() as any };
};
const get = async (p: string) => { const r = await s.fetch(`/api${p}`); return { status: r.status, body: await r.json() as any }; };
const lastAudit = async () => (await app.sql<{ command: string; details: any; operator: string }>(
  'select command, details, operator from manette.admin_audit order by id desc limit 1'))[0]!;
const login = (identifiant: string) => web().post('/players/login', { identifiant, password: 'motdepasse-solide' });
/** What bad input must leave alone: players, sessions and the audit trail. */
const snapshot = () => app.sql(`select (select jsonb_agg(jsonb_build_object('id', p.id, 'a', p.suspended_at, 'u', p.suspended_until,
    'r', p.suspension_reason) order by p.id) from manette.players p) as players,
  (select jsonb_agg(x order by x.token_hash) from manette.sessions x) as sessions, (select count(*) from manette.admin_audit) as audits`);

describe('ban and unban endpoints', () => {
  it('ban: as the CLI (sessions revoked, audited by the console operator); the page shows it; unban', async () => {
    const ana = await web().register('Ana');
    const r = await post(`/games/cban/players/${ana.data.joueur.id}/ban`, { raison: 'triche', jusqu_a: '2099-06-15T18:30:00Z' });
    expect(r).toMatchObject({ status: 200, body: { ok: true, data: {
      id: ana.data.joueur.id, pseudo: 'Ana', jusqu_a: '2099-06-15T18:30:00.000Z', raison: 'triche', sessions_revoquees: 1, parties_abandonnees: 0 } } });
    expect((await web().get('/players/me', { token: ana.token })).status).toBe(401);
    expect((await login('ana')).body).toMatchObject({ error: 'compte_suspendu', jusqu_a: '2099-06-15T18:30:00.000Z' });
    expect(await lastAudit()).toMatchObject({ command: 'players ban', operator: expect.stringMatching(/ \(console\)$/),
      details: { joueur_id: ana.data.joueur.id, raison: 'triche', jusqu_a: '2099-06-15T18:30:00.000Z' } });

    const page = await get(`/games/cban/players/${ana.data.joueur.id}`);
    expect(page.body.data.suspension).toEqual({ depuis: expect.any(String), jusqu_a: '2099-06-15T18:30:00.000Z', raison: 'triche' });
    const list = await get('/games/cban/players?q=ana');
    expect(list.body.data.joueurs[0]).toMatchObject({ pseudo: 'Ana', suspension: { raison: 'triche' } });

    const u = await post(`/games/cban/players/${ana.data.joueur.id}/unban`);
    expect(u.body).toEqual({ ok: true, data: { id: ana.data.joueur.id, pseudo: 'Ana', etait_suspendu: true } });
    expect(await lastAudit()).toMatchObject({ command: 'players unban', operator: expect.stringMatching(/ \(console\)$/) });
    expect((await get(`/games/cban/players/${ana.data.joueur.id}`)).body.data.suspension).toBeNull();
    expect((await login('ana')).status).toBe(200);
  });

  it('bad input: the envelope, in the page’s language, and nothing changed', async () => {
    const bob = await web().register('Bob');
    const id = bob.data.joueur.id;
    const before = await snapshot();
    const cases: [Awaited<ReturnType<typeof post>>, number, string, string?][] = [
      [await post(`/games/cban/players/${id}/ban`, { raison: '   ' }), 400, 'validation_failed', 'raison'],
      [await post(`/games/cban/players/${id}/ban`, { raison: 'x', jusqu_a: '2020-01-01T00:00:00Z' }), 400, 'validation_failed', 'jusqu_a'],
      [await post(`/games/cban/players/${id}/ban`, { raison: 'x', jusqu_a: 'demain' }), 400, 'validation_failed', 'jusqu_a'],
      [await post(`/games/cban/players/${id}/ban`, { raison: 'x', jusqu_a: '2099-01-01T00:00:00' }), 400, 'validation_failed', 'jusqu_a'],
      [await post(`/games/cban/players/${id}/ban`, {}), 400, 'validation_failed', 'raison'],
      [await post(`/games/cban/players/${id}/ban`, { raison: 'x', autre: 1 }), 400, 'validation_failed'],
      [await post(`/games/cban/players/${id}/ban`, { raison: 'x'.repeat(1001) }), 400, 'validation_failed', 'raison'],
      [await post('/games/cban/players/00000000-0000-4000-8000-000000000000/ban', { raison: 'x' }), 404, 'player_not_found'],
      [await post(`/games/nope/players/${id}/ban`, { raison: 'x' }), 404, 'game_not_found'],
      [await post('/games/cban/players/00000000-0000-4000-8000-000000000000/unban'), 404, 'player_not_found'],
    ];
    for (const [r, status, error, champ] of cases) {
      expect(r.status, JSON.stringify(r.body)).toBe(status);
      expect(r.body).toMatchObject({ ok: false, error });
      if (champ) expect(r.body.details.map((d: { champ: string }) => d.champ)).toContain(champ);
    }
    const fr = await post(`/games/cban/players/${id}/ban`, { raison: 'x', jusqu_a: '2020-01-01T00:00:00Z' }, { 'x-console-lang': 'fr' });
    expect(fr.body).toMatchObject({ message: 'Certains champs sont invalides.', details: [{ champ: 'jusqu_a', message: 'date à venir attendue' }] });
    const en = await post(`/games/cban/players/${id}/ban`, { raison: ' ' }, { 'x-console-lang': 'en' });
    expect(en.body).toMatchObject({ message: 'Some fields are invalid.', details: [{ champ: 'raison', message: '1 to 1000 characters' }] });
    expect(await snapshot()).toEqual(before);
    // An unban of a player never suspended: nothing to lift, no audit row.
    expect((await post(`/games/cban/players/${id}/unban`)).body.data).toMatchObject({ etait_suspendu: false });
    expect(await snapshot()).toEqual(before);
  });
});

warnIfNoBrowser('console-bans.test.ts');
describe.skipIf(!haveBrowser)('the Players page in Chromium', () => {
  let browser: Browser;
  let zoe: { id: string; token: string };

  beforeAll(async () => {
    browser = await launchBrowser();
    const z = await web().register('Zoé', { email: 'zoe@example.test', pays: 'be' });
    const other = await web().register('Yanis', { pays: 'ca' });
    zoe = { id: z.data.joueur.id, token: z.token };
    await web().post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1000 }, { token: z.token });
    expect((await web().post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1000 }, { token: other.token })).body.status).toBe('matched');
  });
  afterAll(async () => { await browser?.close(); });

  /** A signed-in page at `hash` (the shell settled on its first game first, as console-players-keys does). */
  async function open(context: BrowserContext, hash: string, lang: 'en' | 'fr' = 'en'): Promise<Page> {
    const page = await con.open(context, '', lang);
    await page.waitForURL(/#\/[^/]+\/overview$/);
    await page.evaluate((h) => { location.hash = h; }, hash);
    await page.waitForURL((u) => u.hash === hash);
    return page;
  }
  const shoot = (page: Page, name: string) => page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });

  it('bans by clicking (reason, end date): the API refuses the player, the match is abandoned; unbans by clicking', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, timezoneId: 'UTC' });
    const page = await open(context, `#/cban/players/${zoe.id}`);
    const card = page.locator('section.card', { has: page.getByRole('heading', { name: /^Suspension/ }) });
    await card.getByText('not suspended').waitFor();
    await shoot(page, 'console-player-ban-form');
    const ban = card.getByRole('button', { name: 'Ban' });
    expect(await ban.isDisabled()).toBe(true); // no reason yet
    await card.getByLabel('Reason (kept in the audit trail)').fill('Triche : coups joués par un programme (ticket #42)');
    await card.getByLabel('Until (optional, local time)').fill('2099-06-15T18:30');
    await ban.click();
    await card.getByRole('button', { name: 'Really ban?' }).click();
    await card.getByText('Banned: 1 session(s) revoked, 1 match(es) abandoned.', { exact: false }).waitFor();
    await card.getByText('suspended', { exact: true }).waitFor();
    await card.getByText('Triche : coups joués par un programme (ticket #42)').waitFor();
    expect(await card.locator('dd').nth(1).textContent()).toBe(new Date('2099-06-15T18:30:00Z').toLocaleString('en-GB', { dateStyle: 'short', timeStyle: 'medium', timeZone: 'UTC' }));

    expect((await web().get('/players/me', { token: zoe.token })).status).toBe(401);
    expect((await login('zoe@example.test')).body).toMatchObject({ error: 'compte_suspendu', jusqu_a: '2099-06-15T18:30:00.000Z' });
    expect((await app.sql(`select m.status from manette.matches m join manette.match_players mp on mp.match_id = m.id
      where mp.player_id = $1`, [zoe.id]))[0]).toEqual({ status: 'terminee' });
    expect(await lastAudit()).toMatchObject({ command: 'players ban', operator: expect.stringMatching(/ \(console\)$/) });

    // The list marks the player.
    await page.evaluate(() => { location.hash = '#/cban/players'; });
    const row = page.locator('tbody tr', { hasText: 'Zoé' });
    await row.getByText('suspended', { exact: true }).waitFor();
    expect(await page.locator('tbody tr', { hasText: 'Yanis' }).getByText('suspended').count()).toBe(0);
    await row.getByRole('link', { name: 'Zoé' }).click();

    await card.getByRole('button', { name: 'Unban' }).click();
    await card.getByRole('button', { name: 'Really unban?' }).click();
    await card.getByText('Suspension lifted: the player can log in again.').waitFor();
    await card.getByText('not suspended').waitFor();
    expect((await login('zoe@example.test')).status).toBe(200);
    expect((await lastAudit()).command).toBe('players unban');
    await context.close();
  });

  it('screenshots: desktop and phone, English and French', async () => {
    // The form (not suspended), on a phone, in French.
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, timezoneId: 'UTC' });
    const form = await open(phone, `#/cban/players/${zoe.id}`, 'fr');
    await form.getByText('non suspendu').waitFor();
    await form.getByLabel('Raison (gardée dans le journal d’audit)').fill('Triche : coups joués par un programme');
    await shoot(form, 'console-player-ban-form-phone-fr');
    await phone.close();
    await app.sql(`select manette_admin.players_ban('cban', 'Zoé', '2099-06-15T18:30:00Z', 'Triche : coups joués par un programme (ticket #42)')`);
    for (const [width, height, suffix] of [[1280, 800, ''], [390, 844, '-phone']] as const) {
      const context = await browser.newContext({ viewport: { width, height }, timezoneId: 'UTC' });
      for (const lang of ['en', 'fr'] as const) {
        const page = await open(context, `#/cban/players/${zoe.id}`, lang);
        await page.getByText('Triche : coups joués').waitFor();
        await shoot(page, `console-player-banned${suffix}${lang === 'fr' ? '-fr' : ''}`);
        await page.evaluate(() => { location.hash = '#/cban/players'; });
        await page.locator('tbody tr', { hasText: 'Yanis' }).waitFor();
        await shoot(page, `console-players-banned${suffix}${lang === 'fr' ? '-fr' : ''}`);
        await page.close();
      }
      await context.close();
    }
    expect(con.errors).toEqual([]);
  });
});
