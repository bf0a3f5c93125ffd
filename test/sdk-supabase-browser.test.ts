// The browser SDK and a studio's own Supabase (docs/sdk.md, "Supabase"), in a real Chromium
// with the real supabase-js (its UMD build, as a studio's page loads it):
// - auth.fromSupabase: a supabase-js client signed in with a password against a local server
//   playing Supabase Auth (twin/supabase-auth/server.ts: its token endpoint, its user
//   endpoint, its key set) signs the player in to Manette with the session's access token,
//   follows TOKEN_REFRESHED (no new login), another user's SIGNED_IN (that user's player) and
//   SIGNED_OUT (Manette logout); a used token is refreshed once; a forged one creates nothing;
// - m.supabase: a supabase-js client whose access token is the player's Realtime token joins
//   the studio's own private channel (a policy on realtime.messages with auth.uid(), made as
//   `postgres` as a studio migration would) on the twin's Realtime stand-in, and is refused
//   another player's; SQL run as that token's role and claims reads only the player's rows
//   of a studio table;
// - <manette-login> offers the game file's providers (GET /panel's `connexions`): a button
//   dispatches manette:provider, the page hands the provider's token to loginWithToken.
//   Screenshots (desktop and phone, French and English) go to SCREENSHOT_DIR.
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { client, startTestApp, type TestApp } from './support/harness.js';
import { SCREENSHOT_DIR, haveBrowser, launchBrowser, warnIfNoBrowser } from './support/browser.js';
import { DEFAULT_TEXTS } from '../sdk/src/panels/texts.js';
import { createClient as createManette } from '../sdk/src/index.js';
import { startSupabaseAuthStandIn, type SupabaseAuthStandIn } from '../twin/supabase-auth/server.js';

warnIfNoBrowser('sdk-supabase-browser');
const require = createRequire(import.meta.url);
const SUPABASE_UMD = readFileSync(require.resolve('@supabase/supabase-js').replace(/dist\/index\.c?js$/, 'dist/umd/supabase.js'), 'utf8');

