// docs/deploy.md, "Deploy on Supabase", followed word for word against the local twin of a
// hosted project: the commands of its block are read from the page and run by bash as
// written, their placeholders replaced by the twin's values (a database where `postgres` is
// not a superuser, PgBouncer as the transaction pooler, the Management API stand-in that
// the real Supabase CLI talks to, the Realtime stand-in with private channels only, as the
// page tells the project to be set). Then the test plays the platform: it runs what the CLI
// uploaded, with the secrets the CLI set, under the edge runtime's Deno; and a game is
// played through it, the match's events reaching its players on their private room.
// The project has Supabase's new keys (twin/realtime/project-keys.ts): a publishable key,
// legacy API keys disabled, the legacy JWT secret revoked, signing keys with states. Then a
// later rotation as the page tells it, and what Supabase does when its order is not kept:
// a key imported but not rotated in (standby) signs tokens that Realtime refuses.
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
import { ProjectKeys } from '../twin/realtime/project-keys.js';
import { createRealtimeSigner } from '../api/security/realtime-token.js';
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

/**
 * The page's block, split before step 6 (the platform must run the function in between);
 * its head (the exports), and its step 4 (the signing key) and step 5 (the settings) apart.
 */
async function documentedCommands(): Promise<{ setup: string; check: string; head: string; key: string; settings: string }> {
  const page = await readFile(path.join(REPO, 'docs', 'deploy.md'), 'utf8');
  const block = /<!-- deploy-on-supabase: begin -->\n```sh\n([\s\S]*?)```\n<!-- deploy-on-supabase: end -->/.exec(page)?.[1];
  if (!block) throw new Error('docs/deploy.md has no deploy-on-supabase block');
  const step = (n: number) => block.indexOf(`# ${n}.`);
  if ([1, 4, 5, 6].some((n) => step(n) < 0)) throw new Error('docs/deploy.md: the block\'s steps 1, 4, 5 and 6 are not all there');
  return {
    setup: block.slice(0, step(6)), check: block.slice(step(6)), head: block.slice(0, step(1)),
    key: block.slice(step(4), step(5)), settings: block.slice(step(5), step(6)),
  };
}

