// The npm package runs `manette` as compiled JavaScript (dist/, built by prepack with
// bin/build.mjs), never its TypeScript through tsx: the tarball of this run (`npm pack`,
// test/support/pack.ts), unpacked beside the repository's packages but tsx, runs real
// commands, whatever they start (the embedded Postgres' supervisor, API workers, the local
// Realtime, password hashing threads); had any of them tried to load tsx, it would have
// failed. In a checkout (a package-lock.json beside it), a source newer than the build
// sends the command back to its TypeScript through tsx: stale JavaScript never runs.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, mkdtemp, readdir, readFile, rm, symlink, unlink, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compiledUrl, upToDate } from '../bin/build.mjs';
import { freePort } from './support/net.js';
import { client } from './support/harness.js';
import { stopManette } from './support/manette-process.js';
import { packedManette, PACKING_MS, REPO } from './support/pack.js';
import { CLI_COMMAND_MS, cliTimeout } from './support/manette-cli.js';

const run = promisify(execFile);
/**
 * `manette start` on an empty data folder, on a loaded 2-core machine: initdb and the first
 * start of the embedded Postgres (twin/postgres/embedded.ts allows it 180 s), every
 * migration, then two API workers, each loading the API.
 */
const FIRST_START_MS = 240_000;

let root: string;
/** The unpacked tarball: Manette as installed (no package-lock.json), its node_modules without tsx. */
let pkg: string;
let env: NodeJS.ProcessEnv;
const started: ChildProcess[] = [];

/** `node bin/manette.js <args>` of the unpacked package, in `cwd`; never rejects. */
async function manette(args: string[], cwd: string, extraEnv: NodeJS.ProcessEnv = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, [path.join(pkg, 'bin', 'manette.js'), ...args], {
      cwd, env: { ...env, ...extraEnv }, timeout: CLI_COMMAND_MS * 4,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'manette-compiled-'));
  await chmod(root, 0o755); // as root, the embedded Postgres runs as `postgres` and must reach it
  pkg = path.join(root, 'package');
  await mkdir(pkg);
  await run('tar', ['xzf', await packedManette(), '--strip-components=1', '-C', pkg]);
  // The repository's packages, one link each, but tsx.
  await mkdir(path.join(pkg, 'node_modules'));
  for (const name of await readdir(path.join(REPO, 'node_modules'))) {
    if (name === 'tsx' || name.startsWith('.')) continue;
    await symlink(path.join(REPO, 'node_modules', name), path.join(pkg, 'node_modules', name));
  }
  env = {
    PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8',
    LOG_LEVEL: 'warn', MANETTE_ARGON2_MEMORY_KIB: '1024', MANETTE_ARGON2_ITERATIONS: '1',
  };
}, PACKING_MS + 30_000); // and the unpacking: seconds

afterAll(async () => {
  for (const p of started) await stopManette(p);
  await rm(root, { recursive: true, force: true });
});

