// Issue 20's "done when", shown by the web demo (/demo/, examples/demo/web) in a real browser
// against the real service as `npm start` runs it (startService with the demo's game file,
// its turn sweeper and its local Realtime): two players are matched in the demo's `1v1` mode
// (turn timer with `sur_delai: "abandon"`, spectators, server-side rating), a third player
// finds the match in "Parties en cours" and watches it read-only; one player plays, then
// walks away (closes the page); the server ends the match by timeout and the watcher sees
// it live ("Temps écoulé pour X"); the winner's page shows the server's rating going up
// (1500 → 1516, +16) and the win on the `victoires` board; the watcher replays the match,
// the timeout included. In French and English, desktop and phone, with the screenshots the
// docs show (docs/img/demo-timer*.png, demo-watch*.png with UPDATE_SCREENSHOTS=1).
//
// The demo's own game file, unchanged: its 30 s turn is what a newcomer gets, and it leaves
// room, on a loaded machine, for the watcher to join and the screenshots to be taken before
// a turn expires (with a delay of a few seconds, a busy machine could let the first turn
// expire before the first move, and the match would end before anyone watched). Nothing
// asserts how long anything took.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { freshDatabase, twinAdminUrlOf } from './support/harness.js';
import { freePort } from './support/net.js';
import { readSettings } from '../api/config/settings.js';
import { startService, type Service } from '../api/server.js';
import { SCREENSHOT_DIR, haveBrowser, launchBrowser, warnIfNoBrowser } from './support/browser.js';

warnIfNoBrowser('demo-watch-browser');
const ROOT = path.join(import.meta.dirname, '..');
const DELAY_S = 30;
const DESKTOP = { width: 1280, height: 860 };
const PHONE = { width: 375, height: 740 };

const TEXTS = {
  fr: {
    locale: 'fr-FR', signUp: 'Pas encore de compte ? Inscris-toi', pseudo: 'Pseudo', email: 'E-mail', password: 'Mot de passe (8 caractères au moins)',
    create: 'Créer mon compte', signedIn: 'Connecté en tant que', play: 'Jouer', mine: 'À toi de jouer !', won: 'Tu as gagné !',
    live: 'Parties en cours', refresh: 'Actualiser', watch: 'Regarder', watching: 'Tu regardes cette partie en direct.',
    vs: (a: string, b: string) => `${a} contre ${b}`, turnOf: (who: string) => `Tour de ${who}…`,
    mineLeft: /^Il te reste \d+ s pour jouer$/, theirLeft: (who: string) => new RegExp(`^${who} a encore \\d+ s$`),
    timeout: (who: string, result: string) => `Temps écoulé pour ${who}. ${result}`, wonBy: (who: string) => `${who} a gagné.`,
    rating: 'Ton classement 1v1', replay: 'Revoir la partie', last: 'Fin', backToList: 'Retour à la liste',
    stepLast: (who: string) => `Coup 3 sur 3 : Temps écoulé pour ${who}`, empty: 'Aucune partie en cours.',
    players: ['alice', 'bruno', 'chloe'],
  },
  en: {
    locale: 'en-US', signUp: 'No account yet? Sign up', pseudo: 'Username', email: 'Email', password: 'Password (at least 8 characters)',
    create: 'Create my account', signedIn: 'Signed in as', play: 'Play', mine: 'Your turn!', won: 'You won!',
    live: 'Matches in progress', refresh: 'Refresh', watch: 'Watch', watching: 'You are watching this match live.',
    vs: (a: string, b: string) => `${a} vs ${b}`, turnOf: (who: string) => `${who}’s turn…`,
    mineLeft: /^\d+ s left to play$/, theirLeft: (who: string) => new RegExp(`^${who} has \\d+ s left$`),
    timeout: (who: string, result: string) => `${who} ran out of time. ${result}`, wonBy: (who: string) => `${who} won.`,
    rating: 'Your 1v1 rating', replay: 'Replay the match', last: 'End', backToList: 'Back to the list',
    stepLast: (who: string) => `Move 3 of 3: ${who} ran out of time`, empty: 'No match in progress.',
    players: ['ann', 'bob', 'cleo'],
  },
} as const;