/** A script's commands, each whole (its `\`-continued lines joined), comments dropped. */
const commandsOf = (script: string) => script.replace(/\\\n/g, ' ').split('\n').filter((l) => l.trim() !== '' && !l.trim().startsWith('#'));

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
  let project: ProjectKeys;
  let functionEnv: Record<string, string>;
  let cliEnv: NodeJS.ProcessEnv;
  /** From the game: its API client, a player's session token, the match, a realtime config given then. */
  let played: { api: ReturnType<typeof client>; player: string; match: string; config: any } | undefined;
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
      .replaceAll('https://api.supabase.com', managementApi.url)
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
    // A project with Supabase's new keys: legacy API keys disabled, legacy JWT secret
    // revoked, a Supabase-generated signing key in use.
    project = new ProjectKeys({ legacyJwtSecret: JWT_SECRET, mode: 'new-keys' });
    managementApi = await startManagementApi({ project });
    pooler = await startPgBouncer({
      databaseUrl: dbUrl, mode: 'transaction', users: [{ name: 'manette_api', password: API_DB_PASSWORD }],
    });
    // The project's legacy anon key, disabled: the platform may still set SUPABASE_ANON_KEY.
    anonKey = await new SignJWT({ role: 'anon', iss: 'supabase' }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuedAt().setExpirationTime('1h').sign(new TextEncoder().encode(JWT_SECRET));
    // The project's Realtime with the project's keys, set as the page says: private channels only.
    realtime = await startLocalRealtime({
      port: 0, databaseUrl: twinAdminUrlOf(dbUrl), project, quotas: PLANS.free, privateOnly: 'all', log: () => {},
    });
    functionBase = `http://127.0.0.1:${await freePort()}/manette`;

    const { setup } = await documentedCommands();
    const home = path.join(work, 'home');
    cliEnv = {
      ...process.env, ...(await managementApi.cliEnvironment(work)),
      HOME: home, SUPABASE_YES: '1', // the CLI's prompts answered yes, as a person would
    };
    const out = await bash(substitute(setup), cliEnv);
    setupOutput = out.stdout + out.stderr;
  }, 900_000);

  /** A realtime-js client as a game opens it with /realtime/config's answer. */
  function realtimeClient(config: { url: string; key: string }): RealtimeClient {
    const rt = new RealtimeClient(config.url, {
      params: { apikey: config.key }, timeout: 5_000,
      transport: WebSocket as unknown as RealtimeClientOptions['transport'],
    });
    rtClients.push(rt);
    return rt;
  }
  /** Joins a topic: the channel once subscribed, else the reason Realtime gave. */
  const joinTopic = (rt: RealtimeClient, topic: string, isPrivate: boolean, onBroadcast?: (m: any) => void) =>
    new Promise<RealtimeChannel>((resolve, reject) => {
      const channel = rt.channel(topic, { config: { private: isPrivate } }).on('broadcast', { event: '*' }, (m: any) => onBroadcast?.(m));
      channel.subscribe((status, err) => {
        if (status === 'SUBSCRIBED') resolve(channel);
        else if (status !== 'CLOSED') { void rt.removeChannel(channel); reject(new Error(`${status} ${err?.message ?? ''}`)); }
      });
    });

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
    expect([...managementApi.secrets.keys()].sort()).toEqual(['DATABASE_URL', 'MANETTE_REALTIME_JWT_PRIVATE_KEY']);
    // Step 4: the key the function signs with is the project's current key; Supabase's own
    // key was rotated out (previously used), the legacy secret stays revoked.
    const signing = JSON.parse(managementApi.secrets.get('MANETTE_REALTIME_JWT_PRIVATE_KEY')!) as { kid: string; d?: string };
    expect(signing.d).toBeTruthy();
    const keys = project.list();
    expect(keys.filter((k) => k.status === 'in_use').map((k) => k.publicJwk?.kid)).toEqual([signing.kid]);
    expect(keys.map((k) => [k.legacy ? 'legacy' : k.publicJwk?.kid === signing.kid ? 'manette' : 'supabase', k.status]).sort())
      .toEqual([['legacy', 'revoked'], ['manette', 'in_use'], ['supabase', 'previously_used']]);
    const functionDb = new URL(managementApi.secrets.get('DATABASE_URL')!);
    expect([functionDb.username, functionDb.password, functionDb.host, functionDb.pathname])
      .toEqual(['manette_api', API_DB_PASSWORD, new URL(pooler.url(dbUrl)).host, `/${dbName}`]);
    const deployment = managementApi.deployment('manette');
    expect(deployment?.files.map((f) => f.path).sort()).toEqual(
      ['supabase/functions/manette/deno.json', 'supabase/functions/manette/index.ts', 'supabase/functions/manette/manette.js']);
    expect(deployment?.metadata.verify_jwt).toBe(false);
    expect(setupOutput).toContain('"api_key"');
  });

  /** The platform runs the uploaded function with the project's secrets (again after they change). */
  async function startFunction(): Promise<void> {
    if (fn && fn.exitCode === null) {
      const exited = new Promise((r) => fn!.once('exit', r));
      fn.kill('SIGKILL');
      await exited;
    }
    const { dir } = await copyDeployment(managementApi.deployment('manette')!);
    const port = new URL(functionBase).port;
    functionEnv = {
      PATH: process.env.PATH!, HOME: process.env.HOME!, DENO_NO_UPDATE_CHECK: '1',
      ...Object.fromEntries(managementApi.secrets),
      // What Supabase sets in every function's environment; its Realtime is the project's.
      // The legacy anon key is there too, but the project disabled it.
      SUPABASE_URL: realtime.url.replace(/^ws/, 'http').replace(/\/realtime\/v1$/, ''),
      SUPABASE_PUBLISHABLE_KEYS: JSON.stringify(project.publishableKeys),
      SUPABASE_ANON_KEY: anonKey,
      PORT: port, HOST: '127.0.0.1', LOG_LEVEL: 'warn',
      MANETTE_ARGON2_MEMORY_KIB: '1024', MANETTE_ARGON2_ITERATIONS: '1',
    };
    const child = spawn(deno!, edgeRuntimeArgs(dir), { cwd: path.resolve(dir, '..', '..', '..'), stdio: ['ignore', 'pipe', 'pipe'], env: functionEnv });
    fn = child;
    child.stdout!.on('data', (d: Buffer) => { fnOutput = (fnOutput + d.toString()).slice(-10_000); });
    child.stderr!.on('data', (d: Buffer) => { fnOutput = (fnOutput + d.toString()).slice(-10_000); });
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline && child.exitCode === null) {
      try { if ((await fetch(`${functionBase}/health`)).status === 200) break; } catch { /* not listening yet */ }
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  it('6: the platform runs what was uploaded, with those secrets, and it answers', async () => {
    await startFunction();
    expect(fn!.exitCode, fnOutput).toBeNull();
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
    // The realtime key is the project's publishable key (SUPABASE_PUBLISHABLE_KEYS), not the
    // disabled legacy anon key the function was given too.
    expect(config).toMatchObject({ ok: true, url: realtime.url, key: project.publishableKeys.default, private: true });
    played = { api, player: first, match: id, config };
    const rt = realtimeClient(config);
    await rt.setAuth(config.token);
    const got: { event: string; payload: any }[] = [];
    const topic = config.channel_prefix + id;
    await expect(joinTopic(rt, topic, false)).rejects.toThrow(/PrivateOnly: This project only allows private channels/);
    await joinTopic(rt, topic, true, (m) => got.push({ event: m.event, payload: m.payload }));

    const move = await api.post('/match/action', { partie_id: id, action: 'jouer', donnees: { case: 4 } }, { token: first });
    expect(move.status, JSON.stringify(move.body)).toBe(200);
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline && !got.some((m) => m.event === 'etat')) await new Promise((r) => setTimeout(r, 50));
    expect(got.map((m) => m.event)).toEqual(['action', 'etat']);
    expect(got[1]!.payload).toMatchObject({ id, numero_tour: 2, etat_plateau: { cases: [null, null, null, null, 'X', null, null, null, null] } });
  }, 60_000);
  it('the legacy keys no longer open Realtime on this project: the gateway refuses the anon key, Realtime the legacy secret\'s tokens', async () => {
    // What the page's earlier version did (MANETTE_REALTIME_JWT_SECRET): tokens of the revoked legacy secret.
    const legacy = await createRealtimeSigner({ secret: JWT_SECRET });
    const legacyToken = (await legacy.playerToken({ playerId: 'p', gameId: 'g', notAfter: Math.floor(Date.now() / 1000) + 600 })).token;
    const rtLegacy = realtimeClient(played!.config);
    await rtLegacy.setAuth(legacyToken);
    await expect(joinTopic(rtLegacy, `${played!.config.channel_prefix}${played!.match}`, true)).rejects.toThrow('JwtSignatureError: Failed to validate JWT signature');
    rtLegacy.disconnect();
    const rt = realtimeClient({ url: realtime.url, key: anonKey });
    await rt.setAuth(played!.config.token);
    await expect(joinTopic(rt, `${played!.config.channel_prefix}${played!.match}`, true)).rejects.toThrow();
    rt.disconnect();
    const ws = new WebSocket(`${realtime.url}/websocket?apikey=${anonKey}&vsn=1.0.0`);
    ws.on('error', () => {});
    const status = await new Promise<number>((resolve) => ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
    expect(status).toBe(401);
    ws.terminate();
  }, 30_000);

  it('a later rotation as the page tells it; and a key imported but not rotated in (standby) signs tokens Realtime refuses, as Supabase does', async () => {
    const { api, player, match, config: before } = played!;
    const topic = `${before.channel_prefix}${match}`;
    const kidOf = (jwk: string) => (JSON.parse(jwk) as { kid: string }).kid;
    const firstKid = kidOf(managementApi.secrets.get('MANETTE_REALTIME_JWT_PRIVATE_KEY')!);
    const signerRefusal = (kid: string) => `JwtSignerError: Failed to generate JWT signer for key ID (kid) "${kid}"`;

    // The page's step 4 without its rotation command, then its `secrets set`: a new key,
    // imported (standby), which the function now signs with.
    const { head, key, settings } = await documentedCommands();
    const importOnly = commandsOf(key).filter((c) => !c.includes('"status":"in_use"'));
    expect(importOnly).toHaveLength(commandsOf(key).length - 1);
    const secretsSet = commandsOf(settings).filter((c) => c.includes('supabase secrets set'));
    expect(secretsSet).toHaveLength(1);
    await bash(substitute([head, ...importOnly, ...secretsSet].join('\n')), cliEnv);
    const secondKid = kidOf(managementApi.secrets.get('MANETTE_REALTIME_JWT_PRIVATE_KEY')!);
    expect(secondKid).not.toBe(firstKid);
    const standby = project.list().find((k) => k.publicJwk?.kid === secondKid)!;
    expect(standby.status).toBe('standby');
    await startFunction();

    // Skipped rotation: the function starts and hands out tokens, which Realtime refuses.
    const skipped = (await api.get('/realtime/config', { token: player })).body;
    expect(skipped.ok, JSON.stringify(skipped) + fnOutput).toBe(true);
    const rt1 = realtimeClient(skipped);
    await rt1.setAuth(skipped.token);
    await expect(joinTopic(rt1, topic, true)).rejects.toThrow(signerRefusal(secondKid));
    rt1.disconnect();

    // The page's rotation command: the new key is the current one, the first is previously used.
    const rotate = commandsOf(key).find((c) => c.includes('"status":"in_use"'))!;
    await bash(substitute([head, `KEY_ID='${standby.id}'`, rotate].join('\n')), cliEnv);
    expect(project.list().filter((k) => !k.legacy).map((k) => [k.publicJwk!.kid, k.status]))
      .toEqual(expect.arrayContaining([[firstKid, 'previously_used'], [secondKid, 'in_use']]));
    const rotated = (await api.get('/realtime/config', { token: player })).body;
    const rt2 = realtimeClient(rotated);
    await rt2.setAuth(rotated.token);
    await joinTopic(rt2, topic, true);
    // A token the first key signed before the rotation still joins: previously used keys are trusted...
    const rt3 = realtimeClient(before);
    await rt3.setAuth(before.token);
    await joinTopic(rt3, topic, true);
    rt3.disconnect();
    // ... until revoked.
    const first = project.list().find((k) => k.publicJwk?.kid === firstKid)!;
    const revoked = await fetch(`${managementApi.url}/v1/projects/${managementApi.projectRef}/config/auth/signing-keys/${first.id}`, {
      method: 'PATCH', headers: { Authorization: `Bearer ${managementApi.accessToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ status: 'revoked' }),
    });
    expect(revoked.status).toBe(200);
    const rt4 = realtimeClient(before);
    await rt4.setAuth(before.token);
    await expect(joinTopic(rt4, topic, true)).rejects.toThrow(signerRefusal(firstKid));
    rt4.disconnect();
  }, 300_000);
});