describe('the packed manette runs compiled, without tsx', () => {
  it('ships its build, current, and tsx is not there to load', async () => {
    expect(existsSync(path.join(pkg, 'package-lock.json'))).toBe(false); // installed, not a checkout
    expect(upToDate(pkg)).toBe(true);
    for (const entry of ['api/cli/manette.ts', 'api/workers.ts', 'twin/postgres/supervisor.ts']) {
      expect(compiledUrl(entry, pkg), entry).toBe(pathToFileURL(path.join(pkg, 'dist', entry.replace(/\.ts$/, '.js'))).href);
    }
    const tsx = await run(process.execPath, ['--input-type=module', '-e', "await import('tsx/esm/api')"], { cwd: pkg }).catch((e: Error) => e);
    expect(String(tsx)).toMatch(/Cannot find package 'tsx'/);
  });

  it('--version, --help, and init writes a studio\'s folder from its template', async () => {
    const { version } = JSON.parse(await readFile(path.join(pkg, 'package.json'), 'utf8')) as { version: string };
    expect(await manette(['--version'], pkg)).toMatchObject({ code: 0, stdout: `${version}\n` });
    const help = await manette(['--help'], pkg);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^ {2}start /m);
    const studio = path.join(root, 'Mon Jeu');
    await mkdir(studio);
    const init = await manette(['init'], studio);
    expect(init.code, init.stderr).toBe(0);
    expect(JSON.parse(await readFile(path.join(studio, 'game.json'), 'utf8'))).toMatchObject({ jeu: 'mon-jeu' });
    expect((await readdir(path.join(studio, 'supabase', 'migrations'))).some((f) => f.endsWith('_regles_nim.sql'))).toBe(true);
  }, cliTimeout(3));

  it('start: the embedded Postgres (its supervisor), the migrations, two API workers, the local Realtime, a password hashed; an admin command beside it', async () => {
    const dataDir = path.join(root, 'data');
    const port = await freePort();
    const proc = spawn(process.execPath, [path.join(pkg, 'bin', 'manette.js'), 'start'], {
      cwd: pkg, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...env, PORT: String(port), HOST: '127.0.0.1', MANETTE_DATA_DIR: dataDir, MANETTE_PG_PORT: String(await freePort()),
        MANETTE_REALTIME_PORT: '0', MANETTE_SUPABASE_AUTH_PORT: '0', MANETTE_WORKERS: '2', MANETTE_REQUEST_LOG: 'stdout',
      },
    });
    started.push(proc);
    let out = '';
    await new Promise<void>((resolve, reject) => {
      const onData = (d: Buffer) => { out += d.toString(); if (/(Base|Database) +.+\n/.test(out)) resolve(); };
      proc.stdout!.on('data', onData);
      proc.stderr!.on('data', onData);
      proc.once('exit', (code) => reject(new Error(`manette start exited ${code}:\n${out}`)));
    });
    expect(out).toMatch(/API +http:\/\/\S+ +\(2 processes\)/);
    expect(out).toMatch(/Realtime +ws:\/\/\S+/);
    const base = /API +(http\S+)/.exec(out)![1]!;
    const [, jeu, key] = /Game +(\S+) +x-api-key: (\S+)/.exec(out)!;
    const origin = new URL(base).origin;

    const health = await fetch(`${origin}/health`);
    expect(health.status).toBe(200);
    expect(health.headers.get('x-manette-worker')).toMatch(/^[12]$/);
    // Argon2id on a hashing thread (api/security/argon2-worker.js).
    const player = await client(base, key!).register('Compile');
    expect(player.token).toEqual(expect.any(String));
    // What the package's files serve: the SDK (sdk/dist), the web demo (examples/demo), the
    // API's reference (docs/).
    expect((await fetch(`${origin}/sdk/manette.js`)).status).toBe(200);
    expect((await fetch(`${origin}/demo/?key=${key}`)).status).toBe(200);
    expect((await fetch(`${base}/openapi.json`)).status).toBe(200);

    // An admin command on the running start's database (its lock in MANETTE_DATA_DIR).
    const keys = await manette(['keys', 'list', jeu!, '--json'], pkg, { MANETTE_DATA_DIR: dataDir });
    expect(keys.code, keys.stderr).toBe(0);
    expect(JSON.parse(keys.stdout)).toMatchObject({ ok: true, data: { jeu, cles: [{ cle: key, active: true }] } });

    await stopManette(proc);
    expect(proc.exitCode, out).toBe(0);
  }, FIRST_START_MS + cliTimeout(1));
});

describe('in a checkout, the build only while it is current', () => {
  it('a source newer than the build: the TypeScript through tsx (absent here, so the command fails), never the stale JavaScript', async () => {
    // A checkout has package-lock.json; npm set every file of the tarball to one old date.
    await copyFile(path.join(REPO, 'package-lock.json'), path.join(pkg, 'package-lock.json'));
    try {
      expect(upToDate(pkg)).toBe(true);
      expect((await manette(['--version'], pkg)).code).toBe(0);
      const source = path.join(pkg, 'api', 'cli', 'locale.ts');
      const now = new Date();
      await utimes(source, now, now);
      expect(upToDate(pkg)).toBe(false);
      const stale = await manette(['--version'], pkg);
      expect(stale.code).toBe(1);
      expect(stale.stderr).toMatch(/Cannot find package 'tsx'/);
    } finally {
      await unlink(path.join(pkg, 'package-lock.json'));
    }
    // Installed (no lock file), the package runs what it shipped.
    expect((await manette(['--version'], pkg)).code).toBe(0);
  }, cliTimeout(3));
});
