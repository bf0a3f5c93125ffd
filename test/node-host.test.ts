// docs/deploy.md, "On a Node host behind a TLS proxy", as a person runs it: a clone of
// the repository, `npm ci --omit=dev` (no dev dependency on the host), the settings of a
// Supabase project, `npm start`. The clone is made from `npm pack` (test/support/pack.ts):
// the tarball holds the files `package.json` ships, which is all Manette runs from, so a
// file needed at run time but left out of the package fails here. A clone has what the
// tarball lacks and `npm ci` needs, package-lock.json, and lacks what prepack added to the
// tarball, sdk/dist and the compiled command in dist/ (git-ignored): this test does the
// same, so `npm start` builds the SDK without the dev dependencies and the commands run
// their TypeScript through tsx, as on a host.
import { execFile, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeToken } from '../twin/realtime/jwt.js';
import { emptyDatabase, query } from './support/harness.js';
import { freePort } from './support/net.js';
import { npmStart } from './support/npm-start.js';
import { packedManette, REPO } from './support/pack.js';

const run = promisify(execFile);
const SECRET = 'the-project-jwt-secret-of-a-supabase-project-0123456789';

let host: string;
let env: NodeJS.ProcessEnv;
let databaseUrl: string;
const started: ChildProcess[] = [];

beforeAll(async () => {
  host = await mkdtemp(path.join(tmpdir(), 'manette-node-host-'));
  const tarball = await packedManette();
  await run('tar', ['xzf', tarball, '--strip-components=1', '-C', host]);
  await copyFile(path.join(REPO, 'package-lock.json'), path.join(host, 'package-lock.json'));
  await rm(path.join(host, 'sdk', 'dist'), { recursive: true, force: true });
  await rm(path.join(host, 'dist'), { recursive: true, force: true });

  // A Supabase project's database (the twin's), before Manette's migrations; its URL logs
  // in as `postgres`, as the docs' does.
  databaseUrl = await emptyDatabase('node_host');

  // Only what a shell on the host has, and the settings the docs export.
  env = {
    PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8',
    // npm's own settings, not the command's: the packages from npm's cache when CI's
    // `npm ci` filled it, the registry otherwise.
    npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false',
    DATABASE_URL: databaseUrl,
    MANETTE_REALTIME_URL: 'wss://ref.supabase.co/realtime/v1',
    MANETTE_REALTIME_KEY: 'the-anon-key',
    MANETTE_REALTIME_JWT_SECRET: SECRET,
    HOST: '127.0.0.1', PORT: String(await freePort()), TRUST_PROXY: '1', MANETTE_PUBLIC_URL: 'https://api.example.com',
  };
  await run('npm', ['ci', '--omit=dev'], { cwd: host, env, timeout: 300_000 });
}, 420_000);

afterAll(async () => {
  for (const p of started) if (p.exitCode === null && p.signalCode === null) try { process.kill(-p.pid!, 'SIGKILL'); } catch { /* gone */ }
  await rm(host, { recursive: true, force: true });
});

/** Ctrl-C on `npm start`: SIGINT to its process group; resolves once it has exited. */
async function ctrlC(proc: ChildProcess): Promise<void> {
  const exited = new Promise((r) => proc.once('exit', r));
  process.kill(-proc.pid!, 'SIGINT');
  await exited;
}

describe('a Node host installed as docs/deploy.md says', () => {
  it('npm ci --omit=dev installs no dev dependency', async () => {
    const pkg = JSON.parse(await readFile(path.join(host, 'package.json'), 'utf8'));
    const present = Object.keys(pkg.devDependencies).filter((name) => existsSync(path.join(host, 'node_modules', name)));
    expect(present).toEqual([]);
    expect(existsSync(path.join(host, 'node_modules', 'typescript'))).toBe(false);
    // npm's record of the installed tree: nothing that only the dev dependencies need.
    const tree = JSON.parse(await readFile(path.join(host, 'node_modules', '.package-lock.json'), 'utf8'));
    expect(Object.entries(tree.packages).filter(([, p]) => (p as { dev?: boolean }).dev).map(([name]) => name)).toEqual([]);
  });

  it('npm start migrates the database, builds the SDK without TypeScript and serves a game', async () => {
    const port = env.PORT!;
    const { proc, out } = await npmStart(env, started, { cwd: host });
    expect(out()).toContain('Database  DATABASE_URL');
    expect(out()).toContain('sdk/dist/manette.js:'); // built at this first start
    expect(out()).toContain('sdk/dist/manette.d.ts: not built');
    expect(await query(databaseUrl, "select count(*)::int as n from supabase_migrations.schema_migrations"))
      .toEqual([{ n: (await readdir(path.join(host, 'supabase', 'migrations'))).filter((f) => f.endsWith('.sql')).length }]);

    // A game, made as docs/deploy.md section 1 says.
    const game = path.join(host, 'mygame.json');
    await writeFile(game, JSON.stringify({ jeu: 'hote-node', nom: 'Hôte Node' }));
    const applied = await run('npx', ['manette', 'apply', game], { cwd: host, env });
    const key = JSON.parse(applied.stdout.trim().split('\n').pop()!).api_key as string;

    const origin = `http://127.0.0.1:${port}`;
    const health = await fetch(`${origin}/health`);
    expect({ status: health.status, body: await health.json() }).toEqual({ status: 200, body: { ok: true, data: { database: 'ok' } } });
    const reg = await fetch(`${origin}/api/public/v1/players/register`, {
      method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ pseudo: 'Hote', email: 'hote@example.test', password: 'motdepasse1' }),
    });
    expect(reg.status).toBe(201);
    const { token, data } = await reg.json();
    // Realtime is the project's: its URL and key, and the player's token signed with its secret.
    const rt = await (await fetch(`${origin}/api/public/v1/realtime/config`, { headers: { 'x-api-key': key, 'x-player-token': token } })).json();
    expect(rt).toMatchObject({ ok: true, url: 'wss://ref.supabase.co/realtime/v1', key: 'the-anon-key' });
    const verified = await authorizeToken(rt.token, { secret: new TextEncoder().encode(SECRET) });
    expect(verified).toMatchObject({ ok: true, claims: { sub: data.joueur.id, role: 'authenticated' } });

    const sdk = await fetch(`${origin}/sdk/manette.js`);
    expect(sdk.status).toBe(200);
    expect(await sdk.text()).toContain('Manette');
    expect((await fetch(`${origin}/sdk/manette.d.ts`)).status).toBe(404);
    await ctrlC(proc);

    // The next start finds the SDK built: nothing rebuilt.
    const again = await npmStart(env, started, { cwd: host });
    expect(again.out()).not.toContain('sdk/dist/');
    expect((await fetch(`${origin}/health`)).status).toBe(200);
    await ctrlC(again.proc);
  }, 240_000); // two starts, each forking a worker per core, on a loaded machine
});