describe.skipIf(!haveBrowser)('the SDK with a studio\'s supabase-js', () => {
  let app: TestApp;
  let auth: SupabaseAuthStandIn;
  let browser: Browser;
  let key: string;
  let gameId: string;
  let host: http.Server;
  let hostUrl: string;
  const pages = new Map<string, string>();
  let pageCount = 0;

  beforeAll(async () => {
    auth = await startSupabaseAuthStandIn();
    app = await startTestApp({ MANETTE_SUPABASE_AUTH_URL: auth.authUrl }, undefined, { realtime: true });
    key = await app.applyGame({ jeu: 'studio-supabase', nom: 'Studio', origines: ['*'], connexions: { supabase: { supabase: true } } });
    gameId = (await app.sql<{ id: string }>("select id from manette.games where slug = 'studio-supabase'"))[0]!.id;
    // The studio's own migration, as `postgres`: a private channel per player, and a table.
    await app.sql(`create policy "Each user reads its own studio channel" on realtime.messages
      for select to authenticated
      using (realtime.topic() like 'studio:%' and split_part(realtime.topic(), ':', 2) = (select auth.uid())::text)`);
    await app.sql(`create table public.notes (id serial primary key, owner uuid not null, texte text not null);
      alter table public.notes enable row level security;
      create policy "Each user reads its own notes" on public.notes for select to authenticated using ((select auth.uid()) = owner);
      grant select on public.notes to authenticated`);
    host = http.createServer((req, res) => {
      if (req.url === '/supabase.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(SUPABASE_UMD);
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
    await app?.close();
    await auth?.close();
  });

  type Errors = Page & { errors: string[] };
  /** A studio's page: supabase-js (global `supabase`), the Manette SDK and a client (`window.m`). */
  async function studioPage(ctx: BrowserContext): Promise<Errors> {
    const url = `/page-${++pageCount}.html`;
    pages.set(url, `<!doctype html><html lang="fr"><head><meta charset="utf-8">
      <script src="${hostUrl}/supabase.js"></script>
      <script src="${new URL(app.baseUrl).origin}/sdk/manette.js"></script>
      <script>
        window.m = Manette.createClient({ baseUrl: ${JSON.stringify(app.baseUrl)}, apiKey: ${JSON.stringify(key)} });
        window.sb = supabase.createClient(${JSON.stringify(auth.origin)}, 'cle-publique-du-studio');
        window.changes = [];
        m.auth.onChange((j) => window.changes.push(j ? j.id : null));
      </script></head><body></body></html>`);
    const page = await ctx.newPage() as Errors;
    page.errors = [];
    page.on('pageerror', (e) => page.errors.push(e.message));
    await page.goto(hostUrl + url);
    return page;
  }
  const player = (page: Page) => page.evaluate(() => (window as any).m.auth.player?.id ?? null);
  const waitPlayer = (page: Page, id: string | null) =>
    page.waitForFunction((want) => ((window as any).m.auth.player?.id ?? null) === want, id, { timeout: 15_000 });
  const signInSupabase = (page: Page, email: string, password: string) => page.evaluate(async ([e, p]) => {
    const { data, error } = await (window as any).sb.auth.signInWithPassword({ email: e, password: p });
    if (error) throw new Error(error.message);
    return data.session.user.id as string;
  }, [email, password] as const);
  const playerOf = async (userId: string) => (await app.sql<{ id: string }>(
    'select id from manette.players where game_id = $1 and supabase_user_id = $2', [gameId, userId]))[0]?.id;
  const sessionsOf = async (playerId: string) => Number((await app.sql<{ n: string }>(
    'select count(*) as n from manette.sessions where player_id = $1', [playerId]))[0]!.n);

  it('fromSupabase signs in with the Supabase session, keeps it on TOKEN_REFRESHED, follows another user and SIGNED_OUT', async () => {
    const alice = await auth.addUser({ email: 'alice@studio.test', password: 'mdp-alice', name: 'Alice Studio' });
    const bob = await auth.addUser({ email: 'bob@studio.test', password: 'mdp-bob' });
    const ctx = await browser.newContext();
    const page = await studioPage(ctx);
    expect(await signInSupabase(page, alice.email, alice.password)).toBe(alice.id);
    await page.evaluate(async () => { (window as any).stop = await (window as any).m.auth.fromSupabase((window as any).sb); });
    const alicePlayer = await playerOf(alice.id);
    expect(alicePlayer).toBeTruthy();
    expect(await player(page)).toBe(alicePlayer);
    expect(await app.sql('select issuer, subject, fournisseur from manette.player_identities where player_id = $1', [alicePlayer]))
      .toEqual([{ issuer: auth.authUrl, subject: alice.id, fournisseur: 'supabase' }]);
    // Its pseudo comes from the token's user_metadata.full_name (docs/accounts.md).
    expect((await app.sql<{ pseudo: string }>('select pseudo from manette.players where id = $1', [alicePlayer]))[0]!.pseudo).toMatch(/^alice/i);
    expect(await sessionsOf(alicePlayer!)).toBe(1);

    // TOKEN_REFRESHED: a new access token of the same user, no new Manette login. Then Bob
    // signs in (SIGNED_IN, another user): his player. Changes are handled in order, so once
    // Bob's player is in, the refresh before it was handled too.
    const issued = auth.issued(alice.id);
    await page.evaluate(async () => { await (window as any).sb.auth.refreshSession(); });
    expect(auth.issued(alice.id)).toBe(issued + 1);
    await signInSupabase(page, bob.email, bob.password);
    await expect.poll(() => playerOf(bob.id), { timeout: 15_000 }).toBeTruthy();
    const bobPlayer = (await playerOf(bob.id))!;
    await waitPlayer(page, bobPlayer);
    expect(await sessionsOf(alicePlayer!)).toBe(1);
    // Alice's Manette session was logged out before Bob's opened.
    expect(await app.sql('select revoked_at is not null as revoked from manette.sessions where player_id = $1', [alicePlayer]))
      .toEqual([{ revoked: true }]);

    // A Manette logout on its own (the panel's button) stays a logout: Bob's next refreshed
    // token signs nothing in. Alice signing in again then does (her player, a new session).
    await page.evaluate(async () => { await (window as any).m.auth.logout(); });
    await page.evaluate(async () => { await (window as any).sb.auth.refreshSession(); });
    await signInSupabase(page, alice.email, alice.password);
    await waitPlayer(page, alicePlayer!);
    expect(await sessionsOf(bobPlayer)).toBe(1);
    expect(await sessionsOf(alicePlayer!)).toBe(2);

    // SIGNED_OUT: the Manette session opened from Supabase ends (its token is revoked).
    await page.evaluate(async () => { await (window as any).sb.auth.signOut(); });
    await waitPlayer(page, null);
    expect(await app.sql('select count(*)::int as n from manette.sessions where player_id = $1 and revoked_at is null', [alicePlayer]))
      .toEqual([{ n: 0 }]);

    // Stopped: a new Supabase sign-in changes nothing in Manette.
    await page.evaluate(() => (window as any).stop());
    await signInSupabase(page, alice.email, alice.password);
    await page.evaluate(() => new Promise((r) => setTimeout(r, 0)));
    expect(await player(page)).toBeNull();
    expect(page.errors).toEqual([]);
    await ctx.close();
  });

  it('a reload keeps the player without a new login; an access token already used is refreshed once and sent again', async () => {
    const carol = await auth.addUser({ email: 'carol@studio.test', password: 'mdp-carol' });
    const ctx = await browser.newContext();
    const page = await studioPage(ctx);
    await signInSupabase(page, carol.email, carol.password);
    await page.evaluate(async () => { await (window as any).m.auth.fromSupabase((window as any).sb); });
    const carolPlayer = (await playerOf(carol.id))!;
    expect(await player(page)).toBe(carolPlayer);
    const issued = auth.issued(carol.id);

    // Both sessions are kept (localStorage): the same user, no login, no new token.
    await page.reload();
    await page.evaluate(async () => { await (window as any).m.auth.fromSupabase((window as any).sb); });
    expect(await player(page)).toBe(carolPlayer);
    expect(await sessionsOf(carolPlayer)).toBe(1);
    expect(auth.issued(carol.id)).toBe(issued);

    // Manette's session alone is gone: the kept access token was used (a replay Manette
    // refuses), so the SDK refreshes the Supabase session once and signs in with the new token.
    await page.evaluate(async () => { await (window as any).m.auth.logout(); });
    await page.reload();
    await page.evaluate(async () => { await (window as any).m.auth.fromSupabase((window as any).sb); });
    expect(await player(page)).toBe(carolPlayer);
    expect(await sessionsOf(carolPlayer)).toBe(2);
    expect(auth.issued(carol.id)).toBe(issued + 1);
    expect(page.errors).toEqual([]);
    await ctx.close();
  });

  it('a forged Supabase token is refused with invalid_credentials and creates nothing', async () => {
    const mallory = await auth.addUser({ email: 'mallory@studio.test', password: 'mdp-mallory', forged: true });
    const before = await app.sql('select count(*)::int as n from manette.players where game_id = $1', [gameId]);
    const ctx = await browser.newContext();
    const page = await studioPage(ctx);
    await signInSupabase(page, mallory.email, mallory.password);
    const err = await page.evaluate(async () => {
      try { await (window as any).m.auth.fromSupabase((window as any).sb); return null; } catch (e: any) { return { code: e.code, status: e.status }; }
    });
    expect(err).toEqual({ code: 'invalid_credentials', status: 401 });
    expect(await player(page)).toBeNull();
    expect(await app.sql('select count(*)::int as n from manette.players where game_id = $1', [gameId])).toEqual(before);
    expect(await playerOf(mallory.id)).toBeUndefined();
    await ctx.close();
  });

  it('m.supabase: supabase-js with the player\'s token joins the studio\'s channel of that player only, and reads only its rows', async () => {
    const ctx = await browser.newContext();
    const page = await studioPage(ctx);
    const realtimeOrigin = new URL(app.realtimeUrl!.replace(/^ws/, 'http')).origin;
    const other = (await client(app.baseUrl, key).post('/players/invite', {})).body.data.joueur.id as string;
    const result = await page.evaluate(async ([url, otherId]) => {
      const w = window as any;
      const me = await w.m.auth.guest({ appareilId: false });
      const cfg = await w.m.realtime.config();
      const sbp = await w.m.supabase(w.supabase.createClient, url, cfg.key);
      const join = (topic: string) => new Promise<string>((resolve) => {
        const ch = sbp.channel(topic, { config: { private: true } });
        ch.subscribe((status: string, err?: Error) => { if (status !== 'CLOSED') resolve(err ? `${status} ${err.message}` : status); });
      });
      const own = await join(`studio:${me.id}`);
      const theirs = await join(`studio:${otherId}`);
      // The token supabase-js's Realtime client holds (given by the accessToken option).
      const token: string = sbp.realtime.accessTokenValue;
      return { me: me.id, own, theirs, token, auth: (() => { try { sbp.auth.getSession(); return 'usable'; } catch { return 'disabled'; } })() };
    }, [realtimeOrigin, other] as const);
    expect(result.own, app.realtime!.logs.join('\n')).toBe('SUBSCRIBED');
    expect(result.theirs).toMatch(/^CHANNEL_ERROR /);
    // supabase-js's own auth is off: the token is Manette's (accessToken option).
    expect(result.auth).toBe('disabled');
    const claims = JSON.parse(Buffer.from(result.token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    expect(claims).toMatchObject({ sub: result.me, role: 'authenticated', aud: 'authenticated' });

    // SQL as the token's role and claims (what PostgREST does with it): the player's rows only.
    await app.sql('insert into public.notes (owner, texte) values ($1, $2), ($3, $4)', [result.me, 'à moi', other, 'à l’autre']);
    const c = new pg.Client({ connectionString: app.databaseUrl });
    await c.connect();
    try {
      await c.query('begin');
      await c.query("select set_config('request.jwt.claims', $1, true), set_config('role', 'authenticated', true)", [JSON.stringify(claims)]);
      expect((await c.query('select owner::text, texte from public.notes')).rows).toEqual([{ owner: result.me, texte: 'à moi' }]);
      await c.query('rollback');
    } finally {
      await c.end();
    }
    expect(page.errors).toEqual([]);
    await ctx.close();
  });
});

describe('GET /panel lists the game file\'s providers', () => {
  let app: TestApp;
  beforeAll(async () => { app = await startTestApp(); });
  afterAll(async () => { await app?.close(); });

  it('by name only (sorted, never their settings), and an empty list without any', async () => {
    const withProviders = await app.applyGame({ jeu: 'panel-fournisseurs', nom: 'Fournisseurs', connexions: {
      supabase: { supabase: true },
      apple: { emetteur: 'https://appleid.apple.com', audience: 'com.studio.secret', jwks_url: 'https://appleid.apple.com/auth/keys' },
    } });
    const r = await client(app.baseUrl, withProviders).get('/panel');
    expect(r.status).toBe(200);
    expect(r.body.data.connexions).toEqual(['apple', 'supabase']);
    expect(r.text).not.toContain('com.studio.secret');
    expect(r.text).not.toContain('appleid.apple.com');
    const none = await app.applyGame({ jeu: 'panel-sans', nom: 'Sans' });
    expect((await client(app.baseUrl, none).get('/panel')).body.data).toMatchObject({ connexions: [], google_client_id: null });
  });
});

describe.skipIf(!haveBrowser)('<manette-login> and the game file\'s providers', () => {
  let app: TestApp;
  let auth: SupabaseAuthStandIn;
  let browser: Browser;
  let key: string;
  let host: http.Server;
  let hostUrl: string;
  const pages = new Map<string, string>();
  let pageCount = 0;

  beforeAll(async () => {
    auth = await startSupabaseAuthStandIn();
    app = await startTestApp({ MANETTE_SUPABASE_AUTH_URL: auth.authUrl });
    key = await app.applyGame({ jeu: 'panel-supabase', nom: 'Panel', origines: ['*'], connexions: {
      supabase: { supabase: true },
      apple: { emetteur: 'https://appleid.apple.com', audience: 'com.studio.jeu', jwks_url: 'https://appleid.apple.com/auth/keys' },
    } });
    host = http.createServer((req, res) => {
      if (req.url === '/supabase.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(SUPABASE_UMD);
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
    await app?.close();
    await auth?.close();
  });

  /** A game's page: the panel; a manette:provider for `supabase` signs in with supabase-js and hands its token over. */
  async function panelPage(ctx: BrowserContext, lang: 'fr' | 'en', email: string, password: string): Promise<Page & { errors: string[] }> {
    const url = `/panel-${++pageCount}.html`;
    pages.set(url, `<!doctype html><html lang="${lang}"><head><meta charset="utf-8">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <style>body { margin: 16px; font-family: sans-serif; background: #eceaf6; }</style>
      <script src="${hostUrl}/supabase.js"></script>
      <script src="${new URL(app.baseUrl).origin}/sdk/manette.js"></script>
      <script>
        window.m = Manette.createClient({ baseUrl: ${JSON.stringify(app.baseUrl)}, apiKey: ${JSON.stringify(key)}, lang: ${JSON.stringify(lang)} });
        window.sb = supabase.createClient(${JSON.stringify(auth.origin)}, 'cle-publique-du-studio');
        window.events = [];
        for (const type of ['manette:provider', 'manette:signed-in'])
          document.addEventListener(type, (e) => window.events.push({ type, detail: e.detail }));
        document.addEventListener('manette:provider', async (e) => {
          if (e.detail.fournisseur !== 'supabase') return;
          const { data, error } = await sb.auth.signInWithPassword({ email: ${JSON.stringify(email)}, password: ${JSON.stringify(password)} });
          if (error) return;
          await e.target.loginWithToken('supabase', data.session.access_token);
        });
      </script></head><body><manette-login></manette-login></body></html>`);
    const page = await ctx.newPage() as Page & { errors: string[] };
    page.errors = [];
    page.on('pageerror', (e) => page.errors.push(e.message));
    await page.goto(hostUrl + url);
    return page;
  }
  const eventsOf = (page: Page) => page.evaluate(() => (window as any).events as { type: string; detail: any }[]);

  for (const lang of ['fr', 'en'] as const) {
    it(`shows a button per provider (${lang}); the Supabase one signs in through the page's supabase-js`, async () => {
      const T = DEFAULT_TEXTS[lang];
      const user = await auth.addUser({ email: `panel-${lang}@studio.test`, password: 'mdp-panel' });
      for (const [name, viewport] of [['', { width: 1100, height: 900 }], ['-phone', { width: 360, height: 780 }]] as const) {
        const ctx = await browser.newContext({ viewport, deviceScaleFactor: name ? 2 : 1 });
        const page = await panelPage(ctx, lang, user.email, user.password);
        const panel = page.locator('manette-login');
        const apple = panel.getByRole('button', { name: T.connexion_fournisseur!.replace('{fournisseur}', 'Apple') });
        const supa = panel.getByRole('button', { name: T.connexion_fournisseur!.replace('{fournisseur}', 'Supabase') });
        await apple.waitFor({ timeout: 10_000 });
        expect(await supa.count()).toBe(1);
        // Google keeps its place (no client id here: no Google button), the guest button stays.
        expect(await panel.getByRole('button', { name: T.connexion_invite }).count()).toBe(1);
        await page.screenshot({ path: `${SCREENSHOT_DIR}/panel-providers${name}${lang === 'en' ? '-en' : ''}.png`, fullPage: true });
        if (name) { await ctx.close(); continue; }

        // Apple: the game is told, nothing is signed in (the page does not handle it).
        await apple.click();
        await expect.poll(() => eventsOf(page)).toEqual([{ type: 'manette:provider', detail: { fournisseur: 'apple' } }]);
        // A refused token: the server's message in the panel, nobody signed in.
        await page.evaluate(() => (document.querySelector('manette-login') as any).loginWithToken('apple', 'pas.un.jeton'));
        const alert = await page.$eval('manette-login', (el) => el.shadowRoot!.querySelector('[role=alert]')!.textContent);
        expect(alert).toBeTruthy();
        expect(await page.evaluate(() => (window as any).m.auth.player)).toBeNull();
        // Supabase: the page signs in with supabase-js and hands the access token over.
        await supa.click();
        await page.waitForFunction(() => (window as any).events.some((e: any) => e.type === 'manette:signed-in'), undefined, { timeout: 15_000 });
        const signedIn = (await eventsOf(page)).find((e) => e.type === 'manette:signed-in')!;
        const [row] = await app.sql<{ id: string }>('select id from manette.players where supabase_user_id = $1', [user.id]);
        expect(signedIn.detail.joueur.id).toBe(row!.id);
        expect(await page.$eval('manette-login', (el) => (el as any).mode)).toBe('player');
        expect(page.errors).toEqual([]);
        await ctx.close();
      }
    });
  }
});

describe('m.supabase: the access token it gives supabase-js', () => {
  let app: TestApp;
  let short: TestApp;
  beforeAll(async () => {
    [app, short] = await Promise.all([startTestApp(), startTestApp({ MANETTE_REALTIME_TOKEN_TTL_S: '60' })]);
  });
  afterAll(async () => { await Promise.all([app?.close(), short?.close()]); });

  /** A Manette client counting its GET /realtime/config requests, and the options a studio's createClient was given. */
  async function setup(target: TestApp) {
    const key = await target.applyGame({ jeu: 'jeton-studio', nom: 'Jeton' });
    const store = new Map<string, string>();
    const storage = { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => { store.set(k, v); }, removeItem: (k: string) => { store.delete(k); } };
    let configs = 0;
    const counting: typeof fetch = (input, init) => {
      if (String(input).includes('/realtime/config')) configs++;
      return fetch(input, init);
    };
    const m = createManette({ baseUrl: target.baseUrl, apiKey: key, storage, fetch: counting });
    // What a studio's createClient receives (supabase-js keeps `accessToken` and calls it).
    const made: { url: string; key: string; options: { accessToken: () => Promise<string | null>; db?: unknown } }[] = [];
    const studioCreateClient = (url: string, k: string, options: { accessToken: () => Promise<string | null> }) => {
      made.push({ url, key: k, options });
      return { made: made.length };
    };
    return { m, made, studioCreateClient, configs: () => configs };
  }
  const subOf = (jwt: string | null) => jwt && (JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()) as { sub: string }).sub;

  it('null without a player; the player\'s token, fetched once for concurrent calls and kept while it is far from expiry; another player\'s after a change', async () => {
    const { m, made, studioCreateClient, configs } = await setup(app);
    const sb = await m.supabase(studioCreateClient, 'https://ref.supabase.co', 'cle-publique', { db: { schema: 'public' } });
    expect(sb).toEqual({ made: 1 });
    expect(made[0]).toMatchObject({ url: 'https://ref.supabase.co', key: 'cle-publique', options: { db: { schema: 'public' } } });
    const accessToken = made[0]!.options.accessToken;
    expect(await accessToken()).toBeNull();
    expect(configs()).toBe(0);

    const a = await m.auth.guest({ appareilId: false });
    const [t1, t2, t3] = await Promise.all([accessToken(), accessToken(), accessToken()]);
    expect(subOf(t1)).toBe(a.id);
    expect([t2, t3]).toEqual([t1, t1]);
    expect(configs()).toBe(1);
    expect(await accessToken()).toBe(t1);
    expect(configs()).toBe(1);

    await m.auth.logout();
    expect(await accessToken()).toBeNull();
    const b = await m.auth.guest({ appareilId: false });
    expect(subOf(await accessToken())).toBe(b.id);
    expect(configs()).toBe(2);
  });

  it('asks for a new token when the one held expires within a minute', async () => {
    const { m, made, studioCreateClient, configs } = await setup(short);
    await m.auth.guest({ appareilId: false });
    await m.supabase(studioCreateClient, 'https://ref.supabase.co', 'cle-publique');
    const accessToken = made[0]!.options.accessToken;
    await accessToken();
    const before = configs();
    await accessToken();
    expect(configs()).toBe(before + 1);
  });
});
