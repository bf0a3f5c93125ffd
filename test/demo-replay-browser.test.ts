// The web demo's "Revoir la partie" (/demo/, examples/demo/web) in a real browser against the
// real service: two players (a desktop and a phone) play a morpion match to a win through the
// page; the replay, rebuilt by the SDK from GET /match/history, steps through every state
// (first, previous, next, last, the slider, play), each drawn as the page draws a live one;
// the address keeps `?revoir=<id>`, so a reload (or the link, later) shows the finished
// match again; "Back" returns to the lobby. In French and in English, with the screenshots
// the docs show (docs/img/demo-replay*.png with UPDATE_SCREENSHOTS=1). A studio's mode of
// another shipped rule set (tour_par_tour) replays as its raw state, step by step.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { client, freshDatabase, startTestApp, twinAdminUrlOf, type TestApp } from './support/harness.js';
import { freePort } from './support/net.js';
import { readSettings } from '../api/config/settings.js';
import { startService } from '../api/server.js';
import { SCREENSHOT_DIR, haveBrowser, launchBrowser, warnIfNoBrowser } from './support/browser.js';

warnIfNoBrowser('demo-replay-browser');
const ROOT = path.join(import.meta.dirname, '..');

const TEXTS = {
  fr: {
    locale: 'fr-FR', signUp: 'Pas encore de compte ? Inscris-toi', pseudo: 'Pseudo', email: 'E-mail', password: 'Mot de passe (8 caractères au moins)',
    create: 'Créer mon compte', signedIn: 'Connecté en tant que', play: 'Jouer', mine: 'À toi de jouer !', won: 'Tu as gagné !',
    replay: 'Revoir la partie', back: 'Retour', first: 'Début', prev: 'Coup précédent', next: 'Coup suivant', last: 'Fin', start: 'Lecture', pause: 'Pause',
    step0: 'Début de la partie (5 coups)', step: (i: number, who: string, c: number) => `Coup ${i} sur 5 : ${who} joue en case ${c + 1}`,
    turnOf: (who: string) => `Tour de ${who}…`, lobby: 'Clique sur « Jouer »', players: ['camille', 'leo'],
  },
  en: {
    locale: 'en-US', signUp: 'No account yet? Sign up', pseudo: 'Username', email: 'Email', password: 'Password (at least 8 characters)',
    create: 'Create my account', signedIn: 'Signed in as', play: 'Play', mine: 'Your turn!', won: 'You won!',
    replay: 'Replay the match', back: 'Back', first: 'Start', prev: 'Previous move', next: 'Next move', last: 'End', start: 'Autoplay', pause: 'Pause',
    step0: 'Start of the match (5 moves)', step: (i: number, who: string, c: number) => `Move ${i} of 5: ${who} plays square ${c + 1}`,
    turnOf: (who: string) => `${who}’s turn…`, lobby: 'Press “Play”', players: ['ada', 'ben'],
  },
} as const;

