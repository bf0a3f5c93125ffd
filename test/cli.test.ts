// What a newcomer does: `npm start` on the embedded database, `npx manette apply`,
// a second start refused, Ctrl-C, restart with data kept.
import { execFile, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './support/net.js';
import { npmStart as startNpm, portOpen } from './support/npm-start.js';
import { freshDatabase, twinAdminUrlOf } from './support/harness.js';

const run = promisify(execFile);
let dir: string;
let env: NodeJS.ProcessEnv;
let port: number;
const started: ChildProcess[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'manette-cli-'));
  await chmod(dir, 0o755);
  port = await freePort();
  env = {
    ...process.env,
    PORT: String(port),
    MANETTE_PG_PORT: String(await freePort()),
    MANETTE_REALTIME_PORT: '0',
    MANETTE_DATA_DIR: path.join(dir, 'data'),
    MANETTE_ARGON2_MEMORY_KIB: '1024',
    MANETTE_ARGON2_ITERATIONS: '1',
    LOG_LEVEL: 'warn',
    LANG: 'fr_FR.UTF-8', // the CLI's texts are checked in French here (test/studio.test.ts checks English)
    LC_ALL: '',
    DATABASE_URL: '',
  };
  delete env.DATABASE_URL;
});
afterAll(async () => {
  for (const p of started) if (p.exitCode === null && p.signalCode === null) try { process.kill(-p.pid!, 'SIGKILL'); } catch { /* gone */ }
  await rm(dir, { recursive: true, force: true });
});

/** `npm start`, resolved with its banner. */
async function npmStart(extraEnv: NodeJS.ProcessEnv = {}): Promise<{ proc: ChildProcess; out: string }> {
  const { proc, out } = await startNpm({ ...env, ...extraEnv }, started);
  return { proc, out: out() };
}

/** Ctrl-C in a terminal: SIGINT to the whole process group. True when it ended by it. */
function ctrlC(proc: ChildProcess): Promise<boolean> {
  return new Promise((resolve) => {
    proc.once('exit', (code, signal) => resolve(code === 0 || code === 130 || signal === 'SIGINT'));
    process.kill(-proc.pid!, 'SIGINT');
  });
}

async function apply(file: string) {
  try {
    const { stdout } = await run('npx', ['manette', 'apply', file], { env });
    return { code: 0, last: JSON.parse(stdout.trim().split('\n').pop()!), stderr: '' };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, last: JSON.parse(e.stdout.trim().split('\n').pop()!), stderr: e.stderr };
  }
}

