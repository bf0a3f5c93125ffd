// The console's Matches page (docs/console.md#matches) against real parts: the façade and
// the local Realtime stand-in on a test database (the RLS policies of realtime.messages run
// as Supabase runs them), the console server with its console token, players playing over
// HTTP, realtime-js in Node for what the players hear, Chromium for the page, the real CLI
// for "the console changes the database exactly as `manette match end` / `cancel` would".
import WebSocket from 'ws';
import { RealtimeClient, type RealtimeClientOptions } from '@supabase/realtime-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import path from 'node:path';
import { client, startTestApp, type TestApp } from './support/harness.js';
import { startTestConsole, type TestConsole } from './support/console.js';
import { haveBrowser, launchBrowser, SCREENSHOT_DIR, warnIfNoBrowser } from './support/browser.js';
import { runManetteJson } from './support/manette-cli.js';
import { waitUntil } from './support/wait.js';

const WIDE = { elo_ecart_initial: 10000 };
const GAME = { jeu: 'cm-live', nom: 'Morpion en direct', modes: {
  duel: { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', delai_tour_s: 600, ...WIDE },
  bac: { equipes: 2, joueurs_par_equipe: 1, regles: 'libre', ...WIDE },
} };
const GAME_B = { jeu: 'cm-other', nom: 'Un autre jeu', modes: { duel: { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', ...WIDE } } };
const EN = 'en_US.UTF-8';
/** A bound only (a hang becomes a readable failure): below the page's 30 s safety re-read, so what arrives came over Realtime. */
const LIVE_MS = 20_000;

let app: TestApp;
let con: TestConsole;
let key: string;
let keyB: string;
let counter = 0;

beforeAll(async () => {
  app = await startTestApp({}, undefined, { realtime: true });
  key = await app.applyGame(GAME);
  keyB = await app.applyGame(GAME_B);
  con = await startTestConsole({ databaseUrl: app.databaseUrl, realtime: { url: app.realtimeUrl!, key: '', signer: app.signer } });
}, 60_000);
afterAll(async () => {
  await Promise.all(rtClients.splice(0).map(async (c) => { await c.removeAllChannels(); c.disconnect(); }));
  await con?.close();
  await app?.close();
});

type Api = ReturnType<typeof client>;
interface Player { token: string; id: string; pseudo: string; api: Api }
async function player(on: Api): Promise<Player> {
  const pseudo = `cm${++counter}_${Math.random().toString(36).slice(2, 6)}`;
  const r = await on.register(pseudo);
  return { token: r.token, id: r.data.joueur.id, pseudo, api: on };
}
/** Two new players matched through /matchmaking/join, in seat order. */
async function match(mode = 'duel', on: Api = client(app.baseUrl, key)): Promise<{ id: string; seats: Player[] }> {
  const ps = [await player(on), await player(on)];
  let last: any;
  for (const p of ps) last = (await on.post('/matchmaking/join', { mode_jeu: mode, elo_actuel: 1000 }, { token: p.token })).body;
  expect(last.status).toBe('matched');
  const byId = new Map(ps.map((p) => [p.id, p]));
  return { id: last.partie_id, seats: last.participants.map((x: any) => byId.get(x.joueur_id)!) };
}
async function play(p: Player, partie_id: string, c: number): Promise<any> {
  const r = await p.api.post('/match/action', { partie_id, action: 'jouer', donnees: { case: c } }, { token: p.token });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.partie;
}
const stateOf = async (p: Player, partie_id: string) => (await p.api.get(`/match/state?partie_id=${partie_id}`, { token: p.token })).body.partie;

// realtime-js in Node: what a player hears, and what the console token may open.
const rtClients: RealtimeClient[] = [];
function rtClient(url: string, apikey: string): RealtimeClient {
  const rt = new RealtimeClient(url, {
    params: { apikey }, timeout: 5_000,
    transport: WebSocket as unknown as RealtimeClientOptions['transport'], // Node 20 has no global WebSocket
  });
  rtClients.push(rt);
  return rt;
}
async function join(rt: RealtimeClient, topic: string, got: { event: string; payload: any }[] = []): Promise<typeof got> {
  const ch = rt.channel(topic, { config: { private: true } }).on('broadcast', { event: '*' }, (m: any) => got.push({ event: m.event, payload: m.payload }));
  await new Promise<void>((resolve, reject) => ch.subscribe((status, err) => {
    if (status === 'SUBSCRIBED') resolve();
    else if (status !== 'CLOSED') { void rt.removeChannel(ch); reject(new Error(`${status} ${err?.message ?? ''}`)); }
  }));
  return got;
}
/** The player hears its match room (its own token from GET /realtime/config). */
async function listen(p: Player, partieId: string) {
  const cfg = (await p.api.get('/realtime/config', { token: p.token })).body;
  const rt = rtClient(cfg.url, cfg.key);
  await rt.setAuth(cfg.token);
  return join(rt, `${cfg.channel_prefix}${partieId}`);
}

const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString());
const gameId = async (slug: string) => (await app.sql('select id from manette.games where slug = $1', [slug]))[0]!.id as string;

/** What an end or cancel wrote: the match row, the history rows, the audit rows (ids made comparable). */
async function written(partieId: string) {
  const m = (await app.sql(`select status, winner_team, turn_number, (ended_at = updated_at) as ended_now,
      (select array_agg(mp.player_id order by mp.seat) from manette.match_players mp where mp.match_id = m.id) as seats,
      winner_player_id from manette.matches m where id = $1`, [partieId]))[0]!;
  const seatOf = (id: string | null) => (id === null ? null : `seat${(m.seats as string[]).indexOf(id) + 1}`);
  const actions = (await app.sql(`select seq, player_id, action, data, turn_number from manette.match_actions where match_id = $1 order by seq`, [partieId]))
    .map((a: any) => ({ ...a, player_id: seatOf(a.player_id), data: a.data.gagnant_id !== undefined ? { ...a.data, gagnant_id: seatOf(a.data.gagnant_id) } : a.data }));
  const audit = (await app.sql(`select command, details, operator, db_user from manette.admin_audit where details->>'partie_id' = $1 order by id`, [partieId]))
    .map((a: any) => ({
      command: a.command, operator: a.operator, db_user: a.db_user,
      details: {
        ...a.details, partie_id: 'ID',
        avant: { ...a.details.avant, tour_joueur: seatOf(a.details.avant.tour_joueur), maj_le: typeof a.details.avant.maj_le },
        apres: { ...a.details.apres, gagnant_id: seatOf(a.details.apres.gagnant_id), termine_le: typeof a.details.apres.termine_le },
      },
    }));
  return { match: { status: m.status, winner: seatOf(m.winner_player_id), winner_team: m.winner_team, turn_number: m.turn_number, ended_now: m.ended_now }, actions, audit };
}
const auditCount = async () => Number((await app.sql('select count(*) as n from manette.admin_audit'))[0]!.n);
const matchRow = async (id: string) => (await app.sql('select status, winner_player_id, turn_number, updated_at, last_action_seq from manette.matches where id = $1', [id]))[0]!;

describe('the console token and GET /api/games/:jeu/realtime', () => {
  it('gives the Realtime URL, the game\'s oldest key and a console token that opens this game\'s rooms and topic, nothing of another game', async () => {
    const s = await con.session();
    const res = await s.fetch('/api/games/cm-live/realtime');
    expect(res.status).toBe(200);
    const cfg = (await res.json()).data;
    const idA = await gameId('cm-live');
    expect(cfg).toEqual({ url: app.realtimeUrl, key, token: expect.any(String), token_expire_le: expect.any(String),
      topic_jeu: `manette_jeu_${idA}`, prefixe_partie: 'manette_partie_' });
    const claims = claimsOf(cfg.token);
    expect(claims).toEqual({ iss: 'manette', role: 'authenticated', aud: 'authenticated', jeu_id: idA, manette_console: true,
      iat: expect.any(Number), exp: expect.any(Number) });
    expect(claims.exp * 1000).toBe(Date.parse(cfg.token_expire_le));
    expect((await (await s.fetch('/api/games/nope/realtime')).json())).toMatchObject({ ok: false, error: 'game_not_found' });

    const rt = rtClient(cfg.url, cfg.key);
    await rt.setAuth(cfg.token);
    const heard = await join(rt, cfg.topic_jeu);
    const theirs = await match('duel', client(app.baseUrl, keyB));
    await expect(join(rt, `manette_jeu_${await gameId('cm-other')}`)).rejects.toThrow(/CHANNEL_ERROR/);
    await expect(join(rt, `manette_partie_${theirs.id}`)).rejects.toThrow(/CHANNEL_ERROR/);
    await expect(join(rt, `manette_joueur_${theirs.seats[0]!.id}`)).rejects.toThrow(/CHANNEL_ERROR/);
    // A new match of this game is announced on its topic, once; its room opens to the console.
    const ours = await match();
    const announced = await waitUntil(() => heard.find((e) => e.payload.id === ours.id), 'the partie event', LIVE_MS);
    expect(announced).toEqual({ event: 'partie', payload: { id: ours.id, mode_jeu: 'duel', statut: 'en_cours', cree_le: expect.any(String) } });
    expect(heard.filter((e) => e.payload.id === theirs.id)).toEqual([]);
    const room = await join(rt, `manette_partie_${ours.id}`);
    await play(ours.seats[0]!, ours.id, 4);
    await waitUntil(() => room.find((e) => e.event === 'etat' && e.payload.numero_tour === 2), 'the etat of the move', LIVE_MS);
    expect(heard.filter((e) => e.payload.id === ours.id)).toHaveLength(1);
    await rt.removeAllChannels();
  });

  it('a console without Realtime answers null (the page then polls)', async () => {
    const bare = await startTestConsole({ databaseUrl: app.databaseUrl });
    try {
      const s = await bare.session();
      expect(await (await s.fetch('/api/games/cm-live/realtime')).json()).toEqual({ ok: true, data: null });
    } finally {
      await bare.close();
    }
  });
});

describe('end and cancel: refusals', () => {
  it('bad input answers the envelope and changes nothing', async () => {
    const { id, seats: [x] } = await match();
    const other = await match('duel', client(app.baseUrl, keyB));
    const s = await con.session();
    const before = [await matchRow(id), await matchRow(other.id), await auditCount()];
    const post = async (p: string, body: unknown) => { const r = await s.fetch(p, { method: 'POST', body: JSON.stringify(body) }); return { status: r.status, body: await r.json() }; };
    const both = await post(`/api/games/cm-live/matches/${id}/end`, { gagnant: x!.id, nul: true });
    expect(both).toEqual({ status: 400, body: { ok: false, error: 'validation_failed', message: expect.any(String), details: [{ champ: 'gagnant', message: expect.any(String) }] } });
    const neither = await post(`/api/games/cm-live/matches/${id}/end`, { raison: 'x' });
    expect(neither.body).toMatchObject({ ok: false, error: 'validation_failed', details: [{ champ: 'gagnant' }] });
    const stranger = await post(`/api/games/cm-live/matches/${id}/end`, { gagnant: other.seats[0]!.id });
    expect(stranger).toMatchObject({ status: 400, body: { ok: false, error: 'validation_failed', details: [{ champ: 'gagnant' }] } });
    const elsewhere = await post(`/api/games/cm-live/matches/${other.id}/end`, { nul: true });
    expect(elsewhere).toEqual({ status: 404, body: { ok: false, error: 'match_not_found', message: 'Match not found.' } });
    const elsewhereCancel = await post(`/api/games/cm-live/matches/${other.id}/cancel`, {});
    expect(elsewhereCancel.status).toBe(404);
    const extra = await post(`/api/games/cm-live/matches/${id}/cancel`, { raison: 'x', force: true });
    expect(extra).toMatchObject({ status: 400, body: { ok: false, error: 'validation_failed' } });
    const badType = await post(`/api/games/cm-live/matches/${id}/end`, { nul: 'oui' });
    expect(badType).toMatchObject({ status: 400, body: { ok: false, error: 'validation_failed', details: [{ champ: 'nul' }] } });
    const replayElsewhere = await s.fetch(`/api/games/cm-live/matches/${other.id}/replay`);
    expect(replayElsewhere.status).toBe(404);
    expect([await matchRow(id), await matchRow(other.id), await auditCount()]).toEqual(before);
    // Without the CSRF token: refused before anything.
    const forged = await fetch(`${con.origin}/api/games/cm-live/matches/${id}/cancel`, { method: 'POST', headers: { cookie: s.cookie, 'content-type': 'application/json' }, body: '{}' });
    expect(forged.status).toBe(403);
    expect(await matchRow(id)).toEqual(before[0]);
  });
});

describe.skipIf(!haveBrowser)('the page', () => {
  warnIfNoBrowser('test/console-matches.test.ts');
  let browser: Browser;
  beforeAll(async () => { browser = await launchBrowser(); });
  afterAll(async () => { await browser?.close(); });

  const waitText = (l: Locator, text: string | RegExp) => l.filter({ hasText: text }).first().waitFor({ timeout: LIVE_MS });
  const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SCREENSHOT_DIR, name), fullPage: true });
  /** A signed-in page on the matches page. The shell's first-game redirect may land after
   *  the helper's hash change (it opens on `/` first): the hash is set again once it is up. */
  async function open(context: BrowserContext, lang: 'en' | 'fr' = 'en'): Promise<Page> {
    const page = await con.open(context, '#/cm-live/matches', lang);
    await page.evaluate(() => { location.hash = '#/cm-live/matches'; });
    await page.locator('h1').filter({ hasText: lang === 'fr' ? 'Parties' : 'Matches' }).waitFor();
    return page;
  }

  it('lists matches as they start and follows their moves live; replays a match step by step as the players saw it; ends and cancels it as the CLI would', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await open(context);
    await page.locator('[data-live="on"]').waitFor({ timeout: LIVE_MS });

    // Two players are matched over HTTP: the match appears, live.
    const { id, seats: [x, o] } = await match();
    const heard = await listen(x!, id);
    const states = [await stateOf(x!, id)];
    const row = page.locator(`tr[data-partie="${id}"]`);
    await row.waitFor({ timeout: LIVE_MS });
    expect(await row.locator('[data-tour]').textContent()).toBe('1');
    expect(await row.textContent()).toContain(x!.pseudo);
    // Moves played over HTTP: the turn and whose turn change on the page.
    states.push(await play(x!, id, 4));
    await waitText(row.locator('[data-tour]'), /^2$/);
    await waitText(row.locator('[data-a-jouer]'), o!.pseudo);
    states.push(await play(o!, id, 0));
    await waitText(row.locator('[data-tour]'), /^3$/);
    await waitText(row.locator('[data-a-jouer]'), x!.pseudo);

    // Two more matches, for a list worth a picture.
    const second = await match('bac');
    await page.locator(`tr[data-partie="${second.id}"]`).waitFor({ timeout: LIVE_MS });
    const third = await match();
    await page.locator(`tr[data-partie="${third.id}"]`).waitFor({ timeout: LIVE_MS });
    await play(third.seats[0]!, third.id, 0);

    // The match: live, replayed step by step.
    await row.locator('a').first().click();
    await page.waitForURL(`**/#/cm-live/matches/${id}`);
    await page.locator('[data-live="on"]').waitFor({ timeout: LIVE_MS });
    states.push(await play(x!, id, 8));
    await waitText(page.locator('[data-match-state] [data-tour]'), /^4$/);
    await page.locator('[data-step="3"]').waitFor({ timeout: LIVE_MS });
    await page.getByTitle('First').click();
    const shown: unknown[] = [];
    for (let step = 0; step <= 3; step++) {
      await page.locator(`[data-step="${step}"]`).waitFor();
      await page.locator('[data-etat]').waitFor({ state: 'attached' });
      shown.push(JSON.parse((await page.locator('[data-etat]').textContent())!));
      if (step < 3) await page.locator('[data-next]').click();
    }
    expect(shown).toEqual(states);
    // Equal to what the player heard over Realtime, move after move.
    await waitUntil(() => heard.filter((e) => e.event === 'etat').length === 3, 'the player heard 3 etat', LIVE_MS);
    expect(shown.slice(1)).toEqual(heard.filter((e) => e.event === 'etat').map((e) => e.payload));

    // A twin match, played the same way, ended by the real CLI.
    const twin = await match();
    await play(twin.seats[0]!, twin.id, 4);
    await play(twin.seats[1]!, twin.id, 0);
    await play(twin.seats[0]!, twin.id, 8);
    const cli = await runManetteJson(['match', 'end', twin.id, '--gagnant', twin.seats[0]!.id, '--raison', 'test console'], app.databaseUrl, EN);
    expect(cli.code, cli.stderr).toBe(0);

    // End from the console, by clicking: x wins.
    await page.locator('form[data-end] input[type="radio"]').first().check();
    await page.locator('form[data-end] input[type="text"]').fill('test console');
    await page.getByRole('button', { name: 'End the match' }).click();
    await page.getByRole('button', { name: 'Really end it?' }).click();
    await waitText(page.locator('[data-result]'), `${x!.pseudo} won (team 1)`);
    const fin = await waitUntil(() => heard.find((e) => e.event === 'etat' && e.payload.statut === 'terminee'), 'the player hears the end', LIVE_MS);
    expect(fin.payload).toEqual(await stateOf(x!, id));
    expect(heard.find((e) => e.event === 'action' && e.payload.action === 'fin_admin')?.payload)
      .toEqual({ joueur_id: null, action: 'fin_admin', donnees: { gagnant_id: x!.id, gagnant_equipe: 1 }, numero_tour: 4, id: expect.any(String) });
    const mine = await written(id);
    const theirs = await written(twin.id);
    expect(mine.audit).toHaveLength(1);
    expect(mine.audit[0]!.operator).toMatch(/ \(console\)$/);
    expect(theirs.audit[0]!.operator).not.toMatch(/ \(console\)$/);
    const sameish = (w: typeof mine) => ({ ...w, audit: w.audit.map((a: any) => ({ ...a, operator: a.operator.replace(/ \(console\)$/, '') })) });
    expect(sameish(mine)).toEqual(sameish(theirs));
    expect(mine.match).toEqual({ status: 'terminee', winner: 'seat1', winner_team: 1, turn_number: 4, ended_now: true });
    expect(mine.actions.at(-1)).toEqual({ seq: 4, player_id: null, action: 'fin_admin', data: { gagnant_id: 'seat1', gagnant_equipe: 1 }, turn_number: 4 });
    expect(mine.audit[0]!.details).toMatchObject({ raison: 'test console', avant: { statut: 'en_cours' }, apres: { statut: 'terminee', gagnant_id: 'seat1' } });
    // The replay ends on the state the players read.
    await page.locator('[data-step="4"]').waitFor({ timeout: LIVE_MS });
    expect(JSON.parse((await page.locator('[data-etat]').textContent())!)).toEqual(await stateOf(x!, id));

    // Cancel, by clicking, against a twin cancelled by the CLI.
    const twinC = await match('bac');
    const cliC = await runManetteJson(['match', 'cancel', twinC.id, '--raison', 'bug'], app.databaseUrl, EN);
    expect(cliC.code, cliC.stderr).toBe(0);
    const heardC = await listen(second.seats[1]!, second.id);
    await page.goto(`${con.origin}/#/cm-live/matches/${second.id}`);
    await page.locator('form[data-cancel]').waitFor();
    await page.locator('form[data-cancel] input[type="text"]').fill('bug');
    await page.getByRole('button', { name: 'Cancel the match' }).click();
    await page.getByRole('button', { name: 'Really cancel it?' }).click();
    await waitText(page.locator('[data-result]'), 'cancelled, no result');
    await waitUntil(() => heardC.find((e) => e.event === 'etat' && e.payload.statut === 'annulee'), 'the players hear the cancel', LIVE_MS);
    const mineC = await written(second.id);
    expect(sameish(mineC)).toEqual(sameish(await written(twinC.id)));
    expect(mineC.audit[0]).toMatchObject({ command: 'match cancel', operator: expect.stringMatching(/ \(console\)$/),
      details: { raison: 'bug', avant: { statut: 'en_cours' }, apres: { statut: 'annulee' } } });

    // The list follows: the ended and cancelled matches leave "in progress".
    await page.goto(`${con.origin}/#/cm-live/matches`);
    await page.locator(`tr[data-partie="${third.id}"]`).waitFor({ timeout: LIVE_MS });
    expect(await page.locator(`tr[data-partie="${id}"]`).count()).toBe(0);
    expect(await page.locator(`tr[data-partie="${second.id}"]`).count()).toBe(0);
    await context.close();
  }, 120_000);

  it('screenshots: the list and a match mid-replay, desktop and tablet, English and French', async () => {
    const a = await match();
    await play(a.seats[0]!, a.id, 4);
    await play(a.seats[1]!, a.id, 2);
    await play(a.seats[0]!, a.id, 0);
    const b = await match('bac');
    await b.seats[0]!.api.post('/match/action', { partie_id: b.id, action: 'poser', donnees: { score: 12, main: ['as', 'roi'] } }, { token: b.seats[0]!.token });
    for (const [width, height, suffix] of [[1280, 800, ''], [768, 1024, '-tablet']] as const) {
      for (const lang of ['en', 'fr'] as const) {
        const context = await browser.newContext({ viewport: { width, height } });
        const page = await open(context, lang);
        await page.locator('[data-live="on"]').waitFor({ timeout: LIVE_MS });
        await page.locator(`tr[data-partie="${a.id}"]`).waitFor();
        const l = lang === 'fr' ? '-fr' : '';
        await shot(page, `console-matches${suffix}${l}.png`);
        await page.goto(`${con.origin}/#/cm-live/matches/${a.id}`);
        await page.locator('[data-step="3"]').waitFor({ timeout: LIVE_MS });
        await page.locator('[data-prev]').click();
        await page.locator('[data-step="2"]').waitFor();
        await page.locator('.morpion').waitFor();
        await shot(page, `console-match${suffix}${l}.png`);
        await context.close();
      }
    }
  }, 120_000);
});
