// The web demo (/demo/, examples/demo/web) in a real browser against the real service:
// two players in two browser contexts sign up with the login panel, get matched by the
// matchmaking panel, and play morpion to a win through `act` and the `etat` events; a move
// on a taken square is refused by the server and the page shows why; the `victoires`
// leaderboard (credited by the server) shows the winner. On a phone the match scrolls into
// view; a wrong key brings the key form back (in the browser's language); forfeiting asks
// first; "New match" queues at once; a studio's game gets its own title and modes.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import pino from 'pino';
import { freshDatabase, startTestApp, twinAdminUrlOf, type TestApp } from './support/harness.js';
import { freePort } from './support/net.js';
import { readSettings } from '../api/config/settings.js';
import { startService } from '../api/server.js';
import { SCREENSHOT_DIR, haveBrowser, launchBrowser, warnIfNoBrowser } from './support/browser.js';

warnIfNoBrowser('demo-browser');
const ROOT = path.join(import.meta.dirname, '..');

describe.skipIf(!haveBrowser)('web demo in a browser', () => {
  let app: TestApp;
  let browser: Browser;
  let key: string;
  let origin: string;

  beforeAll(async () => {
    app = await startTestApp({}, undefined, { realtime: true });
    origin = new URL(app.baseUrl).origin;
    key = await app.applyGame(JSON.parse(await readFile(path.join(ROOT, 'examples/demo/game.json'), 'utf8')) as Record<string, unknown>);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  interface Player { ctx: BrowserContext; page: Page; pseudo: string; errors: string[] }

  /** Opens /demo/?key=... and signs up through the login panel. */
  async function signUp(pseudo: string, viewport = { width: 1280, height: 860 }, at = { origin: '', key: '' }): Promise<Player> {
    const ctx = await browser.newContext({ viewport, locale: 'fr-FR' });
    const page = await ctx.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${at.origin || origin}/demo/?key=${at.key || key}`);
    // The key went to localStorage and left the address bar.
    expect(new URL(page.url()).searchParams.has('key')).toBe(false);
    const login = page.locator('manette-login');
    await login.getByRole('button', { name: 'Pas encore de compte ? Inscris-toi' }).click();
    await login.getByLabel('Pseudo', { exact: true }).fill(pseudo);
    await login.getByLabel('E-mail').fill(`${pseudo}@example.test`);
    await login.getByLabel('Mot de passe (8 caractères au moins)').fill('motdepasse-solide');
    await login.getByRole('button', { name: 'Créer mon compte' }).click();
    await login.getByText(`Connecté en tant que ${pseudo}`).waitFor({ timeout: 15_000 });
    return { ctx, page, pseudo, errors };
  }

  const cell = (p: Player, i: number) => p.page.locator(`#board .cell[data-case="${i}"]`);
  /** Whether the element is wholly inside the browser's viewport (no scrolling needed to see it). */
  const inView = (p: Player, selector: string) => p.page.locator(selector).evaluate((el) => {
    const r = el.getBoundingClientRect();
    return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight;
  });
  const turn = (p: Player) => p.page.locator('#turn');
  async function play(p: Player, i: number, mark: string): Promise<void> {
    await expect.poll(() => turn(p).textContent(), { timeout: 15_000 }).toBe('À toi de jouer !');
    await cell(p, i).click();
    await expect.poll(() => cell(p, i).textContent(), { timeout: 15_000 }).toBe(mark);
  }

  it('two players sign up, get matched and play a whole match; a refused move is shown; the winner gets +1', async () => {
    const a = await signUp('alice');
    // Bruno plays on a phone.
    const b = await signUp('bruno', { width: 375, height: 740 });
    // Signed in: the lobby no longer asks to sign in.
    expect(await b.page.locator('#lobby').textContent()).not.toMatch(/Connecte-toi/);
    // Reloaded: the key is remembered, the session restored.
    await a.page.reload();
    await a.page.locator('manette-login').getByText('Connecté en tant que alice').waitFor({ timeout: 15_000 });

    for (const p of [a, b]) await p.page.locator('manette-matchmaking').getByRole('button', { name: 'Jouer' }).click();
    for (const p of [a, b]) await p.page.locator('#match').waitFor({ state: 'visible', timeout: 20_000 });
    // On the phone the match is scrolled into view: its board's last row is on screen.
    await expect.poll(() => inView(b, '#board .cell[data-case="8"]'), { timeout: 15_000 }).toBe(true);
    const code = await a.page.locator('#room-code').textContent();
    expect(code).toMatch(/^[A-HJ-NP-Z2-9]{6}$/);
    expect(await b.page.locator('#room-code').textContent()).toBe(code);

    // X is the first participant: the one whose turn it is.
    await expect.poll(async () => [await turn(a).textContent(), await turn(b).textContent()].sort().join('|'), { timeout: 15_000 })
      .toMatch(/^(À toi de jouer !\|Tour de .+…|Tour de .+…\|À toi de jouer !)$/);
    const [x, o] = (await turn(a).textContent()) === 'À toi de jouer !' ? [a, b] : [b, a];
    expect(await turn(o).textContent()).toBe(`Tour de ${x.pseudo}…`);

    await play(x, 0, 'X');
    await play(o, 3, 'O');
    await play(x, 1, 'X');
    // O's turn: a move on X's square is refused by the server, and the page says why.
    await expect.poll(() => turn(o).textContent(), { timeout: 15_000 }).toBe('À toi de jouer !');
    await cell(o, 0).click();
    await expect.poll(() => o.page.locator('#move-error').textContent(), { timeout: 15_000 }).toBe('Cette case est déjà prise.');
    expect(await o.page.locator('#move-error').getAttribute('role')).toBe('alert');
    // ... and the message is on screen, on the phone too (X or O, whichever bruno is).
    expect(await inView(o, '#move-error')).toBe(true);
    expect(await cell(o, 0).textContent()).toBe('X');
    // Out of turn: refused too.
    await cell(x, 8).click();
    await expect.poll(() => x.page.locator('#move-error').textContent(), { timeout: 15_000 }).toBe('Ce n’est pas ton tour.');
    expect(await inView(x, '#move-error')).toBe(true);
    await play(o, 4, 'O');
    // Mid-game, for the docs (once X's page has drawn O's move).
    await expect.poll(() => cell(x, 4).textContent(), { timeout: 15_000 }).toBe('O');
    expect(await x.page.locator('#move-error').textContent()).toBe('');
    await play(x, 2, 'X');

    // The other player sees the final state through the `etat` event.
    await expect.poll(() => turn(x).textContent(), { timeout: 15_000 }).toBe('Tu as gagné !');
    await expect.poll(() => turn(o).textContent(), { timeout: 15_000 }).toBe(`${x.pseudo} a gagné.`);
    expect(await cell(o, 2).textContent()).toBe('X');
    expect(await o.page.locator('#board .cell.winning').count()).toBe(3);

    // The server credited the win on `victoires`; both pages show it.
    const winnerId = (await app.sql<{ id: string }>("select p.id from manette.players p join manette.games g on g.id = p.game_id where g.slug = 'demo' and p.pseudo = $1", [x.pseudo]))[0]!.id;
    for (const p of [x, o]) {
      await expect.poll(() => p.page.locator(`#leaderboard li[data-joueur="${winnerId}"] strong`).textContent({ timeout: 2_000 }).catch(() => null), { timeout: 15_000 }).toBe('1');
    }
    expect(await o.page.locator('#leaderboard li').count()).toBe(1);
    // The panel no longer says "match found": it is back to its Play button.
    for (const p of [x, o]) {
      await p.page.locator('manette-matchmaking').getByRole('button', { name: 'Jouer' }).waitFor({ timeout: 10_000 });
      expect(await p.page.locator('manette-matchmaking').getByText('Partie trouvée').count()).toBe(0);
    }

    // A new match: one click queues again (the panel waits for an opponent), and nothing
    // of the last match stays on the page.
    // The first to click finds nobody waiting: its page shows no match. The second is
    // matched at once with the first, and its page may already show the NEW match when the
    // check runs (a loaded machine): hidden, or another room than the last one.
    const lastRoom = await x.page.locator('#room-code').textContent();
    await x.page.getByRole('button', { name: 'Nouvelle partie' }).click();
    expect(await x.page.locator('#match').isHidden()).toBe(true);
    await o.page.getByRole('button', { name: 'Nouvelle partie' }).click();
    expect(await o.page.locator('#match').isHidden()
      || await o.page.locator('#room-code').textContent() !== lastRoom).toBe(true);
    for (const p of [x, o]) await p.page.locator('#match').waitFor({ state: 'visible', timeout: 20_000 });
    await expect.poll(async () => [await turn(x).textContent(), await turn(o).textContent()].sort().join('|'), { timeout: 15_000 })
      .toMatch(/^(À toi de jouer !\|Tour de .+…|Tour de .+…\|À toi de jouer !)$/);
    for (const p of [x, o]) {
      expect(await p.page.locator('#move-error').textContent()).toBe('');
      expect(await p.page.locator('#board .cell.winning').count()).toBe(0);
      expect(await p.page.locator('#again').isHidden()).toBe(true);
    }

    // Forfeit asks first; "No" keeps playing, "Yes" ends the match.
    await x.page.getByRole('button', { name: 'Abandonner', exact: true }).click();
    await x.page.getByText('Abandonner la partie ?').waitFor();
    await x.page.getByRole('button', { name: 'Non, continuer' }).click();
    expect(await x.page.locator('#forfeit-ask').isHidden()).toBe(true);
    expect(await turn(x).textContent()).toMatch(/^(À toi de jouer !|Tour de .+…)$/);
    await x.page.getByRole('button', { name: 'Abandonner', exact: true }).click();
    await x.page.getByRole('button', { name: 'Oui, abandonner' }).click();
    await expect.poll(() => turn(o).textContent(), { timeout: 15_000 }).toBe('Tu as gagné !');
    await expect.poll(() => turn(x).textContent(), { timeout: 15_000 }).toBe(`${o.pseudo} a gagné.`);
    // Resigned before each side had played (the demo's `actions_min: 2`): the result stands,
    // nothing is paid or rated, and both pages say so instead of a reward.
    for (const p of [x, o]) {
      await expect.poll(() => p.page.locator('#reward').textContent(), { timeout: 15_000 })
        .toBe('Partie trop courte pour compter : ni récompense ni classement.');
    }

    expect(a.errors).toEqual([]);
    expect(b.errors).toEqual([]);
    await a.ctx.close();
    await b.ctx.close();
  });

  it('asks for the API key when it has none, and shows the shop', async () => {
    const ctx = await browser.newContext({ viewport: { width: 360, height: 760 }, locale: 'en-US' });
    const page = await ctx.newPage();
    await page.goto(`${origin}/demo/`);
    const input = page.getByLabel(/sk_live_/);
    await input.fill(key);
    await input.press('Enter');
    await page.locator('#app').waitFor({ state: 'visible', timeout: 15_000 });
    // navigator.language is English here: panels and page in English.
    const english = (await (await fetch(`${app.baseUrl}/panel`, { headers: { 'x-api-key': key, 'accept-language': 'en' } })).json()).data.textes;
    expect(english.connexion_bouton).not.toBe('Se connecter');
    await page.locator('manette-login').getByRole('button', { name: english.connexion_bouton }).waitFor({ timeout: 15_000 });
    // The shop panel, in English too; signed out, it lists the articles and asks to sign in.
    const shop = page.locator('manette-boutique');
    await expect.poll(() => shop.locator('h2').textContent(), { timeout: 15_000 }).toBe('Shop');
    await expect.poll(() => shop.locator('li.article .article-name').first().textContent(), { timeout: 15_000 }).toBe('Potion');
    expect(await shop.getByRole('status').textContent()).toBe('Sign in to buy.');
    // Nothing wider than the phone's screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await ctx.close();
  });

  it('a wrong key brings the key form back, in the browser\'s language and styled like the page', async () => {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'en-US' });
    const page = await ctx.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    // A key of the right shape that the server does not know (a revoked key answers the same).
    await page.goto(`${origin}/demo/?key=sk_live_${'0'.repeat(40)}`);
    await page.locator('#key-form').waitFor({ state: 'visible', timeout: 15_000 });
    expect(await page.locator('#app').isHidden()).toBe(true);
    expect(await page.locator('#key-error').textContent()).toMatch(/^The server refuses this key \(.+\)\. Enter the game’s key:$/);
    expect(await page.locator('label[for="key-input"]').textContent()).toBe('The game’s API key (sk_live_…, printed by npm start)');
    const button = page.getByRole('button', { name: 'Use this key' });
    // Styled like the page's buttons: the primary colour, not the browser's grey.
    expect(await button.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(108, 92, 231)');
    expect(await page.locator('html').getAttribute('lang')).toBe('en');
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'demo-key-refused-en.png') });
    await page.getByLabel(/sk_live_/).fill(key);
    await button.click();
    await page.locator('#app').waitFor({ state: 'visible', timeout: 15_000 });
    expect(await page.locator('#key-form').isHidden()).toBe(true);
    expect(errors).toEqual([]);
    await ctx.close();
  });

  // The page at its key moments, as the docs show it (docs/img/demo*.png with
  // UPDATE_SCREENSHOTS=1): a desktop and a 375×740 phone, in a French and an English browser.
  for (const lang of ['fr', 'en'] as const) {
    it(`key form, signed in, a refused move, after a match: desktop and phone, ${lang}`, async () => {
      const L = lang === 'fr'
        ? { locale: 'fr-FR', signUp: 'Pas encore de compte ? Inscris-toi', pseudo: 'Pseudo', email: 'E-mail', password: 'Mot de passe (8 caractères au moins)',
            create: 'Créer mon compte', signedIn: 'Connecté en tant que', play: 'Jouer', mine: 'À toi de jouer !', taken: 'Cette case est déjà prise.',
            notYours: 'Ce n’est pas ton tour.', won: 'Tu as gagné !', key: 'Utiliser cette clé' }
        : { locale: 'en-US', signUp: 'No account yet? Sign up', pseudo: 'Username', email: 'Email', password: 'Password (at least 8 characters)',
            create: 'Create my account', signedIn: 'Signed in as', play: 'Play', mine: 'Your turn!', taken: 'This square is already taken.',
            notYours: 'It is not your turn.', won: 'You won!', key: 'Use this key' };
      const suffix = lang === 'fr' ? '' : '-en';
      const shot = (p: Page, name: string, phone: boolean) => p.screenshot({ path: path.join(SCREENSHOT_DIR, `demo${name ? `-${name}` : ''}${phone ? '-phone' : ''}${suffix}.png`) });
      const players: { page: Page; ctx: BrowserContext; phone: boolean; pseudo: string }[] = [];
      for (const [i, phone] of [false, true].entries()) {
        const ctx = await browser.newContext({ viewport: phone ? { width: 375, height: 740 } : { width: 1280, height: 860 }, locale: L.locale });
        const page = await ctx.newPage();
        // The key form: a first visit without a key.
        await page.goto(`${origin}/demo/`);
        await page.getByRole('button', { name: L.key }).waitFor();
        await shot(page, 'key', phone);
        await page.getByLabel(/sk_live_/).fill(key);
        await page.getByRole('button', { name: L.key }).click();
        const pseudo = [['camille', 'leo'], ['ada', 'ben']][lang === 'fr' ? 0 : 1]![i]!;
        const login = page.locator('manette-login');
        await login.getByRole('button', { name: L.signUp }).click();
        await login.getByLabel(L.pseudo, { exact: true }).fill(pseudo);
        await login.getByLabel(L.email).fill(`${pseudo}@example.test`);
        await login.getByLabel(L.password).fill('motdepasse-solide');
        await login.getByRole('button', { name: L.create }).click();
        await login.getByText(`${L.signedIn} ${pseudo}`).waitFor({ timeout: 15_000 });
        await page.locator('#leaderboard li').first().waitFor({ timeout: 15_000 }).catch(() => {});
        await page.mouse.move(0, 0);
        await shot(page, 'signed-in', phone);
        players.push({ page, ctx, phone, pseudo });
      }
      for (const p of players) await p.page.locator('manette-matchmaking').getByRole('button', { name: L.play }).click();
      for (const p of players) await p.page.locator('#match').waitFor({ state: 'visible', timeout: 20_000 });
      const turnOf = (p: Page) => p.locator('#turn').textContent();
      await expect.poll(async () => (await Promise.all(players.map((p) => turnOf(p.page)))).filter((t) => t === L.mine).length, { timeout: 15_000 }).toBe(1);
      const [x, o] = (await turnOf(players[0]!.page)) === L.mine ? [players[0]!, players[1]!] : [players[1]!, players[0]!];
      const move = async (p: Page, i: number, mark: string) => {
        await expect.poll(() => turnOf(p), { timeout: 15_000 }).toBe(L.mine);
        await p.locator(`#board .cell[data-case="${i}"]`).click();
        await expect.poll(() => p.locator(`#board .cell[data-case="${i}"]`).textContent(), { timeout: 15_000 }).toBe(mark);
      };
      await move(x.page, 0, 'X');
      await move(o.page, 4, 'O');
      await move(x.page, 1, 'X');
      // Both refused: O on X's square, X out of turn; each page shows the server's message.
      await expect.poll(() => turnOf(o.page), { timeout: 15_000 }).toBe(L.mine);
      await o.page.locator('#board .cell[data-case="0"]').click();
      await x.page.locator('#board .cell[data-case="8"]').click();
      await expect.poll(() => o.page.locator('#move-error').textContent(), { timeout: 15_000 }).toBe(L.taken);
      await expect.poll(() => x.page.locator('#move-error').textContent(), { timeout: 15_000 }).toBe(L.notYours);
      for (const p of players) {
        expect(await p.page.locator('#move-error').evaluate((el) => el.getBoundingClientRect().bottom <= window.innerHeight)).toBe(true);
        await p.page.mouse.move(0, 0);
        await shot(p.page, '', p.phone); // demo.png: the page mid-game
      }
      await move(o.page, 3, 'O');
      await move(x.page, 2, 'X');
      await expect.poll(() => turnOf(x.page), { timeout: 15_000 }).toBe(L.won);
      for (const p of players) {
        await p.page.locator(`#leaderboard li strong`).first().waitFor({ timeout: 15_000 });
        await expect.poll(() => p.page.locator('#again').isVisible(), { timeout: 15_000 }).toBe(true);
        await p.page.mouse.move(0, 0);
        await shot(p.page, 'over', p.phone);
      }
      for (const p of players) await p.ctx.close();
    });
  }

  it('serves an icon at /favicon.ico', async () => {
    const res = await fetch(`${origin}/favicon.ico`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/x-icon');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect([...bytes.subarray(0, 4)]).toEqual([0, 0, 1, 0]); // an ICO file's header
  });

  it('manette start with a studio\'s game: the page shows its name and its modes, and no empty shop', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'manette-studio-demo-'));
    const gameFile = path.join(dir, 'game.json');
    await writeFile(gameFile, JSON.stringify({
      jeu: 'mon-jeu', nom: 'Mon super jeu', origines: ['*'],
      classements: { victoires: { ordre: 'desc', operateur: 'somme' } },
      modes: {
        '1v1': { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', classement_victoires: 'victoires' },
        duel: { equipes: 2, joueurs_par_equipe: 1, regles: 'tour_par_tour' },
      },
    }));
    const db = await freshDatabase();
    const settings = readSettings({
      DATABASE_URL: db, MANETTE_REALTIME_DATABASE_URL: twinAdminUrlOf(db), HOST: '127.0.0.1', PORT: '0',
      MANETTE_REALTIME_PORT: String(await freePort()), LOG_LEVEL: 'silent',
      MANETTE_ARGON2_MEMORY_KIB: '1024', MANETTE_ARGON2_ITERATIONS: '1',
      // One process: forked workers read PORT from the environment (3000), which another
      // test file running at the same time may hold.
      MANETTE_WORKERS: '1',
    });
    const service = await startService(settings, pino({ level: 'silent' }), { gameFile });
    try {
      const studioOrigin = new URL(service.baseUrl).origin;
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'fr-FR' });
      const page = await ctx.newPage();
      await page.goto(`${studioOrigin}/demo/?key=${service.game!.api_key}`);
      await expect.poll(() => page.locator('#game-title').textContent(), { timeout: 15_000 }).toBe('Mon super jeu');
      expect(await page.title()).toBe('Mon super jeu · Manette');
      await page.locator('#app').waitFor({ state: 'visible', timeout: 15_000 });
      expect(await page.locator('#mode option').allTextContents()).toEqual(['1v1', 'duel']);
      expect(await page.locator('#mode-box').isVisible()).toBe(true);
      // No shop in this game: no shop box (the wins of the 1v1 mode are there).
      await expect.poll(() => page.locator('#lb-empty').isVisible(), { timeout: 15_000 }).toBe(true);
      expect(await page.locator('manette-boutique').isHidden()).toBe(true);
      // The chosen mode is the one the matchmaking panel queues for; `duel` counts no wins.
      await page.locator('#mode').selectOption('duel');
      expect(await page.locator('manette-matchmaking').getAttribute('mode')).toBe('duel');
      expect(await page.locator('#lb-box').isHidden()).toBe(true);
      // Another key of the same server gets no description: the page keeps its defaults.
      const other = await fetch(`${studioOrigin}/demo/jeu.json`, { headers: { 'x-api-key': 'sk_live_other' } });
      expect(other.status).toBe(404);
      await ctx.close();

      // A match of `duel` (rule tour_par_tour, not morpion): the state as the server sends
      // it and a form for any action; a refusal is shown as for morpion.
      const at = { origin: studioOrigin, key: service.game!.api_key };
      const players = [await signUp('margot', undefined, at), await signUp('nils', undefined, at)];
      for (const p of players) {
        await p.page.locator('#mode').selectOption('duel');
        await p.page.locator('manette-matchmaking').getByRole('button', { name: 'Jouer' }).click();
      }
      for (const p of players) await p.page.locator('#match').waitFor({ state: 'visible', timeout: 20_000 });
      for (const p of players) {
        expect(await p.page.locator('#mode').isDisabled()).toBe(true);
        expect(await p.page.locator('#board').isHidden()).toBe(true);
        expect(await p.page.locator('#generic').isVisible()).toBe(true);
      }
      await expect.poll(async () => (await Promise.all(players.map((p) => turn(p).textContent()))).filter((t) => t === 'À toi de jouer !').length, { timeout: 15_000 }).toBe(1);
      const [first, second] = (await turn(players[0]!).textContent()) === 'À toi de jouer !' ? players : [players[1]!, players[0]!];
      await first!.page.getByLabel('Action').fill('poser');
      await first!.page.getByLabel('Données (JSON)').fill('{"pion": "b2"}');
      await first!.page.getByRole('button', { name: 'Envoyer' }).click();
      for (const p of players) {
        await expect.poll(async () => JSON.parse((await p.page.locator('#etat').textContent()) || '{}'), { timeout: 15_000 }).toMatchObject({ pion: 'b2' });
      }
      await expect.poll(() => turn(second!).textContent(), { timeout: 15_000 }).toBe('À toi de jouer !');
      // Out of turn now: refused by the server's rule.
      await first!.page.getByRole('button', { name: 'Envoyer' }).click();
      await expect.poll(() => first!.page.locator('#move-error').textContent(), { timeout: 15_000 }).toBe('Ce n’est pas ton tour.');
      await first!.page.mouse.move(0, 0);
      await first!.page.screenshot({ path: path.join(SCREENSHOT_DIR, 'demo-studio.png') });
      for (const p of players) {
        expect(p.errors).toEqual([]);
        await p.ctx.close();
      }
    } finally {
      await service.close();
    }
  });
});