describe('npm start and npx manette apply', () => {
  let demoKey: string;
  let realtimeSecret: string;
  const base = () => `http://localhost:${port}/api/public/v1`;

  it('starts on the embedded database and prints the base URL, demo key and realtime URL', async () => {
    const { proc, out } = await npmStart();
    expect(out).toContain(`API       http://localhost:${port}/api/public/v1`);
    expect(out).toMatch(/Realtime  ws:\/\/\S+\/realtime\/v1/);
    demoKey = /x-api-key: (sk_live_\w+)/.exec(out)![1]!;
    const health = await fetch(`http://localhost:${port}/health`);
    expect(await health.json()).toEqual({ ok: true, data: { database: 'ok' } });
    const reg = await fetch(`${base()}/players/register`, {
      method: 'POST', headers: { 'x-api-key': demoKey, 'content-type': 'application/json' },
      body: JSON.stringify({ pseudo: 'Persist', email: 'persist@example.test', password: 'motdepasse1' }),
    });
    expect(reg.status).toBe(201);
    // Realtime tokens are signed with the secret kept in the data folder.
    const rt = await (await fetch(`${base()}/realtime/config`, { headers: { 'x-api-key': demoKey, 'x-player-token': (await reg.json()).token } })).json();
    realtimeSecret = await readFile(path.join(dir, 'data', 'realtime-jwt-secret'), 'utf8');
    expect((await jwtVerify(rt.token, new TextEncoder().encode(realtimeSecret))).payload.role).toBe('authenticated');
    expect(proc.exitCode).toBeNull();
  });

  it('refuses a second start clearly', async () => {
    const second = await run('npm', ['start'], { env: { ...env, PORT: String(await freePort()) } }).catch((e) => e);
    expect(second.code).toBe(1);
    expect(second.stderr + second.stdout).toMatch(/Manette tourne déjà \(pid \d+\)/);
  });

  it('refuses a busy port before starting anything, naming it and its variable', async () => {
    const taken = net.createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', () => r()));
    const busy = (taken.address() as net.AddressInfo).port;
    const elsewhere = path.join(dir, 'busy-port');
    try {
      const r = await run('npm', ['start'], { env: { ...env, PORT: String(busy), MANETTE_DATA_DIR: elsewhere } }).catch((e) => e);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`Port déjà utilisé : ${busy} (PORT).`);
      expect(existsSync(path.join(elsewhere, 'postgres'))).toBe(false); // no database was started
    } finally {
      taken.close();
    }
  });

  it('applies a game file while the server runs, idempotently, with the same key', async () => {
    const file = path.join(dir, 'second.json');
    await writeFile(file, JSON.stringify({ jeu: 'second', nom: 'Second', modes: { solo: { equipes: 1, joueurs_par_equipe: 1, regles: 'libre' } } }));
    const first = await apply(file);
    expect(first.code).toBe(0);
    expect(first.last).toMatchObject({ ok: true, jeu: 'second' });
    expect(first.last.api_key).toMatch(/^sk_live_[0-9A-Za-z]{32,}$/);
    const again = await apply(file);
    expect(again.last.api_key).toBe(first.last.api_key);
    const me = await fetch(`${base()}/realtime/config`, { headers: { 'x-api-key': first.last.api_key } });
    expect(me.status).toBe(200);
  });

  it('rejects a bad file naming the field, and changes nothing', async () => {
    const file = path.join(dir, 'bad.json');
    await writeFile(file, JSON.stringify({ jeu: 'second', nom: 'Changed', modes: { solo: { equipes: 0, joueurs_par_equipe: 1, regles: 'libre' } } }));
    const bad = await apply(file);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('modes.solo.equipes');
    expect(bad.last.ok).toBe(false);
    const notJson = path.join(dir, 'notjson.json');
    await writeFile(notJson, '{"jeu": ');
    expect((await apply(notJson)).stderr).toMatch(/JSON/);
    const missing = await apply(path.join(dir, 'absent.json'));
    expect(missing.code).toBe(1);
  });

  it('stops everything on Ctrl-C, then apply works without the server', async () => {
    const proc = started[0]!;
    expect(await ctrlC(proc)).toBe(true);
    expect(existsSync(path.join(dir, 'data', 'manette.lock'))).toBe(false);
    expect(await portOpen(Number(env.MANETTE_PG_PORT))).toBe(false); // Postgres stopped too
    await expect(fetch(`http://localhost:${port}/health`)).rejects.toThrow();
    const file = path.join(dir, 'second.json');
    const offline = await apply(file);
    expect(offline.code).toBe(0);
    expect(offline.last.jeu).toBe('second');
  });

  it('restarts with the data kept and the same demo key', async () => {
    const { proc, out } = await npmStart();
    expect(out).toContain(`x-api-key: ${demoKey}`);
    const login = await fetch(`${base()}/players/login`, {
      method: 'POST', headers: { 'x-api-key': demoKey, 'content-type': 'application/json' },
      body: JSON.stringify({ identifiant: 'persist', password: 'motdepasse1' }),
    });
    expect(login.status).toBe(200);
    expect(await ctrlC(proc)).toBe(true);
    expect(await readFile(path.join(dir, 'data', 'postgres', 'PG_VERSION'), 'utf8')).toMatch(/^17/);
    expect(await readFile(path.join(dir, 'data', 'realtime-jwt-secret'), 'utf8')).toBe(realtimeSecret);
  });

  it('uses DATABASE_URL instead of the embedded database when it is set', async () => {
    const url = await freshDatabase();
    const otherPort = await freePort();
    // The local Realtime reads realtime.messages as hosted Realtime does, as the superuser.
    const { proc, out } = await npmStart({ DATABASE_URL: url, MANETTE_REALTIME_DATABASE_URL: twinAdminUrlOf(url), PORT: String(otherPort), MANETTE_DATA_DIR: path.join(dir, 'ext') });
    expect(out).toContain('Base      DATABASE_URL');
    expect(out).toContain('Jeu       (aucun : npx manette apply <fichier>)'); // a DATABASE_URL database's games are never touched
    const file = path.join(dir, 'external.json');
    await writeFile(file, JSON.stringify({ jeu: 'externe', nom: 'Externe' }));
    const { stdout } = await run('npx', ['manette', 'apply', file], { env: { ...env, DATABASE_URL: url } });
    const key = JSON.parse(stdout.trim().split('\n').pop()!).api_key as string;
    const reg = await fetch(`http://localhost:${otherPort}/api/public/v1/players/register`, {
      method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ pseudo: 'External', email: 'ext@example.test', password: 'motdepasse1' }),
    });
    expect(reg.status).toBe(201);
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    expect((await db.query("select count(*)::int as n from manette.players where pseudo = 'External'")).rows[0].n).toBe(1);
    await db.end();
    expect(await ctrlC(proc)).toBe(true);
  });

  it('on DATABASE_URL alone (a role that may not own realtime.messages), the local Realtime refuses to start and says what to set', async () => {
    const r = await run('npm', ['start'], { env: { ...env, DATABASE_URL: await freshDatabase(), PORT: String(await freePort()),
      MANETTE_DATA_DIR: path.join(dir, 'no-realtime-url') } }).catch((e) => e);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/cannot .*realtime\.messages.*MANETTE_REALTIME_DATABASE_URL.*MANETTE_REALTIME_URL/s);
  });

  it('with a Supabase Realtime URL, refuses to start until a signing key is named', async () => {
    const r = await run('npm', ['start'], { env: { ...env, DATABASE_URL: await freshDatabase(), PORT: String(await freePort()),
      MANETTE_DATA_DIR: path.join(dir, 'hosted'), MANETTE_REALTIME_URL: 'wss://ref.supabase.co/realtime/v1', MANETTE_REALTIME_KEY: 'anon' } }).catch((e) => e);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/MANETTE_REALTIME_JWT_SECRET .*MANETTE_REALTIME_JWT_PRIVATE_KEY/);
  });
});
