// <manette-login> and <manette-matchmaking> in a real browser (Debian's Chromium through
// playwright-core) against the real façade, database and local Realtime: theme and texts
// from GET /panel and their overrides, English defaults, keyboard-only sign-in, sign-up,
// errors announced, events, and two players matched through the panels. The host pages
// are served from another origin, like a studio's site loading /sdk/manette.js.
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { SignJWT } from 'jose';
import { startTestApp, client, type TestApp } from './support/harness.js';
import { serveGoogleKeys, type GoogleKeys } from './support/google-keys.js';
import { SCREENSHOT_DIR, haveBrowser, launchBrowser, warnIfNoBrowser } from './support/browser.js';

warnIfNoBrowser('sdk-panels-browser');
const IMG = SCREENSHOT_DIR;

describe.skipIf(!haveBrowser)('SDK panels in a browser', () => {
  let app: TestApp;
  let browser: Browser;
  let key: string;
  let keyPlain: string;
  let keyGoogle: string;
  let google: GoogleKeys;
  const GOOGLE_CLIENT = 'panneaux-123.apps.googleusercontent.com';
  let origin: string;
  let host: http.Server;
  let hostUrl: string;
  const pages = new Map<string, string>();

  beforeAll(async () => {
    google = await serveGoogleKeys();
    app = await startTestApp({ MANETTE_GOOGLE_JWKS_URL: google.jwksUrl }, undefined, { realtime: true });
    origin = new URL(app.baseUrl).origin;
    key = await app.applyGame({
      jeu: 'panneaux', nom: 'Panneaux', origines: ['*'],
      modes: { '1v1': { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion' } },
      panel: {
        theme: { couleur_primaire: '#ff0066', rayon_bordure: '14px', police: 'Georgia, serif' },
        textes: { connexion_titre: 'Entre dans l’arène', matchmaking_bouton: 'Au combat' },
      },
    });
    // A game with no panel settings: every text is a default.
    keyPlain = await app.applyGame({ jeu: 'nu', nom: 'Nu', origines: ['*'], modes: { '1v1': { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion' } } });
    keyGoogle = await app.applyGame({ jeu: 'gogo', nom: 'Gogo', origines: ['*'], google: { client_id: GOOGLE_CLIENT } });
    host = http.createServer((req, res) => {
      const html = pages.get(req.url ?? '');
      res.writeHead(html ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' }).end(html ?? 'not found');
    });
    await new Promise<void>((r) => host.listen(0, '127.0.0.1', r));
    hostUrl = `http://127.0.0.1:${(host.address() as { port: number }).port}`;
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    host?.close();
    google?.close();
    await app?.close();
  });

  let pageCount = 0;
  /** A page of a studio's site: the SDK from the Manette server, a client, then `body`. */
  async function hostPage(ctx: BrowserContext, body: string, opts: { lang?: string; apiKey?: string; css?: string } = {}): Promise<Page> {
    const url = `/page-${++pageCount}.html`;
    pages.set(url, `<!doctype html><html><head><meta charset="utf-8">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <style>body { margin: 16px; font-family: sans-serif; } ${opts.css ?? ''}</style>
      <script src="${origin}/sdk/manette.js"></script>
      <script>
        window.events = [];
        for (const type of ['manette:signed-in', 'manette:matched', 'manette:signed-out'])
          document.addEventListener(type, (e) => window.events.push({ type, detail: e.detail, composed: e.composed, bubbles: e.bubbles }));
        window.client = Manette.createClient({ baseUrl: ${JSON.stringify(app.baseUrl)}, apiKey: ${JSON.stringify(opts.apiKey ?? key)}, lang: ${JSON.stringify(opts.lang ?? 'fr')} });
      </script></head><body>${body}</body></html>`);
    const page = await ctx.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    (page as Page & { errors: string[] }).errors = errors;
    await page.goto(hostUrl + url);
    return page;
  }
  const eventsOf = (page: Page) => page.evaluate(() => (window as unknown as { events: { type: string; detail: any; composed: boolean; bubbles: boolean }[] }).events);
  const waitEvent = (page: Page, type: string) => page.waitForFunction((t) => (window as unknown as { events: { type: string }[] }).events.some((e) => e.type === t), type, { timeout: 15_000 });
  /** The computed value of a CSS property of an element inside a panel's shadow root. */
  const shadowStyle = (page: Page, hostSel: string, sel: string, prop: string) =>
    page.$eval(hostSel, (el, [s, p]) => getComputedStyle(el.shadowRoot!.querySelector(s!)!).getPropertyValue(p!), [sel, prop] as const);
  const shadowText = (page: Page, hostSel: string, sel: string) =>
    page.$eval(hostSel, (el, s) => el.shadowRoot!.querySelector(s)?.textContent ?? null, sel);
  const titleIs = (page: Page, hostSel: string, text: string) =>
    page.waitForFunction(([h, t]) => document.querySelector(h!)?.shadowRoot?.querySelector('h2')?.textContent === t, [hostSel, text] as const, { timeout: 10_000 });

  it('takes its theme from GET /panel; the page\'s CSS and the theme property override it', async () => {
    const ctx = await browser.newContext();
    const page = await hostPage(ctx, `
      <manette-login id="a"></manette-login>
      <manette-login id="b" class="vert"></manette-login>
      <manette-login id="c"></manette-login>`,
    { css: '.vert { --manette-couleur-primaire: rgb(0, 128, 0); }' });
    await titleIs(page, '#a', 'Entre dans l’arène');
    // Every theme key is a custom property on the element.
    expect(await page.$eval('#a', (el) => getComputedStyle(el).getPropertyValue('--manette-couleur-primaire').trim())).toBe('#ff0066');
    expect(await page.$eval('#a', (el) => getComputedStyle(el).getPropertyValue('--manette-couleur-secondaire').trim())).toBe('#a29bfe');
    expect(await shadowStyle(page, '#a', 'button[type=submit]', 'background-color')).toBe('rgb(255, 0, 102)');
    expect(await shadowStyle(page, '#a', '.card', 'border-top-left-radius')).toBe('14px');
    expect(await shadowStyle(page, '#a', 'h2', 'font-family')).toBe('Georgia, serif');
    // The host page's CSS on the element wins over the game's theme (a class selector, no !important).
    expect(await shadowStyle(page, '#b', 'button[type=submit]', 'background-color')).toBe('rgb(0, 128, 0)');
    // The `theme` property: per element, over the game's values.
    await page.$eval('#c', (el) => { (el as unknown as { theme: object }).theme = { couleur_primaire: 'rgb(0, 0, 255)' }; });
    expect(await shadowStyle(page, '#c', 'button[type=submit]', 'background-color')).toBe('rgb(0, 0, 255)');
    expect(await shadowStyle(page, '#a', 'button[type=submit]', 'background-color')).toBe('rgb(255, 0, 102)');
    // A font without a generic family gets the default stack after it: a device without it
    // falls back to the panels' sans-serif, not to the browser's serif.
    await page.$eval('#c', (el) => { (el as unknown as { theme: object }).theme = { police: 'Fredoka' }; });
    expect(await shadowStyle(page, '#c', 'h2', 'font-family')).toBe('Fredoka, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif');
    // CSS parts: the page can restyle any part.
    await page.addStyleTag({ content: '#a::part(title) { text-transform: uppercase; }' });
    expect(await shadowStyle(page, '#a', 'h2', 'text-transform')).toBe('uppercase');
    expect((page as Page & { errors: string[] }).errors).toEqual([]);
    await ctx.close();
  });

  it('takes its texts from GET /panel, overridable per element; English defaults with lang en', async () => {
    const ctx = await browser.newContext();
    const page = await hostPage(ctx, `
      <manette-login id="a"></manette-login>
      <manette-login id="b" textes='{"connexion_titre": "Bon retour", "connexion_bouton": "Go"}'></manette-login>
      <manette-matchmaking id="m" mode="1v1"></manette-matchmaking>`);
    await titleIs(page, '#a', 'Entre dans l’arène');
    expect(await shadowText(page, '#a', 'button[type=submit]')).toBe('Se connecter');
    expect(await shadowText(page, '#a', 'label[for=identifiant]')).toBe('Pseudo ou e-mail');
    await titleIs(page, '#b', 'Bon retour');
    expect(await shadowText(page, '#b', 'button[type=submit]')).toBe('Go');
    // The textes property, at run time.
    await page.$eval('#a', (el) => { (el as unknown as { textes: object }).textes = { connexion_mot_de_passe: 'Code secret' }; });
    expect(await shadowText(page, '#a', 'label[for=password]')).toBe('Code secret');
    await titleIs(page, '#m', 'Trouver une partie');

    // lang 'en': the client asks GET /panel in English (Accept-Language), whose default
    // texts the panels show; the SDK's own keys have English defaults too.
    const english = (await client(app.baseUrl, keyPlain).get('/panel', { headers: { 'accept-language': 'en' } })).body.data.textes;
    expect(english.connexion_titre).not.toBe('Connexion');
    const en = await hostPage(ctx, '<manette-login id="a"></manette-login><manette-matchmaking id="m" mode="1v1"></manette-matchmaking>', { lang: 'en', apiKey: keyPlain });
    await en.waitForFunction(() => getComputedStyle(document.querySelector('#a')!).getPropertyValue('--manette-couleur-primaire') !== '', null, { timeout: 10_000 });
    await titleIs(en, '#a', english.connexion_titre);
    expect(await shadowText(en, '#a', 'label[for=identifiant]')).toBe(english.connexion_identifiant);
    expect(await shadowText(en, '#a', 'button[type=submit]')).toBe(english.connexion_bouton);
    expect(await shadowText(en, '#a', 'button.link[data-t=connexion_vers_inscription]')).toBe(english.connexion_vers_inscription);
    expect(await shadowText(en, '#m', 'h2')).toBe(english.matchmaking_titre);
    expect(await shadowText(en, '#m', '.status')).toBe('Sign in to find a match.');
    await ctx.close();
  });

  it('signs in with the keyboard alone (Tab, typing, Enter), with a visible focus', async () => {
    const api = client(app.baseUrl, key);
    await api.register('clavier');
    const ctx = await browser.newContext();
    const page = await hostPage(ctx, '<manette-login id="a"></manette-login>');
    await titleIs(page, '#a', 'Entre dans l’arène');
    // The first Tab enters the panel, on the first field.
    await page.keyboard.press('Tab');
    const focused = () => page.evaluate(() => {
      const el = document.activeElement?.shadowRoot?.activeElement as HTMLElement | null | undefined;
      return el ? { id: el.id, tag: el.tagName, outline: getComputedStyle(el).outlineStyle, width: getComputedStyle(el).outlineWidth } : null;
    });
    expect(await focused()).toMatchObject({ id: 'identifiant', outline: 'solid', width: '3px' });
    await page.keyboard.type('clavier@example.test');
    await page.keyboard.press('Tab');
    expect(await focused()).toMatchObject({ id: 'password' });
    await page.keyboard.type('motdepasse-solide');
    await page.keyboard.press('Enter');
    await waitEvent(page, 'manette:signed-in');
    const [ev] = await eventsOf(page);
    expect(ev).toMatchObject({ type: 'manette:signed-in', bubbles: true, composed: true, detail: { joueur: { pseudo: 'clavier' } } });
    expect(await shadowText(page, '#a', '.player')).toBe('Connecté en tant que clavier');
    // Focus stayed in the panel (on the player line), and the sign-out button is the next Tab.
    await page.keyboard.press('Tab');
    expect(await focused()).toMatchObject({ tag: 'BUTTON', outline: 'solid' });
    await page.keyboard.press('Enter');
    await waitEvent(page, 'manette:signed-out');
    await titleIs(page, '#a', 'Entre dans l’arène');
    expect(await page.evaluate(() => (window as unknown as { client: { auth: { player: unknown } } }).client.auth.player)).toBeNull();
    await ctx.close();
  });

  it('signs up through the panel, and the session survives a reload', async () => {
    const ctx = await browser.newContext();
    const page = await hostPage(ctx, '<manette-login id="a"></manette-login>');
    await titleIs(page, '#a', 'Entre dans l’arène');
    const root = page.locator('#a');
    await root.getByRole('button', { name: 'Pas encore de compte ? Inscris-toi' }).click();
    await titleIs(page, '#a', 'Créer un compte');
    await root.getByLabel('Pseudo', { exact: true }).fill('nouvelle');
    await root.getByLabel('E-mail').fill('nouvelle@example.test');
    await root.getByLabel('Mot de passe (8 caractères au moins)').fill('motdepasse-solide');
    await root.getByRole('button', { name: 'Créer mon compte' }).click();
    await waitEvent(page, 'manette:signed-in');
    const [ev] = await eventsOf(page);
    expect(ev!.detail.joueur).toMatchObject({ pseudo: 'nouvelle', email: 'nouvelle@example.test' });
    const rows = await app.sql("select p.pseudo from manette.players p join manette.games g on g.id = p.game_id where g.slug = 'panneaux' and p.id = $1", [ev!.detail.joueur.id]);
    expect(rows).toEqual([{ pseudo: 'nouvelle' }]);
    await page.reload();
    await page.waitForFunction(() => document.querySelector('#a')?.shadowRoot?.querySelector('.player')?.textContent === 'Connecté en tant que nouvelle', null, { timeout: 10_000 });
    await ctx.close();
  });

  it('announces errors: wrong password, pseudo taken, invalid fields', async () => {
    const api = client(app.baseUrl, key);
    await api.register('erreurs');
    const ctx = await browser.newContext();
    const page = await hostPage(ctx, '<manette-login id="a"></manette-login>');
    await titleIs(page, '#a', 'Entre dans l’arène');
    const root = page.locator('#a');
    await root.getByLabel('Pseudo ou e-mail').fill('erreurs');
    await root.getByLabel('Mot de passe').fill('pas-le-bon-mot');
    await root.getByRole('button', { name: 'Se connecter' }).click();
    await expect.poll(() => root.getByRole('alert').first().textContent(), { timeout: 10_000 }).toBe('Identifiant ou mot de passe incorrect.');
    expect(await root.getByLabel('Mot de passe').getAttribute('aria-invalid')).toBe('true');
    // A field's message names it by its label, never by its wire name (identifiant).
    await root.getByLabel('Pseudo ou e-mail').fill('');
    await root.getByRole('button', { name: 'Se connecter' }).click();
    await expect.poll(() => page.$eval('#a', (el) => el.shadowRoot!.getElementById('identifiant-erreur')?.textContent), { timeout: 10_000 })
      .toBe('Pseudo ou e-mail ne doit pas être vide');
    await root.getByLabel('Pseudo ou e-mail').fill('erreurs');

    await root.getByRole('button', { name: 'Pas encore de compte ? Inscris-toi' }).click();
    await root.getByLabel('Pseudo', { exact: true }).fill('Erreurs');
    await root.getByLabel('E-mail').fill('autre@example.test');
    await root.getByLabel('Mot de passe (8 caractères au moins)').fill('motdepasse-solide');
    await root.getByRole('button', { name: 'Créer mon compte' }).click();
    await expect.poll(() => root.getByRole('alert').first().textContent(), { timeout: 10_000 }).toBe('Ce pseudo est déjà pris.');
    expect(await root.getByLabel('Pseudo', { exact: true }).getAttribute('aria-invalid')).toBe('true');

    // validation_failed: each field's message beside it, tied by aria-describedby.
    await root.getByLabel('Pseudo', { exact: true }).fill('x');
    await root.getByLabel('Mot de passe (8 caractères au moins)').fill('court');
    await root.getByRole('button', { name: 'Créer mon compte' }).click();
    await expect.poll(() => root.getByLabel('Mot de passe (8 caractères au moins)').getAttribute('aria-invalid'), { timeout: 10_000 }).toBe('true');
    const described = await page.$eval('#a', (el) => {
      const input = el.shadowRoot!.getElementById('password')!;
      return el.shadowRoot!.getElementById(input.getAttribute('aria-describedby')!)!.textContent;
    });
    expect(described).not.toBe('');
    expect(await eventsOf(page)).toEqual([]);
    await ctx.close();
  });

  it('shows Google sign-in only for a game with a Google client id, and signs in with its ID token', async () => {
    const ctx = await browser.newContext();
    // Google Identity Services stands in: the page's script URL answered by the test, whose
    // button hands an ID token signed by the test's key set (which the server trusts here).
    const requested: string[] = [];
    await ctx.route('https://accounts.google.com/gsi/client', (route) => {
      requested.push(route.request().url());
      return route.fulfill({ contentType: 'text/javascript', body: `
        window.google = { accounts: { id: {
          initialize(o) { window.gisOptions = o; },
          renderButton(el, o) {
            const b = document.createElement('button');
            b.type = 'button'; b.textContent = 'Google test ' + o.locale;
            b.onclick = () => window.gisOptions.callback({ credential: window.idToken });
            el.append(b);
          },
        } } };` });
    });
    const plain = await hostPage(ctx, '<manette-login id="a"></manette-login>');
    await titleIs(plain, '#a', 'Entre dans l’arène');
    await plain.waitForFunction(() => getComputedStyle(document.querySelector('#a')!).getPropertyValue('--manette-couleur-primaire') !== '', null, { timeout: 10_000 });
    expect(await plain.$eval('#a', (el) => !!el.shadowRoot!.querySelector('.google'))).toBe(false);
    expect(requested).toEqual([]);

    const page = await hostPage(ctx, '<manette-login id="a"></manette-login>', { apiKey: keyGoogle });
    const button = page.locator('#a').getByRole('button', { name: 'Google test fr' });
    await button.waitFor({ timeout: 10_000 });
    expect(requested).toHaveLength(1);
    expect(await page.evaluate(() => (window as unknown as { gisOptions: { client_id: string } }).gisOptions.client_id)).toBe(GOOGLE_CLIENT);
    expect(await page.locator('#a').getByRole('group', { name: 'Continuer avec Google' }).count()).toBe(1);
    const idToken = await new SignJWT({ email: 'gaelle@example.test', email_verified: true, name: 'Gaëlle' })
      .setProtectedHeader({ alg: 'RS256', kid: 'test-key' }).setIssuer('https://accounts.google.com')
      .setAudience(GOOGLE_CLIENT).setSubject('sub-gaelle').setIssuedAt().setExpirationTime('1h').sign(google.privateKey);
    await page.evaluate((t) => { (window as unknown as { idToken: string }).idToken = t; }, idToken);
    await button.click();
    await waitEvent(page, 'manette:signed-in');
    const [ev] = await eventsOf(page);
    expect(ev!.detail.joueur.email).toBe('gaelle@example.test');
    expect(await app.sql("select p.google_sub from manette.players p where p.id = $1", [ev!.detail.joueur.id])).toEqual([{ google_sub: 'sub-gaelle' }]);
    await ctx.close();
  });

  it('looks right on a desktop and on a 360 px phone (screenshots for docs/img)', async () => {
    const api = client(app.baseUrl, keyPlain);
    await api.register('Mona');
    const body = `<div class="row"><manette-login id="l"></manette-login><manette-matchmaking id="m" mode="1v1"></manette-matchmaking></div>`;
    const css = '.row { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; } body { background: #eceaf6; }';
    const desktop = await browser.newContext({ viewport: { width: 900, height: 700 }, deviceScaleFactor: 1 });
    const page = await hostPage(desktop, body, { apiKey: keyPlain, css });
    await page.waitForFunction(() => getComputedStyle(document.querySelector('#l')!).getPropertyValue('--manette-couleur-primaire') !== '', null, { timeout: 10_000 });
    await page.locator('#l').screenshot({ path: path.join(IMG, 'panel-login.png') });
    // Signed in, then queued: the matchmaking panel while it waits.
    const l = page.locator('#l');
    await l.getByLabel('Pseudo ou e-mail').fill('Mona');
    await l.getByLabel('Mot de passe').fill('motdepasse-solide');
    await l.getByRole('button', { name: 'Se connecter' }).click();
    await waitEvent(page, 'manette:signed-in');
    await page.locator('#m').getByRole('button', { name: 'Jouer' }).click();
    await expect.poll(() => page.locator('#m').getByRole('status').textContent(), { timeout: 10_000 }).toContain('Position dans la file : 1');
    await page.locator('#m').screenshot({ path: path.join(IMG, 'panel-matchmaking.png'), animations: 'disabled' });
    await page.locator('#m').getByRole('button', { name: 'Annuler' }).click();
    await page.locator('#m').getByRole('button', { name: 'Jouer' }).waitFor({ timeout: 10_000 });

    const phone = await browser.newContext({ viewport: { width: 360, height: 740 }, deviceScaleFactor: 1 });
    const small = await hostPage(phone, `${body.replace('class="row"', 'class="row" id="stack"')}`, { apiKey: keyPlain, css });
    await small.locator('#l').getByRole('button', { name: 'Pas encore de compte ? Inscris-toi' }).click();
    await small.locator('#l').getByRole('button', { name: 'Créer mon compte' }).click();
    await small.locator('#l').getByRole('alert').first().filter({ hasText: /./ }).waitFor({ timeout: 10_000 });
    // Nothing overflows the phone's width, down to 320 px; every field and button stays inside its panel.
    for (const width of [320, 360]) {
      await small.setViewportSize({ width, height: 740 });
      expect(await small.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      for (const sel of ['#l', '#m']) {
        const overflow = await small.$eval(sel, (el) => {
          const box = el.getBoundingClientRect();
          return [...el.shadowRoot!.querySelectorAll('input, button, p')].filter((c) => {
            const r = c.getBoundingClientRect();
            return r.left < box.left - 0.5 || r.right > box.right + 0.5;
          }).length;
        });
        expect(overflow).toBe(0);
      }
    }
    await small.screenshot({ path: path.join(IMG, 'panels-phone.png'), fullPage: true });
    await desktop.close();
    await phone.close();
  });

  it('matches two players through their matchmaking panels (queue position announced, leave, matched event)', async () => {
    const api = client(app.baseUrl, key);
    await api.register('alpha');
    await api.register('beta');
    const panel = '<manette-login id="l"></manette-login><manette-matchmaking id="m" mode="1v1" elo="1200"></manette-matchmaking>';
    const signIn = async (who: string) => {
      const ctx = await browser.newContext();
      const page = await hostPage(ctx, panel);
      const l = page.locator('#l');
      await l.getByLabel('Pseudo ou e-mail').fill(who);
      await l.getByLabel('Mot de passe').fill('motdepasse-solide');
      await l.getByRole('button', { name: 'Se connecter' }).click();
      await waitEvent(page, 'manette:signed-in');
      return { ctx, page, m: page.locator('#m') };
    };
    const a = await signIn('alpha');
    const b = await signIn('beta');
    await a.m.getByRole('button', { name: 'Au combat' }).click();
    // Waiting: the live region (role=status, polite) says it, with the position.
    const status = a.m.getByRole('status');
    await expect.poll(() => status.textContent(), { timeout: 10_000 }).toContain('Position dans la file : 1');
    expect(await status.getAttribute('aria-live')).toBe('polite');
    expect(await status.textContent()).toContain('Recherche d’adversaires…');
    // Cancel leaves the queue on the server.
    await a.m.getByRole('button', { name: 'Annuler' }).click();
    await a.m.getByRole('button', { name: 'Au combat' }).waitFor({ timeout: 10_000 });
    expect(await app.sql("select q.id from manette.queue_entries q join manette.players p on p.id = q.player_id where p.pseudo = 'alpha'")).toEqual([]);

    await a.m.getByRole('button', { name: 'Au combat' }).click();
    await expect.poll(() => status.textContent(), { timeout: 10_000 }).toContain('Position dans la file : 1');
    await b.m.getByRole('button', { name: 'Au combat' }).click();
    await Promise.all([waitEvent(a.page, 'manette:matched'), waitEvent(b.page, 'manette:matched')]);
    const evA = (await eventsOf(a.page)).find((e) => e.type === 'manette:matched')!;
    const evB = (await eventsOf(b.page)).find((e) => e.type === 'manette:matched')!;
    expect(evA).toMatchObject({ bubbles: true, composed: true, detail: { status: 'matched' } });
    expect(evA.detail.partie_id).toBe(evB.detail.partie_id);
    expect(evA.detail.code_salon).toMatch(/^[A-HJ-NP-Z2-9]{6}$/);
    expect(evA.detail.participants.map((p: { pseudo: string }) => p.pseudo).sort()).toEqual(['alpha', 'beta']);
    for (const side of [a, b]) {
      await expect.poll(() => side.m.getByRole('status').textContent(), { timeout: 10_000 }).toContain(`Code du salon : ${evA.detail.code_salon}`);
      expect(await side.m.getByRole('status').textContent()).toContain('Partie trouvée !');
    }
    const partie = await app.sql('select room_code from manette.matches where id = $1', [evA.detail.partie_id]);
    expect(partie[0]?.room_code).toBe(evA.detail.code_salon);
    await a.ctx.close();
    await b.ctx.close();
  });
});
