// The console's Players, Keys and Audit pages (console/server/routes/players.ts, keys.ts,
// audit.ts; console/web/pages/players.tsx, keys.tsx, audit.tsx) against the real API, the
// real console server and the real CLI on one database: players registered through the
// API are found by the console; a session revoked there is refused by the API at once; a
// key rotation done in the console leaves the database as `manette keys` does; every write
// leaves an audit row (avant / apres, operator "... (console)"); bad input gets the
// envelope and changes nothing. Then the pages in Chromium, clicked through, with
// screenshots (UPDATE_SCREENSHOTS=1 writes them to docs/img).
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { client, startTestApp, type TestApp } from './support/harness.js';
import { startTestConsole, type TestConsole } from './support/console.js';
import { haveBrowser, launchBrowser, SCREENSHOT_DIR, warnIfNoBrowser } from './support/browser.js';
import { runManetteJson } from './support/manette-cli.js';

let app: TestApp;
let con: TestConsole;
let s: Awaited<ReturnType<TestConsole['session']>>;
const keys: Record<string, string> = {};
const EN = 'en_US.UTF-8';

const GAME = {
  tables: { notes: { colonnes: { texte: { type: 'text' } }, lecture: 'public', ecriture: 'joueurs' } },
  classements: { score: { nom: 'Score' } },
  modes: { '1v1': { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', elo_ecart_initial: 10000 } },
};

beforeAll(async () => {
  app = await startTestApp();
  for (const jeu of ['cpk', 'cpk-other', 'cpk-cli', 'cpk-web']) keys[jeu] = await app.applyGame({ jeu, nom: `Game ${jeu}`, ...GAME });
  con = await startTestConsole({ databaseUrl: app.databaseUrl });
  s = await con.session();
});
afterAll(async () => {
  await con?.close();
  await app?.close();
});

const get = async (p: string) => { const r = await s.fetch(`/api${p}`); return { status: r.status, body: await r.json() as any }; };
const post = async (p: string, body: unknown = {}) => {
  const r = await s.fetch(`/api${p}`, { method: 'POST', body: JSON.stringify(body) });
  return { status: r.status, body: await r.json() as any };
};
/**
 * A signed-in page at `hash`. Not con.open's own hash: a hash set while the shell is still
 * booting can be overwritten by its "no game in the address: the first game" redirect. So:
 * the shell first, settled on its first game, then the hash.
 */
async function open(context: BrowserContext, hash: string, lang: 'en' | 'fr' = 'en'): Promise<Page> {
  const page = await con.open(context, '', lang);
  await page.waitForURL(/#\/[^/]+\/overview$/);
  await page.evaluate((h) => { location.hash = h; }, hash);
  await page.waitForURL((u) => u.hash === hash);
  return page;
}
const lastAudit = async () => (await app.sql<{ id: string; command: string; details: any; operator: string }>(
  'select id, command, details, operator from manette.admin_audit order by id desc limit 1'))[0]!;
/** What bad input must leave alone: every session, key and audit row. */
const snapshot = () => app.sql(`select (select jsonb_agg(s order by s.token_hash) from manette.sessions s) as sessions,
  (select jsonb_agg(k order by k.id) from manette.api_keys k) as keys, (select count(*) from manette.admin_audit) as audits`);

describe('players', () => {
  let alice: { id: string; first: string; second: string };
  let bob: { id: string; token: string };

  beforeAll(async () => {
    const api = client(app.baseUrl, keys.cpk);
    const a = await api.register('Alice', { email: 'Alice@Example.test', pays: 'fr' });
    const login = await api.post('/players/login', { identifiant: 'alice', password: 'motdepasse-solide' });
    expect(login.status).toBe(200);
    alice = { id: a.data.joueur.id, first: a.token, second: login.body.token };
    await api.register('Albert', { email: 'albert@zeta.test' });
    const b = await api.register('Bob', { email: 'bob@alpha.test' });
    bob = { id: b.data.joueur.id, token: b.token };
    await client(app.baseUrl, keys['cpk-other']).register('Alina', { email: 'alina@example.test' });
    expect((await api.post('/tables/notes', { donnees: { texte: 'salut' } }, { token: alice.second })).status).toBe(201);
  });

  it('search by pseudo or e-mail prefix, any case; never another game’s players; paged', async () => {
    const names = (r: { body: any }) => r.body.data.joueurs.map((p: any) => p.pseudo);
    expect(names(await get('/games/cpk/players?q=AL'))).toEqual(['Albert', 'Alice']);
    expect(names(await get('/games/cpk/players?q=alice%40example'))).toEqual(['Alice']);
    expect(names(await get('/games/cpk/players?q=bob%40alpha.test'))).toEqual(['Bob']);
    expect(names(await get('/games/cpk/players?q=alina'))).toEqual([]);
    expect(names(await get('/games/cpk/players'))).toEqual(['Bob', 'Albert', 'Alice']);
    const page1 = await get('/games/cpk/players?limit=2');
    expect([names(page1), page1.body.data.plus]).toEqual([['Bob', 'Albert'], true]);
    const page2 = await get('/games/cpk/players?limit=2&offset=2');
    expect([names(page2), page2.body.data.plus]).toEqual([['Alice'], false]);
    expect((await get('/games/cpk/players?q=alice')).body.data.joueurs[0]).toEqual({
      id: alice.id, pseudo: 'Alice', email: 'Alice@Example.test', pays: 'FR', cree_le: expect.stringMatching(/Z$/),
      sessions_actives: 2, derniere_utilisation: expect.stringMatching(/Z$/), suspension: null,
    });
  });

  it('a player’s page: profile, sessions without their token, rows', async () => {
    const r = await get(`/games/cpk/players/${alice.id}`);
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ id: alice.id, pseudo: 'Alice', sessions_actives: 2, sessions_total: 2, lignes_total: 1,
      lignes: [{ table: 'notes', donnees: { texte: 'salut' } }], fichiers: [], scores: [], parties: [] });
    expect(Object.keys(r.body.data.sessions[0]).sort()).toEqual(['active', 'cree_le', 'derniere_utilisation', 'expire_le', 'id', 'revoquee_le']);
    expect(JSON.stringify(r.body)).not.toMatch(/token|hash/);
  });

  it('revoking one session: the API refuses that token at once, the other still works; audited with avant / apres', async () => {
    const api = client(app.baseUrl, keys.cpk);
    const sessions = (await get(`/games/cpk/players/${alice.id}`)).body.data.sessions as { id: string }[];
    // Newest first: [1] is the session register opened (alice.first).
    const revoked = await post(`/games/cpk/players/${alice.id}/sessions/revoke`, { session_id: sessions[1]!.id });
    expect(revoked.status).toBe(200);
    expect(revoked.body.data).toMatchObject({ id: sessions[1]!.id, joueur_id: alice.id, deja_revoquee: false, sessions_actives: 1 });
    const refused = await api.get('/players/me', { token: alice.first });
    expect([refused.status, refused.body.error]).toEqual([401, 'invalid_token']);
    expect((await api.get('/players/me', { token: alice.second })).status).toBe(200);
    const audit = await lastAudit();
    expect(audit).toMatchObject({ command: 'players revoke-session', operator: expect.stringMatching(/ \(console\)$/),
      details: { joueur_id: alice.id, pseudo: 'Alice', session_id: sessions[1]!.id,
        avant: { revoquee_le: null, active: true }, apres: { revoquee_le: revoked.body.data.revoquee_le, active: false } } });
    // Again: nothing changes, no audit row.
    const again = await post(`/games/cpk/players/${alice.id}/sessions/revoke`, { session_id: sessions[1]!.id });
    expect(again.body.data.deja_revoquee).toBe(true);
    expect((await lastAudit()).id).toBe(audit.id);
  });

  it('revoking every session is the CLI’s players revoke-sessions: same answer, same audit row but the operator', async () => {
    const cliApi = client(app.baseUrl, keys['cpk-cli']);
    const carol = await cliApi.register('Carol');
    await cliApi.post('/players/login', { identifiant: 'carol', password: 'motdepasse-solide' });
    const cli = await runManetteJson(['players', 'revoke-sessions', 'cpk-cli', carol.data.joueur.id], app.databaseUrl, EN);
    expect(cli.code, cli.stderr).toBe(0);
    const cliAudit = await lastAudit();
    await client(app.baseUrl, keys.cpk).post('/players/login', { identifiant: 'bob', password: 'motdepasse-solide' });
    const r = await post(`/games/cpk/players/${bob.id}/sessions/revoke`, {});
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ id: bob.id, pseudo: 'Bob', sessions_revoquees: 2 });
    expect(Object.keys(r.body.data)).toEqual(Object.keys(cli.body.data));
    const conAudit = await lastAudit();
    const shape = (a: typeof conAudit) => ({ command: a.command, details: { ...a.details, joueur_id: 'x', pseudo: 'x', avant: { ...a.details.avant, ids: a.details.avant.ids.length } } });
    expect(shape(conAudit)).toEqual(shape(cliAudit));
    expect(conAudit.details.avant).toEqual({ sessions_actives: 2, ids: expect.any(Array) });
    expect(conAudit.operator).toBe(`${cliAudit.operator} (console)`);
    expect((await client(app.baseUrl, keys.cpk).get('/players/me', { token: bob.token })).status).toBe(401);
  });

  it('bad input: the envelope, and nothing changed', async () => {
    const before = await snapshot();
    const unknown = '00000000-0000-4000-8000-000000000000';
    const other = (await app.sql<{ id: string }>(`select id from manette.players where pseudo = 'Alina'`))[0]!.id;
    const otherSession = (await app.sql<{ id: string }>(`select s.id from manette.sessions s join manette.players p on p.id = s.player_id where p.pseudo = 'Alina'`))[0]!.id;
    const aliceSession = (await app.sql<{ id: string }>(`select id from manette.sessions where player_id = $1 and revoked_at is null`, [alice.id]))[0]!.id;
    for (const [r, status, error] of [
      [await get(`/games/cpk/players/${unknown}`), 404, 'player_not_found'],
      [await get(`/games/cpk/players/${other}`), 404, 'player_not_found'],
      [await get('/games/cpk/players/not-a-uuid'), 400, 'invalid_input'],
      [await get('/games/nope/players'), 404, 'game_not_found'],
      [await get('/games/cpk/players?limit=0'), 400, 'invalid_input'],
      [await post(`/games/cpk/players/${unknown}/sessions/revoke`), 404, 'player_not_found'],
      [await post(`/games/cpk/players/${other}/sessions/revoke`), 404, 'player_not_found'],
      [await post('/games/cpk/players/not-a-uuid/sessions/revoke'), 400, 'invalid_input'],
      [await post(`/games/cpk/players/${alice.id}/sessions/revoke`, { session_id: 'nope' }), 400, 'validation_failed'],
      [await post(`/games/cpk/players/${alice.id}/sessions/revoke`, { session_id: otherSession }), 404, 'session_not_found'],
      // A session of the game, but not this player's.
      [await post(`/games/cpk/players/${bob.id}/sessions/revoke`, { session_id: aliceSession }), 404, 'session_not_found'],
    ] as const) {
      expect(r.status, JSON.stringify(r.body)).toBe(status);
      expect(r.body).toMatchObject({ ok: false, error, message: expect.any(String) });
    }
    expect((await get('/games/cpk/players/not-a-uuid')).body.details).toEqual([{ champ: 'id', message: expect.any(String) }]);
    expect((await post(`/games/cpk/players/${alice.id}/sessions/revoke`, { session_id: otherSession })).body.message).toBe('Session not found for this game.');
    expect(await snapshot()).toEqual(before);
  });
});

