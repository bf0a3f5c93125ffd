// docs/deploy.md, "Deploy on Supabase", followed word for word against the local twin of a
// hosted project: the commands of its block are read from the page and run by bash as
// written, their placeholders replaced by the twin's values (a database where `postgres` is
// not a superuser, PgBouncer as the transaction pooler, the Management API stand-in that
// the real Supabase CLI talks to, the Realtime stand-in with private channels only, as the
// page tells the project to be set). Then the test plays the platform: it runs what the CLI
// uploaded, with the secrets the CLI set, under the edge runtime's Deno; and a game is
// played through it, the match's events reaching its players on their private room.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { RealtimeClient, type RealtimeChannel, type RealtimeClientOptions } from '@supabase/realtime-js';
import { SignJWT } from 'jose';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startManagementApi, type ManagementApi } from '../twin/management-api/server.js';
import { startLocalRealtime, type LocalRealtime } from '../twin/realtime/server.js';
import { PLANS } from '../twin/realtime/quotas.js';
import { havePgBouncer, PGBOUNCER, startPgBouncer, type RunningPooler } from '../twin/pooler/pgbouncer.js';
import { edgeRuntimeArgs, edgeRuntimeDeno } from '../twin/edge-runtime.js';
import { client, emptyDatabase, query, twinAdminUrlOf } from './support/harness.js';
import { copyDeployment } from './support/deployed-function.js';
import { freePort } from './support/net.js';

const run = promisify(execFile);
const REPO = path.resolve(import.meta.dirname, '..');
const deno = edgeRuntimeDeno();
const ready = havePgBouncer && !!deno;
if (!havePgBouncer) console.warn(`deploy-on-supabase.test.ts skipped: ${PGBOUNCER} not found (apt-get install pgbouncer)`);
if (!deno) console.warn('deploy-on-supabase.test.ts skipped: the deno-edge-runtime package is not installed');

