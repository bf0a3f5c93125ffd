// `MANETTE_STEAM_API_URL=twin npm start`: the twin's Steam stand-in runs beside the API, the
// banner names it, and a game declaring `connexions.steam` signs in with a test ticket, as
// docs/accounts.md ("Signing in to npm start's demo with a test Steam ticket") tells a developer.
import type { ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './support/net.js';
import { npmStart } from './support/npm-start.js';
import { runCommand } from './support/run-command.js';
import { stackProcessesOf, until } from './support/local-procs.js';

let root: string;
let dataDir: string;
let env: NodeJS.ProcessEnv;
const started: ChildProcess[] = [];

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'manette-steam-start-'));
  await chmod(root, 0o755); // as root, Postgres runs as the `postgres` user and must reach it
  dataDir = path.join(root, 'data');
  env = {
    ...process.env,
    PORT: String(await freePort()),
    MANETTE_PG_PORT: String(await freePort()),
    MANETTE_REALTIME_PORT: '0',
    MANETTE_DATA_DIR: dataDir,
    MANETTE_WORKERS: '1',
    MANETTE_STEAM_API_URL: 'twin',
    LOG_LEVEL: 'warn',
    LANG: 'en_US.UTF-8',
    LC_ALL: '',
  };
  delete env.DATABASE_URL;
  delete env.MANETTE_STEAM_PUBLISHER_KEY;
});

afterAll(async () => {
  for (const p of started) try { process.kill(-p.pid!, 'SIGKILL'); } catch { /* gone */ }
  if (!(await until(() => stackProcessesOf(dataDir).length === 0, 20_000))) {
    for (const pid of stackProcessesOf(dataDir)) try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
  }
  await rm(root, { recursive: true, force: true });
});

describe('npm start with MANETTE_STEAM_API_URL=twin', () => {
  it('runs the Steam stand-in, and the demo game signs in with a test ticket, once per ticket', async () => {
    const { proc, out } = await npmStart(env, started);
    const steamUrl = /Steam\s+(http:\/\/127\.0\.0\.1:\d+)\s/.exec(out())?.[1];
    expect(steamUrl, out()).toBeDefined();
    // The demo's game file, with Steam declared (app 480, Spacewar: Steamworks' test app).
    const game = JSON.parse(await readFile('examples/demo/game.json', 'utf8'));
    const file = path.join(root, 'game.json');
    await writeFile(file, JSON.stringify({ ...game, connexions: { ...game.connexions, steam: { app_id: 480 } } }));
    const applied = await runCommand('node', ['bin/manette.js', 'apply', file], { env: env as Record<string, string> });
    expect(applied.code, applied.out).toBe(0);
    const key = /"api_key":"([^"]+)"/.exec(applied.out)![1]!;

    const api = `http://127.0.0.1:${env.PORT}/api/public/v1`;
    const login = (ticket: string) => fetch(`${api}/players/login/steam`, {
      method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ ticket }),
    });
    const { ticket } = await (await fetch(`${steamUrl}/test-ticket?steamid=76561197960287930`)).json() as { ticket: string };
    const first = await login(ticket);
    expect(first.status).toBe(200);
    const joueur = (await first.json()).data.joueur;
    // The docs' one-liner: the hex of manette-test-ticket:<SteamID64>:<anything>.
    const hex = (s: string) => Buffer.from(s).toString('hex');
    const second = await login(hex(`manette-test-ticket:76561197960287930:${Date.now()}`));
    expect((await second.json()).data.joueur.id).toBe(joueur.id);
    expect((await login(ticket)).status).toBe(401);

    const exited = new Promise((r) => proc.once('exit', r));
    process.kill(-proc.pid!, 'SIGINT');
    await exited;
  }, 180_000);
});