describe.skipIf(!haveBrowser)('web demo: a turn timer ends a match, a third player watches it live and replays it', () => {
  let service: Service;
  let browser: Browser;
  let origin: string;
  let key: string;

  beforeAll(async () => {
    // The demo's game file, as `npm start` applies it on a fresh database.
    const gameFile = path.join(ROOT, 'examples/demo/game.json');
    const game = JSON.parse(await readFile(gameFile, 'utf8')) as { modes: Record<string, Record<string, unknown>> };
    expect(game.modes['1v1']).toMatchObject({ delai_tour_s: DELAY_S, sur_delai: 'abandon', spectateurs: true, elo: 'serveur', classement_victoires: 'victoires' });
    const db = await freshDatabase();
    const settings = readSettings({
      DATABASE_URL: db, MANETTE_REALTIME_DATABASE_URL: twinAdminUrlOf(db), HOST: '127.0.0.1', PORT: '0',
      MANETTE_REALTIME_PORT: String(await freePort()), LOG_LEVEL: 'silent',
      MANETTE_ARGON2_MEMORY_KIB: '1024', MANETTE_ARGON2_ITERATIONS: '1',
      // One process: forked workers read PORT from the environment (3000), which another
      // test file running at the same time may hold.
      MANETTE_WORKERS: '1',
    });
    service = await startService(settings, pino({ level: 'silent' }), { gameFile });
    origin = new URL(service.baseUrl).origin;
    key = service.game!.api_key;
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  for (const lang of ['fr', 'en'] as const) {
    it(`a player walks away and loses by timeout; the winner is credited and re-rated; a watcher saw it live and replays it (${lang})`, async () => {
      const L = TEXTS[lang];
      const suffix = lang === 'fr' ? '' : '-en';
      interface Player { page: Page; ctx: BrowserContext; pseudo: string; errors: string[] }
      /** The page at a desktop's and a phone's size (`scroll`: what must be on screen), then back to its own size. */
      const shots = async (p: Player, name: string, scroll: string) => {
        const own = p.page.viewportSize()!;
        for (const [size, tail] of [[DESKTOP, ''], [PHONE, '-phone']] as const) {
          await p.page.setViewportSize(size);
          await p.page.locator(scroll).evaluate((el) => el.scrollIntoView({ block: 'start' }));
          await p.page.mouse.move(0, 0);
          await p.page.screenshot({ path: path.join(SCREENSHOT_DIR, `demo-${name}${tail}${suffix}.png`) });
        }
        await p.page.setViewportSize(own);
      };
      const signUp = async (pseudo: string, viewport: typeof DESKTOP): Promise<Player> => {
        const ctx = await browser.newContext({ viewport, locale: L.locale });
        const page = await ctx.newPage();
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(e.message));
        await page.goto(`${origin}/demo/?key=${key}`);
        const login = page.locator('manette-login');
        await login.getByRole('button', { name: L.signUp }).click();
        await login.getByLabel(L.pseudo, { exact: true }).fill(pseudo);
        await login.getByLabel(L.email).fill(`${pseudo}@example.test`);
        await login.getByLabel(L.password).fill('motdepasse-solide');
        await login.getByRole('button', { name: L.create }).click();
        await login.getByText(`${L.signedIn} ${pseudo}`).waitFor({ timeout: 15_000 });
        return { page, ctx, pseudo, errors };
      };
      const [a, b, watcher] = [await signUp(L.players[0], DESKTOP), await signUp(L.players[1], PHONE), await signUp(L.players[2], DESKTOP)];
      const turnOf = (p: Player) => p.page.locator('#turn').textContent();
      const cellsOf = (p: Player) => p.page.locator('#board .cell').allTextContents();
      /** The list's "nothing to watch" line, when it shows. */
      const liveEmpty = async (p: Player) => (await p.page.locator('#live-empty').isVisible()) ? p.page.locator('#live-empty').textContent() : null;

      // Before any match: every player's server rating in the mode, the start value.
      for (const p of [a, b, watcher]) {
        await expect.poll(() => p.page.locator('#rating-value').textContent(), { timeout: 15_000 }).toBe('1500');
        expect(await p.page.locator('#rating-label').textContent()).toBe(L.rating);
      }
      // Nothing to watch yet.
      await watcher.page.locator('#live-box').waitFor({ state: 'visible', timeout: 15_000 });
      expect(await watcher.page.locator('#live-title').textContent()).toBe(L.live);
      await expect.poll(() => liveEmpty(watcher), { timeout: 15_000 }).toBe(L.empty);

      for (const p of [a, b]) await p.page.locator('manette-matchmaking').getByRole('button', { name: L.play }).click();
      for (const p of [a, b]) await p.page.locator('#match').waitFor({ state: 'visible', timeout: 20_000 });
      await expect.poll(async () => [await turnOf(a), await turnOf(b)].filter((t) => t === L.mine).length, { timeout: 15_000 }).toBe(1);
      const [x, o] = (await turnOf(a)) === L.mine ? [a, b] : [b, a];
      // The turn's countdown, from the server's tour_expire_le.
      await expect.poll(() => x.page.locator('#timer-text').textContent(), { timeout: 15_000 }).toMatch(L.mineLeft);
      await expect.poll(() => o.page.locator('#timer-text').textContent(), { timeout: 15_000 }).toMatch(L.theirLeft(x.pseudo));

      // The watcher finds the match in the list ("Refresh", or the list's own 5 s refresh).
      const item = watcher.page.locator('#live li');
      await expect.poll(async () => {
        await watcher.page.getByRole('button', { name: L.refresh }).click();
        return item.count();
      }, { timeout: 15_000 }).toBe(1);
      expect(await item.locator('.live-players').textContent()).toBe(L.vs(x.pseudo, o.pseudo));
      const matchId = (await item.getAttribute('data-partie'))!;
      expect(await item.locator('.room-code').textContent()).toBe(await x.page.locator('#room-code').textContent());
      await shots(watcher, 'watch-list', '#lobby');
      await item.getByRole('button', { name: L.watch }).click();
      await watcher.page.locator('#match').waitFor({ state: 'visible', timeout: 15_000 });
      expect(await watcher.page.locator('#watching').textContent()).toBe(L.watching);
      await expect.poll(() => turnOf(watcher), { timeout: 15_000 }).toBe(L.turnOf(x.pseudo));
      // Read-only: no forfeit, no "new match", and a click on the board sends nothing.
      expect(await watcher.page.locator('#forfeit').isHidden()).toBe(true);
      expect(await watcher.page.locator('#again').isHidden()).toBe(true);

      // X plays; everybody, the watcher too, sees it through `etat`.
      await x.page.locator('#board .cell[data-case="4"]').click();
      for (const p of [x, o, watcher]) await expect.poll(() => p.page.locator('#board .cell[data-case="4"]').textContent(), { timeout: 15_000 }).toBe('X');
      await watcher.page.locator('#board .cell[data-case="0"]').click();
      expect(await watcher.page.locator('#move-error').textContent()).toBe('');
      await expect.poll(() => turnOf(o), { timeout: 15_000 }).toBe(L.mine);
      await o.page.locator('#board .cell[data-case="0"]').click();
      for (const p of [x, o, watcher]) await expect.poll(() => p.page.locator('#board .cell[data-case="0"]').textContent(), { timeout: 15_000 }).toBe('O');
      await expect.poll(() => turnOf(x), { timeout: 15_000 }).toBe(L.mine);
      await expect.poll(() => watcher.page.locator('#timer-text').textContent(), { timeout: 15_000 }).toMatch(L.theirLeft(x.pseudo));
      await expect.poll(() => x.page.locator('#timer-text').textContent(), { timeout: 15_000 }).toMatch(L.mineLeft);
      await shots(x, 'timer', '#match');
      await shots(watcher, 'watch', '#match');

      // When the watcher's page first shows something else than X's turn (for the log below).
      const turnNow = await turnOf(watcher);
      await watcher.page.evaluate((before) => {
        const el = document.getElementById('turn')!;
        new MutationObserver(() => {
          const w = window as unknown as { endSeen?: number };
          if (w.endSeen === undefined && el.textContent !== before) w.endSeen = Date.now();
        }).observe(el, { childList: true, characterData: true, subtree: true });
      }, turnNow);

      // X walks away: the page is gone, nobody plays X's turn. The server ends it (the sweep).
      await x.ctx.close();
      const result = L.timeout(x.pseudo, L.wonBy(o.pseudo));
      await expect.poll(() => turnOf(watcher), { timeout: (DELAY_S + 30) * 1000 }).toBe(result);
      await expect.poll(() => turnOf(o), { timeout: 15_000 }).toBe(L.timeout(x.pseudo, L.won));
      expect(await watcher.page.locator('#timer').isHidden()).toBe(true);
      expect(await cellsOf(watcher)).toEqual(['O', '', '', '', 'X', '', '', '', '']);
      // The match's last action is the server's: X's turn expired, `abandon`. Read as the watcher
      // reads it (a client of the page's SDK on the same session: spectators may read the history).
      const last = await watcher.page.evaluate(async (id) => {
        const c = (window as unknown as { Manette: { createClient(o: object): { match(id: string): { history(o: object): Promise<{ actions: Record<string, unknown>[] }> } } } })
          .Manette.createClient({ baseUrl: `${location.origin}/api/public/v1`, apiKey: localStorage.getItem('manette-demo:api-key') });
        const h = await c.match(id).history({ limit: 500 });
        return { action: h.actions.at(-1)!, endSeen: (window as unknown as { endSeen?: number }).endSeen };
      }, matchId);
      expect(last.action).toMatchObject({ joueur_id: null, action: 'delai_depasse', donnees: { sur_delai: 'abandon' } });
      // Not asserted (no timed assertions): how long after the expiry the watcher saw the end.
      console.info(`demo-watch (${lang}): the watcher saw the end ${(last.endSeen ?? NaN) - Date.parse(String(last.action.cree_le))} ms after the turn expired`);

      // The winner: credited on the `victoires` board and re-rated by the server (1500 against 1500, K 32).
      await expect.poll(() => o.page.locator('#leaderboard li.me strong').textContent({ timeout: 2_000 }).catch(() => null), { timeout: 15_000 }).toBe('1');
      await expect.poll(() => o.page.locator('#rating-value').textContent(), { timeout: 15_000 }).toBe('1516');
      expect(await o.page.locator('#rating-delta').textContent()).toBe('+16');
      // The watcher played nothing: its rating has not moved.
      expect(await watcher.page.locator('#rating-value').textContent()).toBe('1500');
      await shots(o, 'timer-end', '#rating'); // on a phone: the rating, then the match below it
      await shots(watcher, 'watch-end', '#match');

      // The watcher replays the match: the timeout is its last step.
      expect(await watcher.page.locator('#again').isHidden()).toBe(true);
      await watcher.page.locator('#match').getByRole('button', { name: L.replay, exact: true }).click();
      await watcher.page.locator('#replay-bar').waitFor({ state: 'visible', timeout: 15_000 });
      await expect.poll(() => watcher.page.locator('#replay-pos').isEnabled(), { timeout: 15_000 }).toBe(true);
      await watcher.page.locator('#match').getByRole('button', { name: L.last, exact: true }).click();
      expect(await watcher.page.locator('#replay-step').textContent()).toBe(L.stepLast(x.pseudo));
      expect(await cellsOf(watcher)).toEqual(['O', '', '', '', 'X', '', '', '', '']);
      expect(await turnOf(watcher)).toBe(L.wonBy(o.pseudo));
      await shots(watcher, 'watch-replay', '#match');
      // Back: the list again, and the match is no longer in it.
      await watcher.page.getByRole('button', { name: lang === 'fr' ? 'Retour' : 'Back', exact: true }).click();
      await watcher.page.locator('#live-box').waitFor({ state: 'visible', timeout: 15_000 });
      await expect.poll(() => liveEmpty(watcher), { timeout: 15_000 }).toBe(L.empty);
      expect(await watcher.page.locator('#live li').count()).toBe(0);

      // Nothing wider than the phone's screen.
      expect(await o.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(o === b ? PHONE.width : DESKTOP.width);
      for (const p of [x, o, watcher]) expect(p.errors).toEqual([]);
      for (const p of [o, watcher]) await p.ctx.close();
    });
  }
});
