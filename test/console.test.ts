// The studio console's door (console/server/app.ts): nothing answers without the session
// that the terminal's one-time link opens; the link works once; the cookie is HttpOnly and
// SameSite=Strict; writes need the CSRF token and the console's own origin; loopback
// names only unless --host; and the real page opens in Chromium. Against the real console
// server on a real database, with a real `manette console` process for the terminal side.
import { request } from 'node:http';
import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from './support/harness.js';
import { startTestConsole, type TestConsole } from './support/console.js';
import { haveBrowser, launchBrowser, warnIfNoBrowser } from './support/browser.js';
import { CONSOLE_ROUTES } from '../console/server/routes/index.js';

let app: TestApp;
let con: TestConsole;

beforeAll(async () => {
  app = await startTestApp();
  await app.applyGame({ jeu: 'console-door', nom: 'Porte' });
  con = await startTestConsole({ databaseUrl: app.databaseUrl });
});
afterAll(async () => {
  await con?.close();
  await app?.close();
});

/** A raw request with any Host header (fetch will not send a made-up one). */
function raw(pathname: string, headers: Record<string, string>, method = 'GET', body?: string): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: con.port, path: pathname, method, headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => { text += c.toString(); });
      res.on('end', () => resolve({ status: res.statusCode!, body: text, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the session', () => {
  it('nothing answers without it: not the page, not an asset, not the API', async () => {
    for (const p of ['/', '/console.js', '/console.css', '/api/games', '/api/session', '/api/games/console-door/keys']) {
      const res = await fetch(`${con.origin}${p}`);
      expect(res.status, p).toBe(401);
      const text = await res.text();
      expect(text).not.toContain('console-door');
    }
    const res = await fetch(`${con.origin}/api/games`);
    expect(await res.json()).toMatchObject({ ok: false, error: 'console_session_required' });
  });

  it('the one-time link opens a session once, with an HttpOnly SameSite=Strict cookie', async () => {
    const link = con.link();
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?secret=[A-Za-z0-9_-]{43}$/);
    const first = await fetch(link, { redirect: 'manual' });
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('/');
    const cookie = first.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^manette_console=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict$/);
    // Used: refused the second time, and a new link was printed.
    const again = await fetch(link, { redirect: 'manual' });
    expect(again.status).toBe(401);
    expect(again.headers.get('set-cookie')).toBeNull();
    expect(con.link()).not.toBe(link);
    const games = await fetch(`${con.origin}/api/games`, { headers: { cookie: cookie.split(';')[0]! } });
    expect(games.status).toBe(200);
    expect((await games.json()).data).toEqual([expect.objectContaining({ jeu: 'console-door', nom: 'Porte' })]);
  });

  it('a wrong secret opens nothing and does not use up the link', async () => {
    const link = con.link();
    expect((await fetch(`${con.origin}/?secret=${'A'.repeat(43)}`, { redirect: 'manual' })).status).toBe(401);
    expect((await fetch(`${con.origin}/?secret=`, { redirect: 'manual' })).status).toBe(401);
    expect((await fetch(`${con.origin}/?secret=a&secret=b`, { redirect: 'manual' })).status).toBe(401);
    expect(con.link()).toBe(link);
    expect((await fetch(link, { redirect: 'manual' })).status).toBe(303);
  });

  it('a forged or stale cookie is no session', async () => {
    const res = await fetch(`${con.origin}/api/games`, { headers: { cookie: `manette_console=${'x'.repeat(43)}` } });
    expect(res.status).toBe(401);
  });

  it('logout ends the session', async () => {
    const s = await con.session();
    expect((await s.fetch('/api/logout', { method: 'POST', body: '{}' })).status).toBe(200);
    expect((await s.fetch('/api/games')).status).toBe(401);
  });
});

describe('every endpoint', () => {
  /** A route's path with its parameters filled in (a game that exists, ids that may not). */
  const filled = (p: string) => `/api${p.replace(':jeu', 'console-door').replace(/:(\w+)/g, '00000000-0000-4000-8000-000000000000')}`;

  it('answers nothing without the session (401), whatever its method', async () => {
    expect(CONSOLE_ROUTES.length).toBeGreaterThan(0);
    for (const route of CONSOLE_ROUTES) {
      const res = await fetch(`${con.origin}${filled(route.path)}`, {
        method: route.method.toUpperCase(), headers: { 'content-type': 'application/json' },
        body: route.method === 'get' ? undefined : '{}',
      });
      expect(res.status, `${route.method} ${route.path}`).toBe(401);
      expect(await res.json()).toMatchObject({ ok: false, error: 'console_session_required' });
    }
  });

  it('refuses every write without the CSRF token (403), before doing anything', async () => {
    const s = await con.session();
    const audit = async () => (await app.sql<{ n: string }>('select count(*) as n from manette.admin_audit'))[0]!.n;
    const before = await audit();
    for (const route of CONSOLE_ROUTES.filter((r) => r.method !== 'get')) {
      const res = await fetch(`${con.origin}${filled(route.path)}`, {
        method: route.method.toUpperCase(), headers: { cookie: s.cookie, 'content-type': 'application/json' }, body: '{}',
      });
      expect(res.status, `${route.method} ${route.path}`).toBe(403);
    }
    expect(await audit()).toBe(before);
  });
});