describe.skipIf(!haveBrowser)('web demo: replaying a match in a browser', () => {
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

  for (const lang of ['fr', 'en'] as const) {
    it(`a finished morpion match, step by step, on a desktop and a phone (${lang})`, async () => {
      const L = TEXTS[lang];
      const suffix = lang === 'fr' ? '' : '-en';
      const shot = (p: Page, name: string, phone: boolean) =>
        p.screenshot({ path: path.join(SCREENSHOT_DIR, `demo-${name}${phone ? '-phone' : ''}${suffix}.png`) });
      interface Player { page: Page; ctx: BrowserContext; phone: boolean; pseudo: string; errors: string[] }
      const players: Player[] = [];
      for (const [i, phone] of [false, true].entries()) {
        const ctx = await browser.newContext({ viewport: phone ? { width: 375, height: 740 } : { width: 1280, height: 860 }, locale: L.locale });
        const page = await ctx.newPage();
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(e.message));
        await page.goto(`${origin}/demo/?key=${key}`);
        const pseudo = L.players[i]!;
        const login = page.locator('manette-login');
        await login.getByRole('button', { name: L.signUp }).click();
        await login.getByLabel(L.pseudo, { exact: true }).fill(pseudo);
        await login.getByLabel(L.email).fill(`${pseudo}@example.test`);
        await login.getByLabel(L.password).fill('motdepasse-solide');
        await login.getByRole('button', { name: L.create }).click();
        await login.getByText(`${L.signedIn} ${pseudo}`).waitFor({ timeout: 15_000 });
        players.push({ page, ctx, phone, pseudo, errors });
      }
      for (const p of players) await p.page.locator('manette-matchmaking').getByRole('button', { name: L.play }).click();
      for (const p of players) await p.page.locator('#match').waitFor({ state: 'visible', timeout: 20_000 });
      const turnOf = (p: Page) => p.locator('#turn').textContent();
      await expect.poll(async () => (await Promise.all(players.map((p) => turnOf(p.page)))).filter((x) => x === L.mine).length, { timeout: 15_000 }).toBe(1);
      const [x, o] = (await turnOf(players[0]!.page)) === L.mine ? [players[0]!, players[1]!] : [players[1]!, players[0]!];
      const cellsOf = (p: Page) => p.locator('#board .cell').allTextContents();
      // X wins on the diagonal 2-4-6.
      const moves = [4, 0, 2, 1, 6];
      for (const [i, c] of moves.entries()) {
        const p = (i % 2 === 0 ? x : o).page;
        await expect.poll(() => turnOf(p), { timeout: 15_000 }).toBe(L.mine);
        await p.locator(`#board .cell[data-case="${c}"]`).click();
        await expect.poll(() => p.locator(`#board .cell[data-case="${c}"]`).textContent(), { timeout: 15_000 }).toBe(i % 2 === 0 ? 'X' : 'O');
      }
      await expect.poll(() => turnOf(x.page), { timeout: 15_000 }).toBe(L.won);
      // The board every step should show: the marks after i moves.
      const boardAfter = (i: number) => Array.from({ length: 9 }, (_, c) => {
        const k = moves.slice(0, i).indexOf(c);
        return k < 0 ? '' : k % 2 === 0 ? 'X' : 'O';
      });
      const matchId = await x.page.evaluate(() => new URLSearchParams(location.search).get('revoir'));
      expect(matchId).toBeNull();

      for (const p of players) {
        const page = p.page;
        const button = (name: string) => page.locator('#match').getByRole('button', { name, exact: true });
        // Offered once the match is over, next to "New match".
        await button(L.replay).click();
        await expect.poll(() => page.locator('#replay-step').textContent(), { timeout: 15_000 }).toBe(L.step0);
        expect(await cellsOf(page)).toEqual(boardAfter(0));
        expect(await turnOf(page)).toBe(L.turnOf(x.pseudo));
        expect(await page.locator('#replay').isHidden()).toBe(true);
        expect(await page.locator('#again').isHidden()).toBe(true);
        expect(await page.locator('#forfeit').isHidden()).toBe(true);
        expect(await button(L.first).isDisabled()).toBe(true);
        expect(await button(L.prev).isDisabled()).toBe(true);
        // The address names the match: a reload, or the link later, replays it again.
        const id = await page.evaluate(() => new URLSearchParams(location.search).get('revoir'));
        expect(id).toMatch(/^[0-9a-f-]{36}$/);
        // Next, step by step: each state drawn as the page draws a live one, the square just played marked.
        for (let i = 1; i <= moves.length; i++) {
          await button(L.next).click();
          const who = i % 2 === 1 ? x.pseudo : o.pseudo;
          expect(await page.locator('#replay-step').textContent()).toBe(L.step(i, who, moves[i - 1]!));
          expect(await cellsOf(page)).toEqual(boardAfter(i));
          expect(await page.locator('#board .cell.last').getAttribute('data-case')).toBe(String(moves[i - 1]));
          if (i === 3) {
            await page.mouse.move(0, 0);
            await shot(page, 'replay', p.phone);
          }
        }
        // The last state is the final one: the winning line, the winner.
        expect(await page.locator('#board .cell.winning').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.case))).toEqual(['2', '4', '6']);
        expect(await turnOf(page)).toBe(p === x ? L.won : (lang === 'fr' ? `${x.pseudo} a gagné.` : `${x.pseudo} won.`));
        expect(await button(L.next).isDisabled()).toBe(true);
        expect(await button(L.last).isDisabled()).toBe(true);
        await page.mouse.move(0, 0);
        await shot(page, 'replay-end', p.phone);
        // Previous, first, last, and the slider.
        await button(L.prev).click();
        expect(await cellsOf(page)).toEqual(boardAfter(4));
        expect(await page.locator('#board .cell.winning').count()).toBe(0);
        await button(L.first).click();
        expect(await cellsOf(page)).toEqual(boardAfter(0));
        expect(await page.locator('#board .cell.last').count()).toBe(0);
        await button(L.last).click();
        expect(await cellsOf(page)).toEqual(boardAfter(5));
        await page.locator('#replay-pos').fill('2');
        expect(await cellsOf(page)).toEqual(boardAfter(2));
        expect(await page.locator('#replay-step').textContent()).toBe(L.step(2, o.pseudo, moves[1]!));
        // Play: the moves follow one another up to the end, then it stops.
        await button(L.start).click();
        expect(await page.locator('#replay-play').textContent()).toBe(L.pause);
        await expect.poll(() => cellsOf(page), { timeout: 15_000 }).toEqual(boardAfter(5));
        await expect.poll(() => page.locator('#replay-play').textContent(), { timeout: 15_000 }).toBe(L.start);
        // Clicking a square during the replay plays nothing (and asks the server nothing).
        await page.locator('#board .cell[data-case="8"]').click();
        expect(await page.locator('#move-error').textContent()).toBe('');
        expect(await cellsOf(page)).toEqual(boardAfter(5));
      }

      // A finished match, later: the page opened (or reloaded) with ?revoir=<id>.
      const id = await o.page.evaluate(() => new URLSearchParams(location.search).get('revoir'));
      await o.page.reload();
      await expect.poll(() => o.page.locator('#replay-step').textContent(), { timeout: 15_000 }).toBe(L.step0);
      expect(await o.page.evaluate(() => new URLSearchParams(location.search).get('revoir'))).toBe(id);
      await o.page.getByRole('button', { name: L.last, exact: true }).click();
      expect(await cellsOf(o.page)).toEqual(boardAfter(5));
      // Back: the lobby, and the address no longer names the match.
      await o.page.getByRole('button', { name: L.back, exact: true }).click();
      expect(await o.page.locator('#match').isHidden()).toBe(true);
      expect(await o.page.locator('#lobby-text').textContent()).toContain(L.lobby);
      expect(await o.page.evaluate(() => new URLSearchParams(location.search).has('revoir'))).toBe(false);
      // Nothing wider than the phone's screen.
      for (const p of players) if (p.phone) expect(await p.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
      for (const p of players) {
        expect(p.errors).toEqual([]);
        await p.ctx.close();
      }
    });
  }

  it('a studio\'s tour_par_tour mode: the replay shows the raw state and each action, step by step', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'manette-replay-demo-'));
    const gameFile = path.join(dir, 'game.json');
    await writeFile(gameFile, JSON.stringify({
      jeu: 'mon-jeu', nom: 'Mon jeu', origines: ['*'],
      modes: { duel: { equipes: 2, joueurs_par_equipe: 1, regles: 'tour_par_tour' } },
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
      const studioKey = service.game!.api_key;
      // Margot plays in the page; nils over plain HTTP.
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'fr-FR' });
      const page = await ctx.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${studioOrigin}/demo/?key=${studioKey}`);
      const login = page.locator('manette-login');
      await login.getByRole('button', { name: TEXTS.fr.signUp }).click();
      await login.getByLabel(TEXTS.fr.pseudo, { exact: true }).fill('margot');
      await login.getByLabel(TEXTS.fr.email).fill('margot@example.test');
      await login.getByLabel(TEXTS.fr.password).fill('motdepasse-solide');
      await login.getByRole('button', { name: TEXTS.fr.create }).click();
      await login.getByText(`${TEXTS.fr.signedIn} margot`).waitFor({ timeout: 15_000 });
      await page.locator('manette-matchmaking').getByRole('button', { name: TEXTS.fr.play }).click();
      const api = client(service.baseUrl, studioKey);
      const nils = await api.register('nils');
      await expect.poll(async () => (await api.post('/matchmaking/join', { mode_jeu: 'duel', elo_actuel: 1000 }, { token: nils.token })).body.status, { timeout: 15_000 })
        .toBe('matched');
      await page.locator('#match').waitFor({ state: 'visible', timeout: 20_000 });
      const partieId = (await api.get('/matchmaking/status', { token: nils.token })).body.partie_id as string;
      const nilsAct = async (action: string, donnees: Record<string, unknown>) => {
        const r = await api.post('/match/action', { partie_id: partieId, action, donnees }, { token: nils.token });
        expect(r.status, JSON.stringify(r.body)).toBe(200);
      };
      const etat = async () => JSON.parse((await page.locator('#etat').textContent()) || 'null');
      // Whoever has the first seat starts.
      const first = (await api.get(`/match/state?partie_id=${partieId}`, { token: nils.token })).body.partie.tour_joueur;
      const margotAct = async (action: string, donnees: string) => {
        await expect.poll(() => page.locator('#turn').textContent(), { timeout: 15_000 }).toBe(TEXTS.fr.mine);
        await page.getByLabel('Action').fill(action);
        await page.getByLabel('Données (JSON)').fill(donnees);
        await page.getByRole('button', { name: 'Envoyer' }).click();
      };
      const steps: string[] = [];
      if (first === nils.data.joueur.id) { await nilsAct('poser', { a: 1 }); steps.push('nils joue « poser » {"a":1}'); }
      await margotAct('poser', '{"b": [1, 2]}');
      steps.push('margot joue « poser » {"b":[1,2]}');
      await expect.poll(etat, { timeout: 15_000 }).toMatchObject({ b: [1, 2] });
      await nilsAct('retirer', { b: null });
      steps.push('nils joue « retirer » {"b":null}');
      await nilsAct('abandonner', {});
      steps.push('nils abandonne');
      await expect.poll(() => page.locator('#turn').textContent(), { timeout: 15_000 }).toBe('Tu as gagné !');
      const final = await etat();

      await page.getByRole('button', { name: TEXTS.fr.replay }).click();
      const n = steps.length;
      await expect.poll(() => page.locator('#replay-step').textContent(), { timeout: 15_000 }).toBe(`Début de la partie (${n} coups)`);
      expect(await etat()).toEqual({});
      // The action form is gone: a replay sends nothing.
      expect(await page.locator('#act-form').isHidden()).toBe(true);
      expect(await page.locator('#board').isHidden()).toBe(true);
      for (let i = 1; i <= n; i++) {
        await page.locator('#match').getByRole('button', { name: TEXTS.fr.next, exact: true }).click();
        expect(await page.locator('#replay-step').textContent()).toBe(`Coup ${i} sur ${n} : ${steps[i - 1]}`);
      }
      expect(await etat()).toEqual(final);
      expect(await page.locator('#turn').textContent()).toBe('Tu as gagné !');
      await page.locator('#match').getByRole('button', { name: TEXTS.fr.prev, exact: true }).click();
      expect(await etat()).toEqual(final);
      // nils forfeited on margot's turn.
      expect(await page.locator('#turn').textContent()).toBe('Tour de margot…');
      await page.mouse.move(0, 0);
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'demo-replay-studio.png') });
      expect(errors).toEqual([]);
      await ctx.close();
    } finally {
      await service.close();
    }
  });
});
