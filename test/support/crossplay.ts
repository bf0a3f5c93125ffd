// An engine SDK's program plays a whole match against a browser-SDK player in Chromium,
// on the conformance server: both end with the same final state and history.
import { spawn } from 'node:child_process';
import { expect } from 'vitest';
import { launchBrowser } from './browser.js';
import { startBrowserPlayer } from './browser-player.js';
import { ROOT } from './conformance.js';
import type { ConformanceServer } from '../conformance/server.js';

const PASSWORD = 'motdepasse-solide';

/** Runs `command args` (the engine's program, given --url/--key/... after `args`) against a browser player. */
export async function crossPlay(server: ConformanceServer, key: string, command: string, args: string[], env: Record<string, string> = {}) {
  const stamp = Date.now().toString(36).slice(-6);
  const engine = { pseudo: `moteur${stamp}`, page: `page${stamp}` };
  const child = spawn(command, [...args,
    '--url', new URL(server.baseUrl).origin, '--key', key, '--pseudo', engine.pseudo, '--password', PASSWORD,
    '--register', '--email', `${engine.pseudo}@exemple.fr`, '--auto'], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const browser = await launchBrowser();
  try {
    const player = await startBrowserPlayer(browser, { baseUrl: server.baseUrl, apiKey: key, pseudo: engine.page, password: PASSWORD });
    const seen = await player.finished();
    const code = await exited;
    expect(code, out).toBe(0);
    const last = JSON.parse(out.trim().split('\n').filter((l) => l.startsWith('{')).at(-1)!) as { final: any; history: any };
    const official = await player.page.evaluate((id) => (window as any).m.match(id).state(), seen.final.id as string);
    expect(official.statut).toBe('terminee');
    expect(seen.final).toEqual(official);
    expect(last.final).toEqual(official);
    expect(last.history.actions).toEqual(seen.history.actions);
    expect(last.history.actions.length).toBe(official.numero_tour - 1);
    return { out, final: official };
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await browser.close();
  }
}