describe('writes', () => {
  it('need the session’s CSRF token', async () => {
    const s = await con.session();
    const refused = await fetch(`${con.origin}/api/logout`, { method: 'POST', headers: { cookie: s.cookie, 'content-type': 'application/json' }, body: '{}' });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ ok: false, error: 'csrf_refused' });
    const wrong = await fetch(`${con.origin}/api/logout`, { method: 'POST', headers: { cookie: s.cookie, 'x-csrf-token': 'nope' } });
    expect(wrong.status).toBe(403);
    expect((await s.fetch('/api/games')).status).toBe(200); // still signed in
  });

  it('from another origin are refused even with the token', async () => {
    const s = await con.session();
    const res = await s.fetch('/api/logout', { method: 'POST', body: '{}', headers: { origin: 'http://evil.example' } });
    expect(res.status).toBe(403);
    expect((await s.fetch('/api/games')).status).toBe(200);
  });
});

describe('hosts', () => {
  it('listens on 127.0.0.1 and answers loopback names only (DNS rebinding)', async () => {
    const s = await con.session();
    expect((await raw('/api/games', { host: `localhost:${con.port}`, cookie: s.cookie })).status).toBe(200);
    const evil = await raw('/api/games', { host: `evil.example:${con.port}`, cookie: s.cookie });
    expect(evil.status).toBe(421);
    expect(evil.body).not.toContain('console-door');
    expect((await raw('/', { host: `192.168.1.20:${con.port}` })).status).toBe(421);
  });

  it('`manette console` says where it listens and prints a one-time link; --host is needed for any other address', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'manette-console-'));
    const child = spawn(process.execPath, [path.join(import.meta.dirname, '..', 'bin', 'manette.js'), 'console', '--port', '0'], {
      env: { ...process.env, DATABASE_URL: app.databaseUrl, MANETTE_DATA_DIR: dir, LANG: 'en_US.UTF-8', LC_ALL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => { out += c.toString(); });
    child.stderr.on('data', (c: Buffer) => { out += c.toString(); });
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setInterval(() => { if (/Open\s+http/.test(out) && /ready/.test(out)) { clearInterval(timer); resolve(); } }, 100);
        child.once('exit', () => { clearInterval(timer); reject(new Error(out)); });
      });
      const link = /Open\s+(http:\/\/127\.0\.0\.1:\d+\/\?secret=\S+)/.exec(out)![1]!;
      const opened = await fetch(link, { redirect: 'manual' });
      expect(opened.status).toBe(303);
      // Once used, the terminal shows a new link for another browser.
      await new Promise((r) => setTimeout(r, 200));
      expect(out.match(/Open\s+http/g)!.length).toBe(2);
    } finally {
      child.kill('SIGINT');
      await new Promise((r) => child.once('exit', r));
    }
  });
});

describe.skipIf(!haveBrowser)('the page', () => {
  warnIfNoBrowser('test/console.test.ts');
  let browser: Browser;
  beforeAll(async () => { browser = await launchBrowser(); });
  afterAll(async () => { await browser?.close(); });

  it('opens from the link on the first game, menu and switcher in English and French', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await con.open(context);
    await page.locator('h1').filter({ hasText: 'Overview' }).waitFor();
    expect(page.url()).toMatch(/#\/console-door\/overview$/);
    expect(await page.locator('.game-switch select').inputValue()).toBe('console-door');
    await page.getByRole('button', { name: 'FR' }).click();
    await page.locator('h1').filter({ hasText: 'Vue d’ensemble' }).waitFor();
    expect(await page.locator('.menu a').allTextContents()).toEqual(
      ['Vue d’ensemble', 'Joueurs', 'Tables', 'Classements', 'Parties', 'Clés', 'Panneaux', 'Audit']);
    await context.close();
  });

  it('a page opened in French shows FR as the language in use', async () => {
    const context = await browser.newContext({ viewport: { width: 768, height: 800 } });
    const page = await con.open(context, '', 'fr');
    await page.locator('h1').filter({ hasText: 'Vue d’ensemble' }).waitFor();
    expect(await page.getByRole('button', { name: 'FR' }).getAttribute('aria-pressed')).toBe('true');
    expect(await page.getByRole('button', { name: 'EN' }).getAttribute('aria-pressed')).toBe('false');
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('fr');
    await context.close();
  });
});