describe('keys', () => {
  it('a rotation in the console leaves the database as `manette keys` does; the old key is refused at once', async () => {
    const old = keys.cpk!;
    // The console on cpk.
    const created = await post('/games/cpk/keys');
    expect(created.status).toBe(200);
    expect(created.body.data).toEqual({ jeu: 'cpk', cle: expect.stringMatching(/^sk_live_[0-9A-Za-z]{40}$/), cree_le: expect.any(String), actives: 2 });
    const fresh = created.body.data.cle as string;
    const createdAudit = await lastAudit();
    const revoked = await post('/games/cpk/keys/revoke', { cle: old });
    expect(revoked.body.data).toEqual({ jeu: 'cpk', cle: old, revoquee_le: expect.any(String), deja_revoquee: false, actives: 1 });
    const revokedAudit = await lastAudit();
    const refused = await client(app.baseUrl, old).get('/realtime/config');
    expect([refused.status, refused.body.error]).toEqual([401, 'invalid_key']);
    expect((await client(app.baseUrl, fresh).get('/realtime/config')).status).toBe(200);

    // The CLI on cpk-cli.
    const cliOld = keys['cpk-cli']!;
    const cliCreated = await runManetteJson(['keys', 'create', 'cpk-cli'], app.databaseUrl, EN);
    const cliCreatedAudit = await lastAudit();
    const cliRevoked = await runManetteJson(['keys', 'revoke', 'cpk-cli', cliOld], app.databaseUrl, EN);
    const cliRevokedAudit = await lastAudit();
    expect((await client(app.baseUrl, cliOld).get('/realtime/config')).status).toBe(401);

    // Same answers, same keys list, same audit rows, but the keys, dates and operator.
    const neutral = (v: unknown) => JSON.parse(JSON.stringify(v)
      .replaceAll(fresh, 'NEW').replaceAll(old, 'OLD').replaceAll(cliCreated.body.data.cle, 'NEW').replaceAll(cliOld, 'OLD')
      .replace(/"\d{4}-\d\d-\d\dT[^"]+Z"/g, '"DATE"').replaceAll('"cpk-cli"', '"GAME"').replaceAll('"cpk"', '"GAME"'));
    expect(neutral(created.body.data)).toEqual(neutral(cliCreated.body.data));
    expect(neutral(revoked.body.data)).toEqual(neutral(cliRevoked.body.data));
    expect(neutral((await get('/games/cpk/keys')).body.data)).toEqual(neutral((await runManetteJson(['keys', 'list', 'cpk-cli'], app.databaseUrl, EN)).body.data));
    for (const [mine, theirs] of [[createdAudit, cliCreatedAudit], [revokedAudit, cliRevokedAudit]] as const) {
      expect(neutral({ command: mine.command, details: mine.details })).toEqual(neutral({ command: theirs.command, details: theirs.details }));
      expect(mine.operator).toBe(`${theirs.operator} (console)`);
    }
    expect(createdAudit.details).toEqual({ cle: fresh, avant: null, apres: { cle: fresh, cree_le: created.body.data.cree_le, revoquee_le: null, active: true } });
    expect(revokedAudit.details).toEqual({ cle: old, avant: { cle: old, revoquee_le: null, active: true },
      apres: { cle: old, revoquee_le: revoked.body.data.revoquee_le, active: false } });
    keys.cpk = fresh;
  });

  it('the last active key is refused with last_active_key and keeps working', async () => {
    const before = await snapshot();
    const r = await post('/games/cpk/keys/revoke', { cle: keys.cpk });
    expect(r.status).toBe(409);
    expect(r.body).toEqual({ ok: false, error: 'last_active_key', message: 'This is the game’s last active key: create a new one first (manette keys create <game>).' });
    const fr = await s.fetch('/api/games/cpk/keys/revoke', { method: 'POST', body: JSON.stringify({ cle: keys.cpk }), headers: { 'x-console-lang': 'fr' } });
    expect((await fr.json() as any).message).toBe('C’est la dernière clé active du jeu : crées-en une nouvelle d’abord (manette keys create <jeu>).');
    expect((await client(app.baseUrl, keys.cpk).get('/realtime/config')).status).toBe(200);
    expect(await snapshot()).toEqual(before);
  });

  it('bad input: another game’s key, an unknown key, no key, an extra field: the envelope, and nothing changed', async () => {
    const before = await snapshot();
    for (const [r, status, error] of [
      [await post('/games/cpk/keys/revoke', { cle: keys['cpk-other'] }), 404, 'key_not_found'],
      [await post('/games/cpk/keys/revoke', { cle: 'sk_live_inconnue' }), 404, 'key_not_found'],
      [await post('/games/cpk/keys/revoke', {}), 400, 'validation_failed'],
      [await post('/games/cpk/keys', { cle: 'sk_live_choisie' }), 400, 'validation_failed'],
      [await post('/games/nope/keys'), 404, 'game_not_found'],
    ] as const) {
      expect(r.status, JSON.stringify(r.body)).toBe(status);
      expect(r.body).toMatchObject({ ok: false, error });
    }
    // Without the CSRF token: refused before anything runs.
    const csrf = await fetch(`${con.origin}/api/games/cpk/keys`, { method: 'POST', headers: { cookie: s.cookie, 'content-type': 'application/json' }, body: '{}' });
    expect(csrf.status).toBe(403);
    expect(await snapshot()).toEqual(before);
    expect((await client(app.baseUrl, keys['cpk-other']).get('/realtime/config')).status).toBe(200);
  });
});

describe('audit', () => {
  it('the game’s rows newest first, paged by id; never another game’s', async () => {
    const all = await app.sql<{ id: string; command: string }>(`select a.id, a.command from manette.admin_audit a
      join manette.games g on g.id = a.game_id where g.slug = 'cpk' order by a.id desc`);
    expect(all.map((a) => a.command)).toEqual(['keys revoke', 'keys create', 'players revoke-sessions', 'players revoke-session']);
    const first = await get('/games/cpk/audit?limit=3');
    expect(first.body.data.lignes.map((l: any) => l.id)).toEqual(all.slice(0, 3).map((a) => Number(a.id)));
    expect(first.body.data.plus).toBe(true);
    expect(first.body.data.lignes[0]).toEqual({ id: Number(all[0]!.id), at: expect.stringMatching(/Z$/), operator: expect.stringMatching(/ \(console\)$/),
      db_user: expect.any(String), command: 'keys revoke', details: expect.objectContaining({ avant: expect.any(Object), apres: expect.any(Object) }) });
    const next = await get(`/games/cpk/audit?limit=3&avant=${first.body.data.lignes[2].id}`);
    expect([next.body.data.lignes.map((l: any) => l.command), next.body.data.plus]).toEqual([['players revoke-session'], false]);
    expect((await get('/games/cpk-other/audit')).body.data).toEqual({ lignes: [], plus: false });
    expect((await get('/games/cpk/audit?avant=abc')).status).toBe(400);
  });
});

describe.skipIf(!haveBrowser)('the pages in Chromium', () => {
  warnIfNoBrowser('test/console-players-keys.test.ts');
  let browser: Browser;
  let zoe: { id: string; first: string; second: string };
  const web = () => client(app.baseUrl, keys['cpk-web']);

  beforeAll(async () => {
    browser = await launchBrowser();
    const api = web();
    const z = await api.register('Zoé', { email: 'zoe@example.test', pays: 'be' });
    const login = await api.post('/players/login', { identifiant: 'zoe@example.test', password: 'motdepasse-solide' });
    zoe = { id: z.data.joueur.id, first: z.token, second: login.body.token };
    const others = [];
    for (const [pseudo, pays] of [['Zacharie', 'fr'], ['Yanis', 'ca'], ['Xavier', 'ch'], ['Wendy', 'fr']] as const) others.push(await api.register(pseudo, { pays }));
    await api.post('/tables/notes', { donnees: { texte: 'Niveau 3 terminé' } }, { token: zoe.second });
    await api.post('/tables/notes', { donnees: { texte: 'Trouvé la clé du donjon' } }, { token: zoe.second });
    await api.post('/storage/upload', { nom: 'sauvegarde.json', contenu: '{"niveau": 3}', mime_type: 'application/json' }, { token: zoe.second });
    await api.post('/leaderboards/score/submit', { valeur: 1200 }, { token: zoe.second });
    await api.post('/leaderboards/score/submit', { valeur: 1500 }, { token: others[0]!.token });
    await api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1000 }, { token: zoe.second });
    expect((await api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1000 }, { token: others[1]!.token })).body.status).toBe('matched');
  });
  afterAll(async () => { await browser?.close(); });

  async function shoot(page: Page, name: string) {
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
  }
  async function both(context: BrowserContext, hash: string, ready: string | RegExp, name: string, extra?: (p: Page) => Promise<void>) {
    for (const lang of ['en', 'fr'] as const) {
      const page = await open(context, hash, lang);
      await page.getByText(typeof ready === 'string' ? ready : ready).first().waitFor();
      await extra?.(page);
      await shoot(page, `${name}${lang === 'fr' ? '-fr' : ''}`);
      await page.close();
    }
  }

  it('players: search, a player’s page, one session revoked by clicking, then all', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await open(context, '#/cpk-web/players');
    await page.getByRole('link', { name: 'Wendy' }).waitFor();
    expect(await page.locator('tbody tr td:first-child').allTextContents()).toEqual(['Wendy', 'Xavier', 'Yanis', 'Zacharie', 'Zoé']);
    await page.getByRole('searchbox').fill('ZO');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/#\/cpk-web\/players\?q=ZO$/);
    await page.getByText('Players matching “ZO”').waitFor();
    await page.locator('tbody tr').nth(1).waitFor({ state: 'detached' });
    expect(await page.locator('tbody tr td:first-child').allTextContents()).toEqual(['Zoé']);
    await page.getByRole('link', { name: 'Zoé' }).click();
    await page.waitForURL(new RegExp(`#/cpk-web/players/${zoe.id}$`));
    await page.getByText('sauvegarde.json').waitFor();
    const match = page.locator('a[href^="#/cpk-web/matches/"]').first();
    expect(await match.getAttribute('href')).toMatch(/^#\/cpk-web\/matches\/[0-9a-f-]{36}$/);
    await page.getByText('Niveau 3 terminé').waitFor();

    // Revoke the older session (the second row): its token is refused, the other works.
    const sessions = page.locator('section.card', { has: page.getByRole('heading', { name: 'Sessions' }) });
    expect(await sessions.locator('tbody tr').count()).toBe(2);
    await sessions.locator('tbody tr').nth(1).getByRole('button', { name: 'Revoke' }).click();
    await sessions.locator('tbody tr').nth(1).getByRole('button', { name: 'Really revoke?' }).click();
    await page.getByText('Session revoked: its token is refused from now on').waitFor();
    await sessions.locator('tbody tr').nth(1).getByText('revoked', { exact: true }).waitFor();
    expect(await sessions.locator('tbody tr').nth(0).getByText('active', { exact: true }).count()).toBe(1);
    expect((await web().get('/players/me', { token: zoe.first })).status).toBe(401);
    expect((await web().get('/players/me', { token: zoe.second })).status).toBe(200);
    expect(await lastAudit()).toMatchObject({ command: 'players revoke-session', operator: expect.stringMatching(/ \(console\)$/),
      details: { joueur_id: zoe.id, avant: { revoquee_le: null }, apres: { active: false } } });

    // Then all: the last active one.
    await sessions.getByRole('button', { name: 'Revoke all sessions' }).click();
    await sessions.getByRole('button', { name: 'Really revoke them all?' }).click();
    await page.getByText('1 session(s) revoked.').waitFor();
    expect((await web().get('/players/me', { token: zoe.second })).status).toBe(401);
    // Reloaded: no active session left, nothing to revoke.
    await sessions.locator('button:disabled', { hasText: 'Revoke all sessions' }).waitFor();
    expect(await sessions.getByRole('button', { name: 'Revoke', exact: true }).count()).toBe(0);
    expect((await lastAudit()).command).toBe('players revoke-sessions');
    await context.close();
  });

  it('keys: create one by clicking (shown with the rotation steps), revoke the old one, the last one refused as the server says', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await open(context, '#/cpk-web/keys');
    const old = keys['cpk-web']!;
    await page.getByText(old).waitFor();
    await page.getByRole('button', { name: 'Create a key' }).click();
    const fresh = (await page.locator('code.key-big').textContent())!;
    expect(fresh).toMatch(/^sk_live_[0-9A-Za-z]{40}$/);
    await page.locator('tbody tr', { hasText: fresh }).waitFor();
    expect((await client(app.baseUrl, fresh).get('/realtime/config')).status).toBe(200);
    await page.getByText('Put this key in the game and ship that version.').waitFor();
    await shoot(page, 'console-keys-new');

    const oldRow = page.locator('tbody tr', { hasText: old });
    await oldRow.getByRole('button', { name: 'Revoke' }).click();
    await oldRow.getByRole('button', { name: 'Really revoke?' }).click();
    await page.getByText('Key revoked: the API refuses it from now on (401 invalid_key). Active keys left: 1.').waitFor();
    await oldRow.getByText('revoked', { exact: true }).waitFor();
    expect((await client(app.baseUrl, old).get('/realtime/config')).status).toBe(401);

    const lastRow = page.locator('tbody tr', { hasText: fresh });
    await lastRow.getByRole('button', { name: 'Revoke' }).click();
    await lastRow.getByRole('button', { name: 'Really revoke?' }).click();
    await lastRow.getByRole('alert').getByText('This is the game’s last active key: create a new one first (manette keys create <game>).').waitFor();
    await lastRow.getByText('last_active_key').waitFor();
    expect((await client(app.baseUrl, fresh).get('/realtime/config')).status).toBe(200);
    await shoot(page, 'console-keys-last');
    keys['cpk-web'] = fresh;
    await context.close();
  });

  it('audit: the rows just written, with their before and after; older pages', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await open(context, '#/cpk-web/audit');
    await page.getByText('keys revoke', { exact: true }).waitFor();
    expect(await page.locator('tbody tr td:nth-child(3)').allTextContents()).toEqual(
      ['keys revoke', 'keys create', 'players revoke-sessions', 'players revoke-session']);
    await page.getByText('Zoé: one session revoked').waitFor();
    await page.getByText('Zoé: 1 session(s) revoked').waitFor();
    const first = page.locator('tbody tr').first();
    await first.getByText('Details').click();
    await first.getByRole('heading', { name: 'Before' }).waitFor();
    expect(await first.locator('.before-after pre').first().textContent()).toContain('"active": true');
    expect(await first.locator('.before-after pre').nth(1).textContent()).toContain('"active": false');
    expect(await first.locator('td').nth(1).textContent()).toContain(' (console)');
    await context.close();
  });

  it('paging the audit trail: older, then newer', async () => {
    // 55 more rows on cpk: two pages of 50.
    await app.sql(`insert into manette.admin_audit (game_id, command, details)
      select g.id, 'test', jsonb_build_object('n', i) from manette.games g, generate_series(1, 55) i where g.slug = 'cpk'`);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await open(context, '#/cpk/audit');
    await page.locator('tbody tr').nth(49).waitFor();
    expect(await page.locator('tbody tr').count()).toBe(50);
    await page.getByRole('button', { name: 'Older →' }).click();
    await page.getByText('keys revoke', { exact: true }).waitFor();
    expect(await page.locator('tbody tr').count()).toBe(9);
    expect(await page.getByRole('button', { name: 'Older →' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: '← Newer' }).click();
    await page.locator('tbody tr').nth(49).waitFor();
    expect(await page.getByText('keys revoke', { exact: true }).count()).toBe(0);
    await context.close();
  });

  it('a failed guest purge (manette.sweep_guests) reads as one line: the guest, the error, the next try', async () => {
    // The details sweep_guests writes (supabase/tests/database/98_guest_purge_failures makes it fail for real).
    await app.sql(`insert into manette.admin_audit (game_id, command, details)
      select g.id, 'guests purge failed', jsonb_build_object('joueur_id', '0a1b2c3d-0000-4000-8000-000000000000',
        'erreur', 'duplicate key value violates unique constraint', 'sqlstate', '23505', 'nouvel_essai_apres', '2026-11-29T18:00:00.000Z')
      from manette.games g where g.slug = 'cpk'`);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await open(context, '#/cpk/audit');
    const line = page.locator('tbody tr').first().locator('.audit-what div').first();
    await line.waitFor();
    expect(await line.textContent()).toMatch(/^Guest 0a1b2c3d not purged \(23505: duplicate key value .*…\); tried again after .*2026/);
    await context.close();
  });

  it('screenshots at 1280 and 768, English and French', async () => {
    // Zoé back with one active session, beside the two revoked ones.
    expect((await web().post('/players/login', { identifiant: 'zoe@example.test', password: 'motdepasse-solide' })).status).toBe(200);
    for (const [width, height, suffix] of [[1280, 800, ''], [768, 1024, '-768']] as const) {
      const context = await browser.newContext({ viewport: { width, height } });
      await both(context, '#/cpk-web/players', 'Zacharie', `console-players${suffix}`);
      await both(context, `#/cpk-web/players/${zoe.id}`, 'sauvegarde.json', `console-player${suffix}`);
      await both(context, '#/cpk-web/keys', keys['cpk-web']!, `console-keys${suffix}`);
      await both(context, '#/cpk-web/audit', 'keys revoke', `console-audit${suffix}`, async (p) => {
        await p.locator('tbody tr').first().locator('summary').click();
      });
      await context.close();
    }
    expect(con.errors).toEqual([]);
  });
});
