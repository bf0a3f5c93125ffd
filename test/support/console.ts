// The studio console on a test database (console/server/start.ts, as `manette console`
// runs it), with the one-time links it prints, and a Chromium page signed in through one;
// or `manette console` itself, as a studio runs it, in a process of its own.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { readSettings } from '../../api/config/settings.js';
import type { Lang } from '../../api/http/messages.js';
import { startConsole, type RunningConsole } from '../../console/server/start.js';
import type { ConsoleDeps } from '../../console/server/route.js';
import { buildConsole } from '../../console/build.mjs';

export interface TestConsole extends RunningConsole {
  /** The latest one-time link printed. */
  link(): string;
  /** A new page of `context`, signed in with a fresh link, at `hash` (e.g. #/demo/keys). */
  open(context: BrowserContext, hash?: string, lang?: Lang): Promise<Page>;
  /** A fetch with a session: its cookie and CSRF token (opened with a fresh link). */
  session(): Promise<{ cookie: string; csrf: string; fetch(path: string, init?: RequestInit): Promise<Response> }>;
  errors: unknown[];
}

export async function startTestConsole(opts: {
  databaseUrl: string; gameFile?: string; lang?: Lang; host?: string; realtime?: ConsoleDeps['realtime'];
  /** More settings of the console (e.g. MANETTE_REALTIME_PLAN, the project's plan). */
  env?: Record<string, string>;
}): Promise<TestConsole> {
  await buildConsole({ quiet: true });
  let latest = '';
  const errors: unknown[] = [];
  const running = await startConsole({
    databaseUrl: opts.databaseUrl, settings: readSettings({ LOG_LEVEL: 'silent', ...opts.env }), lang: opts.lang ?? 'en', port: 0,
    host: opts.host, gameFile: opts.gameFile, realtime: opts.realtime,
    onLink: (url) => { latest = url; }, onError: (err) => { errors.push(err); },
  });
  return {
    ...running,
    errors,
    link: () => latest,
    open: (context, hash, lang) => openWithLink(context, latest, hash, lang),
    session: () => sessionFrom(latest, running.origin),
  };
}

/** A new page of `context`, signed in with the one-time `link`, at `hash` (e.g. #/demo/keys). */
export async function openWithLink(context: BrowserContext, link: string, hash = '', lang: Lang = 'en'): Promise<Page> {
  const page = await context.newPage();
  await page.addInitScript((l) => localStorage.setItem('manette-console-lang', l), lang);
  await page.goto(link);
  // The shell first shows the first game; then the view asked for.
  await page.locator('.shell h1').waitFor();
  if (hash) {
    await page.evaluate((h) => { location.hash = h; }, hash);
    const [, jeu, id] = /^#\/([^/]+)\/([^/?]+)/.exec(hash) ?? [];
    if (jeu && id) await page.locator(`.menu a[href^="#/${jeu}/${id}"][aria-current="page"]`).waitFor();
  }
  return page;
}

export type ConsoleSession = Awaited<ReturnType<TestConsole['session']>>;

/** A fetch with a session opened by the one-time `link`: its cookie and CSRF token (at `origin`, by default the link's). */
export async function sessionFrom(link: string, origin = new URL(link).origin): Promise<ConsoleSession> {
  const res = await fetch(link, { redirect: 'manual' });
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
  const s = await (await fetch(`${origin}/api/session`, { headers: { cookie } })).json() as { data: { csrf: string } };
  const csrf = s.data.csrf;
  return {
    cookie, csrf,
    fetch: (path, init = {}) => fetch(`${origin}${path}`, {
      ...init,
      headers: { cookie, 'x-csrf-token': csrf, ...(init.body ? { 'content-type': 'application/json' } : {}), ...(init.headers as Record<string, string> ?? {}) },
    }),
  };
}

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const LINK = /Open\s+(http:\/\/127\.0\.0\.1:\d+\/\?secret=\S+)/g;

export interface ConsoleProcess {
  proc: ChildProcess;
  /** The first one-time link it printed. */
  link: string;
  /** A one-time link not handed out yet (it prints a new one once the last is used). */
  freshLink(): Promise<string>;
  out(): string;
  /** Ctrl-C; resolves once it exited. */
  stop(): Promise<void>;
}

/** `manette console --port 0` as a studio runs it (node bin/manette.js, `env` on top); resolves with its first one-time link. */
export async function startConsoleProcess(env: NodeJS.ProcessEnv, args: string[] = []): Promise<ConsoleProcess> {
  const proc = spawn(process.execPath, [path.join(ROOT, 'bin', 'manette.js'), 'console', '--port', '0', ...args], {
    env: { ...process.env, LANG: 'en_US.UTF-8', LC_ALL: '', ...env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const links = () => [...out.matchAll(LINK)].map((m) => m[1]!);
  const link = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`manette console: no link after 90 s:\n${out}`)), 90_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const first = links()[0];
      if (first && /ready/.test(out)) { clearTimeout(timer); resolve(first); }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.on('exit', (code) => { clearTimeout(timer); reject(new Error(`manette console exited ${code}:\n${out}`)); });
  });
  const handedOut = new Set<string>();
  return {
    proc, link, out: () => out,
    async freshLink() {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const next = links().find((l) => !handedOut.has(l));
        if (next) { handedOut.add(next); return next; }
        if (Date.now() > deadline) throw new Error(`manette console: no new link printed:\n${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    stop: () => new Promise<void>((resolve) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
      proc.once('exit', () => resolve());
      try { process.kill(-proc.pid!, 'SIGINT'); } catch { resolve(); }
    }),
  };
}
