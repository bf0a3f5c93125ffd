// The browser SDK in real Chromium against the real service (façade, embedded Postgres,
// local Realtime): served at /sdk/manette.js, used from a page of the server's origin and
// from another origin, offline and back, two tabs, realtime rooms and the player channel.
import { createServer, get, type Server } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page, Request as PwRequest } from 'playwright-core';
import { client, startTestApp, type TestApp } from './support/harness.js';
import { haveBrowser, launchBrowser, warnIfNoBrowser } from './support/browser.js';
import { SignJWT } from 'jose';
import { serveGoogleKeys, type GoogleKeys } from './support/google-keys.js';

warnIfNoBrowser('sdk-browser');

const T = 90_000;
const TTL_S = 10; // realtime tokens live 10 s here, so a subscription must renew them

/** Polls `check` (in Node) until true; fails after `ms`. */
async function waitUntil(check: () => Promise<boolean> | boolean, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Status of a plain GET (fetch would add `Cache-Control: no-cache` to a conditional request). */
function statusOf(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (res) => { res.resume(); resolve(res.statusCode ?? 0); }).on('error', reject);
  });
}

describe.skipIf(!haveBrowser)('browser SDK', () => {
  let app: TestApp;
  let browser: Browser;
  let origin: string; // the API server's origin
  let other: Server; // a second origin, serving a page that loads the SDK cross-origin
  let otherOrigin: string;
  let key: string;
  let api: ReturnType<typeof client>;
  let google: GoogleKeys;
  const GOOGLE_CLIENT = 'sdk-123.apps.googleusercontent.com';
  let seq = 0;
  const pseudo = (p: string) => `${p}${++seq}${Math.random().toString(36).slice(2, 6)}`;

  beforeAll(async () => {
    google = await serveGoogleKeys();
    app = await startTestApp({ MANETTE_REALTIME_TOKEN_TTL_S: String(TTL_S), MANETTE_GOOGLE_JWKS_URL: google.jwksUrl }, undefined, { realtime: true });
    origin = new URL(app.baseUrl).origin;
    other = createServer((req, res) => {
      const module = req.url?.startsWith('/module');
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(module
        ? `<!doctype html><title>autre origine (module)</title><script type="module">import * as M from '${origin}/sdk/manette.mjs'; window.Manette = M;</script>`
        : `<!doctype html><title>autre origine</title><script src="${origin}/sdk/manette.js"></script>`);
    });
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    otherOrigin = `http://127.0.0.1:${(other.address() as { port: number }).port}`;
    key = await app.applyGame({
      jeu: 'sdkjeu', nom: 'Jeu SDK', origines: [origin, otherOrigin],
      tables: {
        inventaire: {
          colonnes: { item_id: { type: 'text', requis: true }, quantite: { type: 'integer' } },
          lecture: 'proprietaire', ecriture: 'joueurs',
        },
      },
      classements: { 'meilleur-score': { ordre: 'desc', operateur: 'meilleur' } },
      boutique: [{ code: 'epee', nom: 'Épée', prix: 100, devise: 'or', actif: true, ordre: 1 }],
      modes: { '1v1': { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion' } },
      panel: { theme: { couleur_primaire: '#6c5ce7' }, textes: { connexion_titre: 'Connexion' } },
      google: { client_id: GOOGLE_CLIENT },
    });
    api = client(app.baseUrl, key);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((r) => other?.close(r));
    await app?.close();
    google?.close();
  });

  const newContext = () => browser.newContext();
  /**
   * A page of the server's origin (its /health document, a real answer of the server, so
   * Chromium sees a local page) with the classic script added from /sdk/manette.js; or `url`.
   */
  async function openPage(context: BrowserContext, url?: string): Promise<Page> {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    if (process.env.SDK_DEBUG) page.on('console', (m) => console.log('[page]', m.type(), m.text()));
    (page as Page & { errors?: string[] }).errors = errors;
    if (url) await page.goto(url);
    else await loadServerPage(page);
    await page.waitForFunction(() => typeof (window as any).Manette?.createClient === 'function', undefined, { timeout: 10_000 });
    return page;
  }
  async function loadServerPage(page: Page, reload = false): Promise<void> {
    if (reload) await page.reload(); else await page.goto(`${origin}/health`);
    await page.addScriptTag({ url: '/sdk/manette.js' });
  }
  const rowsOf = (p: string) => app.sql<{ n: string }>(
    `select count(*)::text n from manette.table_rows r join manette.players j on j.id = r.player_id where j.pseudo = $1`, [p]);

  it('serves the SDK with JavaScript types, CORS, caching, and within the size budget', async () => {
    for (const path of ['/sdk/manette.js', '/api/public/v1/sdk/manette.js', '/sdk/manette.mjs', '/sdk/manette-realtime.mjs']) {
      const r = await fetch(origin + path, { headers: { origin: 'https://ailleurs.example' } });
      expect(r.status, path).toBe(200);
      expect(r.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
      expect(r.headers.get('cache-control')).toBe('public, max-age=300');
      const etag = r.headers.get('etag');
      expect(etag).toBeTruthy();
      expect(await statusOf(origin + path, { 'if-none-match': etag! })).toBe(304);
    }
    const dts = await fetch(`${origin}/sdk/manette.d.ts`);
    expect(dts.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await dts.text()).toContain('export as namespace Manette');
    expect((await fetch(`${origin}/sdk/types/client.d.ts`)).status).toBe(200);
    const missing = await fetch(`${origin}/sdk/nope.js`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ ok: false, error: 'not_found' });
    expect((await (await fetch(`${origin}/sdk/../package.json`)).json())).toMatchObject({ ok: false, error: 'not_found' });
    // Budget: the classic script plus the realtime module it loads, gzipped.
    const gz = async (p: string) => gzipSync(Buffer.from(await (await fetch(origin + p)).arrayBuffer()), { level: 9 }).length;
    const total = await gz('/sdk/manette.js') + await gz('/sdk/manette-realtime.mjs');
    console.log(`sdk size: manette.js ${await gz('/sdk/manette.js')} B gzip, with realtime ${total} B gzip`);
    expect(total).toBeLessThanOrEqual(60 * 1024);
    const demo = await fetch(`${origin}/demo`, { redirect: 'manual' });
    expect(demo.status).toBe(301);
    expect(demo.headers.get('location')).toBe('/demo/');
    expect((await fetch(`${origin}/demo/index.html`)).headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect((await fetch(`${origin}/demo/`)).headers.get('content-type')).toBe('text/html; charset=utf-8');
    const noDemoFile = await fetch(`${origin}/demo/nope.js`);
    expect(noDemoFile.status).toBe(404);
    expect(await noDemoFile.json()).toMatchObject({ ok: false, error: 'not_found' });
  }, T);

  it('calls every wrapped endpoint from a page of the server, and keeps the session across reloads', async () => {
    const context = await newContext();
    const page = await openPage(context);
    const name = pseudo('Page');
    const avatar = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64'); // 1×1 PNG
    const out = await page.evaluate(async ({ key, name, avatar }) => {
      const M = (window as any).Manette;
      const m = M.createClient({ apiKey: key }); // baseUrl: where the script came from
      const changes: unknown[] = [];
      m.auth.onChange((j: any) => changes.push(j?.pseudo ?? null));
      const joueur = await m.auth.register({ pseudo: name, email: `${name.toLowerCase()}@example.test`, password: 'motdepasse-solide', pays: 'fr' });
      const t = m.table('inventaire');
      const inserted = await t.insert({ item_id: 'epee', quantite: 1 });
      const got = await t.get(inserted.id);
      const updated = await t.update(inserted.id, { quantite: 3 });
      const listed = await t.list({ limit: 10, order_by: 'cree_le', order_dir: 'desc', where: { item_id: 'epee' } });
      const second = await t.insert({ item_id: 'bouclier' });
      const removed = await t.remove(second.id);
      const afterRemove = await t.list();
      const up = await m.files.upload({ nom: 'sauvegarde.json', contenu: '{"niveau":2}', mime_type: 'application/json' });
      const files = await m.files.list();
      const file = await m.files.get('sauvegarde.json');
      const fileRemoved = await m.files.remove('sauvegarde.json');
      const submit = await m.leaderboard('meilleur-score').submit(42);
      const scores = await m.leaderboard('meilleur-score').scores({ limit: 5 });
      const boards = await m.leaderboards();
      const around = await m.leaderboard('meilleur-score').scores({ autour: 'moi' });
      const articles = await m.shop.articles();
      const panel = await m.panel();
      const withAvatar = await m.auth.uploadAvatar(new Blob([new Uint8Array(avatar)], { type: 'image/png' }));
      const join = await m.matchmaking.join('1v1', 1000);
      const status = await m.matchmaking.status();
      const leave = await m.matchmaking.leave();
      const rt = await m.realtime.config();
      return {
        baseUrl: m.baseUrl, joueur, player: m.auth.player, inserted, got, updated, listed, removed, afterRemove, up, files, file,
        fileRemoved, submit, scores, around, boards, articles, panel, withAvatar, join, status, leave,
        rt: { ...rt, token: typeof rt.token }, changes, pending: await m.sync.pending(),
      };
    }, { key, name, avatar: [...avatar] });
    expect(out.baseUrl).toBe(`${origin}/api/public/v1`);
    expect(out.joueur).toMatchObject({ pseudo: name, pays: 'FR' });
    expect(out.player).toEqual(out.withAvatar); // kept up to date by uploadAvatar
    expect(out.inserted).toMatchObject({ donnees: { item_id: 'epee', quantite: 1 }, joueur_id: out.joueur.id });
    expect(out.inserted.en_attente).toBeUndefined(); // online: the server's row
    expect(out.got.id).toBe(out.inserted.id);
    expect(out.updated.donnees).toEqual({ item_id: 'epee', quantite: 3 });
    expect(out.listed.map((r: any) => r.id)).toEqual([out.inserted.id]);
    expect(out.removed.donnees).toEqual({ item_id: 'bouclier' });
    expect(out.afterRemove.map((r: any) => r.id)).toEqual([out.inserted.id]);
    expect(out.up).toMatchObject({ nom: 'sauvegarde.json', mime_type: 'application/json' });
    expect(out.files.map((f: any) => f.nom)).toEqual(['sauvegarde.json']);
    expect(out.file).toMatchObject({ contenu: '{"niveau":2}', fichier: { nom: 'sauvegarde.json' } });
    expect(out.fileRemoved.nom).toBe('sauvegarde.json');
    expect(out.submit).toEqual({ valeur: 42, rang: 1, ameliore: true });
    expect(out.scores[0]).toMatchObject({ pseudo: name, valeur: 42, rang: 1 });
    expect(out.around[0]).toMatchObject({ pseudo: name });
    expect(out.boards.map((b: any) => b.id)).toContain('meilleur-score');
    expect(out.articles.map((a: any) => a.code)).toEqual(['epee']);
    expect(out.panel.theme.couleur_primaire).toBe('#6c5ce7');
    expect(out.withAvatar.avatar_url).toMatch(/\/avatars\//);
    expect(out.join.status).toBe('waiting');
    expect(out.status).toMatchObject({ status: 'waiting', position: 1 });
    expect(out.leave.status).toBe('idle');
    expect(out.rt).toMatchObject({ channel_prefix: 'manette_partie_', private: true, token: 'string' });
    expect(out.changes[0]).toBe(name);
    expect(out.pending).toEqual([]);
    expect((await rowsOf(name))[0]!.n).toBe('1');

    // Reload: the session is still there, checked with GET /players/me.
    await loadServerPage(page, true);
    const restored = await page.evaluate(async (key) => {
      const m = (window as any).Manette.createClient({ apiKey: key });
      const before = m.auth.player?.pseudo ?? null;
      const j = await m.auth.restore();
      return { before, restored: j?.pseudo ?? null };
    }, key);
    expect(restored).toEqual({ before: name, restored: name });

    // Logout clears it, here and after a reload.
    await page.evaluate(async (key) => { await (window as any).Manette.createClient({ apiKey: key }).auth.logout(); }, key);
    await loadServerPage(page, true);
    expect(await page.evaluate(async (key) => {
      const m = (window as any).Manette.createClient({ apiKey: key });
      return [m.auth.player, await m.auth.restore()];
    }, key)).toEqual([null, null]);

    // Google: the ID token (signed by the test's stand-in for Google's keys) opens a session.
    const idToken = await new SignJWT({ email_verified: true, email: 'gsdk@example.test', name: 'G Sdk' })
      .setProtectedHeader({ alg: 'RS256', kid: 'test-key' }).setIssuer('https://accounts.google.com')
      .setAudience(GOOGLE_CLIENT).setSubject(`g-${name}`).setIssuedAt().setExpirationTime('1h').sign(google.privateKey);
    const viaGoogle = await page.evaluate(async ({ key, idToken }) => {
      const m = (window as any).Manette.createClient({ apiKey: key });
      const j = await m.auth.loginWithGoogle(idToken);
      return { j, player: m.auth.player, me: await m.auth.restore() };
    }, { key, idToken });
    expect(viaGoogle.j.email).toBe('gsdk@example.test');
    expect(viaGoogle.player).toEqual(viaGoogle.j);
    expect(viaGoogle.me.id).toBe(viaGoogle.j.id);
    expect((page as Page & { errors?: string[] }).errors).toEqual([]);
    await context.close();
  }, T);

  it('works from another origin, as a classic script and as an ES module', async () => {
    const context = await browser.newContext();
    for (const path of ['/', '/module']) {
      const page = await openPage(context, otherOrigin + path);
      const name = pseudo('Ailleurs');
      const out = await page.evaluate(async ({ key, base, name }) => {
        const m = (window as any).Manette.createClient({ baseUrl: base, apiKey: key, lang: 'en' });
        const j = await m.auth.register({ pseudo: name, email: `${name.toLowerCase()}@example.test`, password: 'motdepasse-solide' });
        const row = await m.table('inventaire').insert({ item_id: 'arc' });
        const list = await m.table('inventaire').list();
        const scores = await m.leaderboard('meilleur-score').submit(7);
        const articles = await m.shop.articles();
        let err: any;
        try { await m.table('inventaire').insert({ quantite: 'beaucoup' }); } catch (e) { err = e; }
        return { j, row, list, scores, articles, err: { name: err?.name, code: err?.code, message: err?.message, isError: err instanceof (window as any).Manette.ManetteError } };
      }, { key, base: origin, name });
      expect(out.j.pseudo).toBe(name);
      expect(out.row.donnees).toEqual({ item_id: 'arc' });
      expect(out.list).toHaveLength(1);
      expect(out.scores.valeur).toBe(7);
      expect(out.articles).toHaveLength(1);
      // lang 'en': the server's message in English.
      expect(out.err).toMatchObject({ name: 'ManetteError', code: 'validation_failed', isError: true });
      expect(out.err.message).toMatch(/[a-z]/);
      expect((page as Page & { errors?: string[] }).errors).toEqual([]);
      await page.close();
    }
    await context.close();
  }, T);

  it('rejects with ManetteError fields; a network failure is network_error; invalid_token ends the session', async () => {
    const context = await newContext();
    const page = await openPage(context);
    const name = pseudo('Erreur');
    const out = await page.evaluate(async ({ key, name }) => {
      const { createClient, ManetteError } = (window as any).Manette;
      const m = createClient({ apiKey: key });
      const pick = (e: any) => ({ isError: e instanceof ManetteError, code: e.code, status: e.status, message: e.message, reason: e.reason, details: e.details, requestId: e.requestId });
      const out: Record<string, unknown> = {};
      await m.auth.register({ pseudo: name, email: `${name.toLowerCase()}@example.test`, password: 'motdepasse-solide' });
      try { await m.auth.register({ pseudo: name, email: `autre-${name.toLowerCase()}@example.test`, password: 'motdepasse-solide' }); } catch (e) { out.taken = pick(e); }
      try { await m.table('inventaire').insert({ item_id: 3 }); } catch (e) { out.validation = pick(e); }
      try { await m.table('inconnue').list(); } catch (e) { out.table = pick(e); }
      const dead = createClient({ baseUrl: 'http://127.0.0.1:1', apiKey: key });
      try { await dead.shop.articles(); } catch (e) { out.network = pick(e); }
      // A token the server does not know: the session ends (here and in storage).
      const storageKey = Object.keys(localStorage).find((k) => k.startsWith('manette.session.'))!;
      localStorage.setItem(storageKey, JSON.stringify({ token: 'pt_' + 'x'.repeat(43), joueur: { id: 'x', pseudo: 'x' } }));
      const m2 = createClient({ apiKey: key });
      const seen: unknown[] = [];
      m2.auth.onChange((j: unknown) => seen.push(j));
      try { await m2.files.list(); } catch (e) { out.invalid = pick(e); }
      out.afterInvalid = { player: m2.auth.player, stored: localStorage.getItem(storageKey), seen };
      return out;
    }, { key, name });
    expect(out.taken).toMatchObject({ isError: true, code: 'pseudo_taken', status: 409 });
    expect(out.validation).toMatchObject({ isError: true, code: 'validation_failed', status: 400, details: [expect.objectContaining({ champ: expect.stringContaining('item_id') })] });
    expect((out.validation as any).requestId).toMatch(/^[\w.-]+$/);
    expect(out.table).toMatchObject({ code: 'table_not_found', status: 404 });
    expect(out.network).toMatchObject({ isError: true, code: 'network_error', status: 0 });
    expect(out.invalid).toMatchObject({ code: 'invalid_token', status: 401 });
    expect(out.afterInvalid).toEqual({ player: null, stored: null, seen: [null] });
    await context.close();
  }, T);

  it('offline: inserts answer at once en_attente, then each creates exactly one row when the connection returns', async () => {
    const context = await newContext();
    const page = await openPage(context);
    const name = pseudo('Horsligne');
    const posts: string[] = [];
    // Every send of an insert, answered or not: attempts made offline fail in the browser, and
    // the old page may start sending when the connection returns, just before the reload,
    // which can cut a send the server answered (under load, Chromium then reports it failed,
    // not finished); the new page sends that write again with the same key, the server replays it.
    page.on('request', (r: PwRequest) => { if (r.method() === 'POST' && r.url().endsWith('/tables/inventaire')) posts.push(r.headers()['idempotency-key'] ?? ''); });
    await page.evaluate(async ({ key, name }) => {
      const m = (window as any).Manette.createClient({ apiKey: key });
      (window as any).m = m;
      (window as any).events = [];
      m.sync.onChange((e: any) => (window as any).events.push({ type: e.type, kind: e.op.kind, pending: e.pending }));
      await m.auth.register({ pseudo: name, email: `${name.toLowerCase()}@example.test`, password: 'motdepasse-solide' });
      // The pass a login starts ends before going offline: under load it could otherwise
      // still run and claim the first insert (a write being sent cannot take a later update).
      await m.sync.flush();
    }, { key, name });
    await context.setOffline(true);
    await page.waitForFunction(() => !navigator.onLine, undefined, { timeout: 5000 });
    const offline = await page.evaluate(async () => {
      const m = (window as any).m;
      const t = m.table('inventaire');
      const a = await t.insert({ item_id: 'a', quantite: 1 });
      const b = await t.insert({ item_id: 'b' });
      const c = await t.insert({ item_id: 'c' });
      const merged = await t.update(a.id, { quantite: 2 }); // folded into a's unsent insert
      const cancelled = await t.remove(c.id); // c never left: both disappear
      return { a, b, merged, cancelled, pending: await m.sync.pending() };
    });
    expect(offline.a).toMatchObject({ en_attente: true, donnees: { item_id: 'a', quantite: 1 } });
    expect(offline.a.id).toMatch(/^local_/);
    expect(offline.merged).toMatchObject({ en_attente: true, donnees: { item_id: 'a', quantite: 2 } });
    expect(offline.pending.map((p: any) => [p.kind, p.donnees])).toEqual([['insert', { item_id: 'a', quantite: 2 }], ['insert', { item_id: 'b' }]]);
    expect((await rowsOf(name))[0]!.n).toBe('0');
    // A reload while offline keeps the queue (IndexedDB).
    await context.setOffline(false);
    await loadServerPage(page, true);
    await page.evaluate((key) => { (window as any).m = (window as any).Manette.createClient({ apiKey: key }); }, key);
    await waitUntil(async () => (await page.evaluate(() => (window as any).m.sync.pending())).length === 0, 'queue flushed');
    const rows = await app.sql<{ donnees: unknown }>(
      `select r.data as donnees from manette.table_rows r join manette.players j on j.id = r.player_id where j.pseudo = $1 order by r.created_at`, [name]);
    expect(rows.map((r) => r.donnees)).toEqual([{ item_id: 'a', quantite: 2 }, { item_id: 'b' }]);
    expect(new Set(posts).size).toBe(2); // one key per insert, whatever was resent
    expect(posts.length).toBeGreaterThanOrEqual(2);
    await context.close();
  }, T);

  it('a lost answer is replayed with the same Idempotency-Key: exactly one row', async () => {
    const context = await newContext();
    const page = await openPage(context);
    const name = pseudo('Perdu');
    await page.evaluate(async ({ key, name }) => {
      const m = (window as any).Manette.createClient({ apiKey: key });
      (window as any).m = m;
      await m.auth.register({ pseudo: name, email: `${name.toLowerCase()}@example.test`, password: 'motdepasse-solide' });
    }, { key, name });
    const keys: string[] = [];
    const statuses: number[] = [];
    await page.route('**/tables/inventaire', async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      keys.push(route.request().headers()['idempotency-key'] ?? '');
      const response = await route.fetch(); // reaches the server, which creates the row
      statuses.push(response.status());
      if (keys.length === 1) return route.abort('connectionreset'); // ... and the answer is lost
      return route.fulfill({ response });
    });
    const first = await page.evaluate(() => (window as any).m.table('inventaire').insert({ item_id: 'unique' }));
    expect(first).toMatchObject({ en_attente: true, donnees: { item_id: 'unique' } });
    await waitUntil(async () => (await page.evaluate(() => (window as any).m.sync.pending())).length === 0, 'replay');
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(statuses).toEqual([201, 201]); // the second answer is the first one, replayed
    expect((await rowsOf(name))[0]!.n).toBe('1');
    await context.close();
  }, T);

  it('two tabs of one game: one flusher, each write sent once', async () => {
    const context = await newContext();
    const [p1, p2] = [await openPage(context), await openPage(context)];
    const name = pseudo('Onglets');
    const posts: string[] = [];
    context.on('requestfinished', (r) => { if (r.method() === 'POST' && r.url().endsWith('/tables/inventaire')) posts.push(r.headers()['idempotency-key'] ?? ''); });
    await p1.evaluate(async ({ key, name }) => {
      const m = (window as any).Manette.createClient({ apiKey: key });
      (window as any).m = m;
      await m.auth.register({ pseudo: name, email: `${name.toLowerCase()}@example.test`, password: 'motdepasse-solide' });
    }, { key, name });
    // The second tab follows the session through the storage event.
    await p2.evaluate((key) => {
      const m = (window as any).Manette.createClient({ apiKey: key });
      (window as any).m = m;
    }, key);
    await waitUntil(async () => (await p2.evaluate(() => (window as any).m.auth.player?.pseudo)) === name, 'session shared');
    await context.setOffline(true);
    for (const [i, p] of [p1, p2, p1, p2].entries()) {
      await p.evaluate((i) => (window as any).m.table('inventaire').insert({ item_id: `tab-${i}` }), i);
    }
    expect(await p2.evaluate(() => (window as any).m.sync.pending().then((x: unknown[]) => x.length))).toBe(4);
    await context.setOffline(false);
    await waitUntil(async () => (await p1.evaluate(() => (window as any).m.sync.pending())).length === 0, 'both tabs flushed');
    await new Promise((r) => setTimeout(r, 1500)); // a duplicate send would show up here
    expect((await rowsOf(name))[0]!.n).toBe('4');
    expect(posts).toHaveLength(4);
    expect(new Set(posts).size).toBe(4);
    // Logging out in one tab logs out the other.
    await p1.evaluate(() => (window as any).m.auth.logout());
    await waitUntil(async () => (await p2.evaluate(() => (window as any).m.auth.player)) === null, 'logout shared');
    await context.close();
  }, T);

  /** Two players in a morpion match (through the API); returns the match id and who plays first. */
  async function morpion(aName: string, bName: string) {
    const a = await api.register(aName);
    const b = await api.register(bName);
    await api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1000 }, { token: a.token });
    const j = await api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1000 }, { token: b.token });
    expect(j.body.status).toBe('matched');
    const id = j.body.partie_id as string;
    const st = await api.get(`/match/state?partie_id=${id}`, { token: a.token });
    const first = st.body.partie.tour_joueur === a.data.joueur.id ? a : b;
    return { id, a, b, first, second: first === a ? b : a };
  }

  it('subscribe: etat events, a re-read after a gap, and the token renewed before it expires', async () => {
    const context = await newContext();
    await context.addInitScript(() => {
      // Keep the page's WebSockets reachable, to cut one like a network drop would.
      const Native = window.WebSocket;
      (window as any).sockets = [];
      (window as any).WebSocket = class extends Native {
        constructor(url: string | URL, p?: string | string[]) { super(url, p); (window as any).sockets.push(this); }
      };
    });
    const page = await openPage(context);
    const aName = pseudo('Salon');
    const { id, a, first, second } = await morpion(aName, pseudo('Rival'));
    const reads: number[] = [];
    page.on('request', (r) => { if (r.url().includes('/match/state')) reads.push(Date.now()); });
    await page.evaluate(async ({ key, aName, id }) => {
      const m = (window as any).Manette.createClient({ apiKey: key });
      (window as any).m = m;
      await m.auth.login({ identifiant: aName, password: 'motdepasse-solide' });
      (window as any).etats = [];
      (window as any).actions = [];
      (window as any).stop = await m.match(id).subscribe({
        onEtat: (p: any) => (window as any).etats.push(p.numero_tour),
        onAction: (e: any) => (window as any).actions.push(e.donnees.case),
      });
    }, { key, aName, id });
    await waitUntil(async () => (await page.evaluate(() => (window as any).etats)).length >= 1, 'state on join');
    expect(await page.evaluate(() => (window as any).etats)).toEqual([1]);

    // The page's player moves through the SDK; the other one through the API.
    const act = async (who: { token: string }, c: number) => {
      if (who !== a) return (await api.post('/match/action', { partie_id: id, action: 'jouer', donnees: { case: c } }, { token: who.token })).status;
      return page.evaluate(async ({ id, c }) => { await (window as any).m.match(id).act('jouer', { case: c }); return 200; }, { id, c });
    };
    expect(await act(first, 0)).toBe(200);
    await waitUntil(async () => (await page.evaluate(() => (window as any).etats)).includes(2), 'etat event');
    expect(await page.evaluate(() => (window as any).actions)).toEqual([0]);
    // A refused move surfaces as a ManetteError with its reason.
    const refused = await page.evaluate(async (id) => {
      try { await (window as any).m.match(id).act('jouer', { case: 0 }); return null; } catch (e: any) { return { code: e.code, status: e.status, reason: e.reason, name: e.name }; }
    }, id);
    expect(refused).toMatchObject({ name: 'ManetteError', code: 'action_refusee', status: 409 });
    expect(['case_occupee', 'pas_ton_tour']).toContain(refused!.reason);

    // A gap: the socket drops, a move happens meanwhile, the SDK rejoins and re-reads.
    const readsBefore = reads.length;
    await page.evaluate(() => { for (const s of (window as any).sockets) s.close(); });
    expect(await act(second, 4)).toBe(200);
    await waitUntil(async () => (await page.evaluate(() => (window as any).etats)).includes(3), 'state after the gap');
    expect(reads.length).toBeGreaterThan(readsBefore);

    // Past the first token's lifetime: still joined (renewed), events still arrive.
    await new Promise((r) => setTimeout(r, (TTL_S + 3) * 1000));
    expect(await act(first, 8)).toBe(200);
    await waitUntil(async () => (await page.evaluate(() => (window as any).etats)).includes(4), 'etat after renewal');
    const etats: number[] = await page.evaluate(() => (window as any).etats);
    expect(etats).toEqual([...etats].sort((x, y) => x - y)); // never back to an older state
    await page.evaluate(() => (window as any).stop());
    await context.close();
  }, T);

  it('waitForMatch resolves on the player channel\'s matched event; abort rejects', async () => {
    const context = await newContext();
    const page = await openPage(context);
    const aName = pseudo('Attente');
    await page.evaluate(async ({ key, aName }) => {
      const m = (window as any).Manette.createClient({ apiKey: key });
      (window as any).m = m;
      await m.auth.register({ pseudo: aName, email: `${aName.toLowerCase()}@example.test`, password: 'motdepasse-solide' });
      const ctl = new AbortController();
      const aborted = m.matchmaking.join('1v1', 1000).then(() => m.matchmaking.waitForMatch({ signal: ctl.signal }));
      ctl.abort();
      (window as any).abortResult = await aborted.then(() => 'resolved', (e: any) => e.code);
      await m.matchmaking.join('1v1', 1000);
      // Polling every 30 s: resolving within the test's bound means the event did it.
      (window as any).matched = null;
      (window as any).waiting = m.matchmaking.waitForMatch({ pollMs: 30_000 }).then((s: any) => { (window as any).matched = s; });
    }, { key, aName });
    expect(await page.evaluate(() => (window as any).abortResult)).toBe('aborted');
    await new Promise((r) => setTimeout(r, 1000)); // let the channel join
    const b = await api.register(pseudo('Adverse'));
    const j = await api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1000 }, { token: b.token });
    expect(j.body.status).toBe('matched');
    await waitUntil(async () => (await page.evaluate(() => (window as any).matched)) !== null, 'matched event', 10_000);
    const matched = await page.evaluate(() => (window as any).matched);
    expect(matched).toMatchObject({ status: 'matched', partie_id: j.body.partie_id, code_salon: j.body.code_salon });
    await context.close();
  }, T);
});