const JWT_SECRET = 'the-project-jwt-secret-of-at-least-thirty-two-chars';
const API_DB_PASSWORD = 'a-long-random-password-for-the-function';
const GAME = {
  jeu: 'deploy-path', nom: 'Deploy path',
  modes: { '1v1': { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', elo_ecart_initial: 10000 } },
};

/** The page's block, split before step 5 (the platform must run the function in between). */
async function documentedCommands(): Promise<{ setup: string; check: string }> {
  const page = await readFile(path.join(REPO, 'docs', 'deploy.md'), 'utf8');
  const block = /<!-- deploy-on-supabase: begin -->\n```sh\n([\s\S]*?)```\n<!-- deploy-on-supabase: end -->/.exec(page)?.[1];
  if (!block) throw new Error('docs/deploy.md has no deploy-on-supabase block');
  const at = block.indexOf('# 5.');
  return { setup: block.slice(0, at), check: block.slice(at) };
}

describe.skipIf(!ready)('docs/deploy.md, "Deploy on Supabase", on a twin of a hosted project', () => {
  let work: string;
  let dbUrl: string;
  let dbName: string;
  let managementApi: ManagementApi;
  let pooler: RunningPooler;
  let realtime: LocalRealtime;
  let fn: ChildProcess | undefined;
  let fnOutput = '';
  let functionBase: string;
  let setupOutput = '';
  let anonKey: string;
  const rtClients: RealtimeClient[] = [];

  /** The page's placeholders and hosts, as the twin has them. */
  const substitute = (text: string) => {
    const twin = new URL(dbUrl);
    const pooled = new URL(pooler.url(dbUrl));
    return text
      .replaceAll("'<access token>'", `'${managementApi.accessToken}'`)
      .replaceAll("'<ref>'", `'${managementApi.projectRef}'`)
      // The twin's Postgres has no TLS, which the CLI tries first: its URL says so.
      .replaceAll('<db password>@db.<ref>.supabase.co:5432/postgres', `${twin.password}@${twin.host}/${dbName}?sslmode=disable`)
      .replaceAll("'<a long random password>'", `'${API_DB_PASSWORD}'`)
      // Supavisor names its users <user>.<project ref>; PgBouncer knows them by their name.
      .replaceAll('manette_api.$PROJECT_REF:', 'manette_api:')
      .replaceAll('aws-0-<region>.pooler.supabase.com:6543/postgres', `${pooled.host}/${dbName}`)
      .replaceAll("'<jwt secret>'", `'${JWT_SECRET}'`)
      .replaceAll('mygame.json', path.join(work, 'mygame.json'))
      .replaceAll('https://$PROJECT_REF.supabase.co/functions/v1/manette', functionBase);
  };
  const bash = (script: string, env: NodeJS.ProcessEnv) => run('bash', ['-euo', 'pipefail', '-c', script],
    { cwd: REPO, env, timeout: 600_000, maxBuffer: 32 * 1024 * 1024 });

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'manette-deploy-path-'));
    await writeFile(path.join(work, 'mygame.json'), JSON.stringify(GAME));
    dbUrl = await emptyDatabase('deploy_path');
    dbName = new URL(dbUrl).pathname.slice(1);
    managementApi = await startManagementApi();
    pooler = await startPgBouncer({
      databaseUrl: dbUrl, mode: 'transaction', users: [{ name: 'manette_api', password: API_DB_PASSWORD }],
    });
    // The project's Realtime, set as the page says: private channels only.
    anonKey = await new SignJWT({ role: 'anon', iss: 'supabase' }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuedAt().setExpirationTime('1h').sign(new TextEncoder().encode(JWT_SECRET));
    realtime = await startLocalRealtime({
      port: 0, databaseUrl: twinAdminUrlOf(dbUrl), jwtSecret: JWT_SECRET, authorize: () => false,
      quotas: PLANS.free, privateOnly: 'all', log: () => {},
    });
    functionBase = `http://127.0.0.1:${await freePort()}/manette`;

    const { setup } = await documentedCommands();
    const home = path.join(work, 'home');
    const env = {
      ...process.env, ...(await managementApi.cliEnvironment(work)),
      HOME: home, SUPABASE_YES: '1', // the CLI's prompts answered yes, as a person would
    };
    const out = await bash(substitute(setup), env);
    setupOutput = out.stdout + out.stderr;
  }, 900_000);

  afterAll(async () => {
    for (const rt of rtClients) rt.disconnect();
    if (fn && fn.exitCode === null) fn.kill('SIGKILL');
    await realtime?.close();
    await pooler?.stop();
    await managementApi?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('1–4: the migrations, the game, the function\'s user, its secrets and its files, each as the page says', async () => {
    const versions = (await query<{ n: number }>(dbUrl, 'select count(*)::int as n from supabase_migrations.schema_migrations'))[0]!.n;
    expect(versions).toBeGreaterThan(20);
    expect(await query(dbUrl, `select slug from manette.games`)).toEqual([{ slug: 'deploy-path' }]);
    expect(await query(dbUrl, `select rolcanlogin, rolsuper, rolbypassrls from pg_roles where rolname = 'manette_api'`))
      .toEqual([{ rolcanlogin: true, rolsuper: false, rolbypassrls: false }]);
    expect([...managementApi.secrets.keys()].sort()).toEqual(['DATABASE_URL', 'MANETTE_REALTIME_JWT_SECRET']);
    const functionDb = new URL(managementApi.secrets.get('DATABASE_URL')!);
    expect([functionDb.username, functionDb.password, functionDb.host, functionDb.pathname])
      .toEqual(['manette_api', API_DB_PASSWORD, new URL(pooler.url(dbUrl)).host, `/${dbName}`]);
    const deployment = managementApi.deployment('manette');
    expect(deployment?.files.map((f) => f.path).sort()).toEqual(
      ['supabase/functions/manette/deno.json', 'supabase/functions/manette/index.ts', 'supabase/functions/manette/manette.js']);
    expect(deployment?.metadata.verify_jwt).toBe(false);
    expect(setupOutput).toContain('"api_key"');
  });

  it('5: the platform runs what was uploaded, with those secrets, and it answers', async () => {
    const { dir } = await copyDeployment(managementApi.deployment('manette')!);
    const port = new URL(functionBase).port;
    fn = spawn(deno!, edgeRuntimeArgs(dir), {
      cwd: path.resolve(dir, '..', '..', '..'),
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH, HOME: process.env.HOME, DENO_NO_UPDATE_CHECK: '1',
        ...Object.fromEntries(managementApi.secrets),
        // What Supabase sets in every function's environment; its Realtime is the project's.
        SUPABASE_URL: realtime.url.replace(/^ws/, 'http').replace(/\/realtime\/v1$/, ''),
        SUPABASE_ANON_KEY: anonKey,
        PORT: port, HOST: '127.0.0.1', LOG_LEVEL: 'warn',
        MANETTE_ARGON2_MEMORY_KIB: '1024', MANETTE_ARGON2_ITERATIONS: '1',
      },
    });
    fn.stdout!.on('data', (d: Buffer) => { fnOutput = (fnOutput + d.toString()).slice(-10_000); });
    fn.stderr!.on('data', (d: Buffer) => { fnOutput = (fnOutput + d.toString()).slice(-10_000); });
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline && fn.exitCode === null) {
      try { if ((await fetch(`${functionBase}/health`)).status === 200) break; } catch { /* not listening yet */ }
      await new Promise((r) => setTimeout(r, 200));
    }
    const { check } = await documentedCommands();
    const { stdout } = await bash(substitute(check), { ...process.env });
    expect(JSON.parse(stdout), fnOutput).toEqual({ ok: true, data: { database: 'ok' } });
  }, 120_000);

  it('a game is played through it; its events reach the players on their private room, and a public join is refused', async () => {
    const key = JSON.parse(setupOutput.split('\n').find((l) => l.includes('"api_key"'))!).api_key as string;
    const api = client(`${functionBase}/api/public/v1`, key);
    const x = await api.register('DeployX');
    const o = await api.register('DeployO');
    expect((await api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1000 }, { token: x.token })).body.status).toBe('waiting');
    const matched = await api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1000 }, { token: o.token });
    expect(matched.body).toMatchObject({ ok: true, status: 'matched' });
    const id = matched.body.partie_id as string;
    const first = matched.body.participants[0].joueur_id === x.data.joueur.id ? x.token : o.token;

    const config = (await api.get('/realtime/config', { token: first })).body;
    expect(config).toMatchObject({ ok: true, url: realtime.url, key: anonKey, private: true });
    const rt = new RealtimeClient(config.url, {
      params: { apikey: config.key }, timeout: 5_000,
      transport: WebSocket as unknown as RealtimeClientOptions['transport'],
    });
    rtClients.push(rt);
    await rt.setAuth(config.token);
    const got: { event: string; payload: any }[] = [];
    const join = (isPrivate: boolean) => new Promise<RealtimeChannel>((resolve, reject) => {
      const channel = rt.channel(config.channel_prefix + id, { config: { private: isPrivate } })
        .on('broadcast', { event: '*' }, (m: any) => { if (isPrivate) got.push({ event: m.event, payload: m.payload }); });
      channel.subscribe((status, err) => {
        if (status === 'SUBSCRIBED') resolve(channel);
        else if (status !== 'CLOSED') { void rt.removeChannel(channel); reject(new Error(`${status} ${err?.message ?? ''}`)); }
      });
    });
    await expect(join(false)).rejects.toThrow(/PrivateOnly: This project only allows private channels/);
    await join(true);

    const move = await api.post('/match/action', { partie_id: id, action: 'jouer', donnees: { case: 4 } }, { token: first });
    expect(move.status, JSON.stringify(move.body)).toBe(200);
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline && !got.some((m) => m.event === 'etat')) await new Promise((r) => setTimeout(r, 50));
    expect(got.map((m) => m.event)).toEqual(['action', 'etat']);
    expect(got[1]!.payload).toMatchObject({ id, numero_tour: 2, etat_plateau: { cases: [null, null, null, null, 'X', null, null, null, null] } });
  }, 60_000);
});
