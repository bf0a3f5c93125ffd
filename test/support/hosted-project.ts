// A twin of a hosted Supabase project with Supabase's new keys, deployed to as
// docs/deploy.md, "Deploy on Supabase", says: the commands of the page's block are read
// from the page and run by bash as written, their placeholders replaced by the twin's
// values (a database where `postgres` is not a superuser, PgBouncer as the transaction
// pooler, the Management API stand-in that the real Supabase CLI talks to, the Realtime
// stand-in with private channels only, as the page tells the project to be set). Then it
// plays the platform: it runs what the CLI uploaded, with the secrets the CLI set, under
// the edge runtime's Deno. And, once "enabled" (Database → Extensions), the twin's pg_cron
// with its scheduler running. Shared by test/deploy-on-supabase.test.ts and
// test/hosted-done-when.test.ts.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { RealtimeClient, type RealtimeChannel, type RealtimeClientOptions } from '@supabase/realtime-js';
import { SignJWT } from 'jose';
import WebSocket from 'ws';
import { startManagementApi, type ManagementApi } from '../../twin/management-api/server.js';
import { startLocalRealtime, type LocalRealtime } from '../../twin/realtime/server.js';
import { PLANS } from '../../twin/realtime/quotas.js';
import { ProjectKeys } from '../../twin/realtime/project-keys.js';
import { havePgBouncer, PGBOUNCER, startPgBouncer, type RunningPooler } from '../../twin/pooler/pgbouncer.js';
import { edgeRuntimeArgs, edgeRuntimeDeno } from '../../twin/edge-runtime.js';
import { installCronStandIn, startCronScheduler, type CronScheduler } from '../../twin/cron/scheduler.js';
import { copyDeployment } from './deployed-function.js';
import { emptyDatabase, twinAdminUrlOf } from './harness.js';
import { freePort } from './net.js';

const run = promisify(execFile);
const REPO = path.resolve(import.meta.dirname, '..', '..');
const deno = edgeRuntimeDeno();

/** Whether this machine can run the path (PgBouncer and the edge runtime's Deno); warns for `file` if not. */
export function canDeployHere(file: string): boolean {
  if (!havePgBouncer) console.warn(`${file} skipped: ${PGBOUNCER} not found (apt-get install pgbouncer)`);
  if (!deno) console.warn(`${file} skipped: the deno-edge-runtime package is not installed`);
  return havePgBouncer && !!deno;
}

export const JWT_SECRET = 'the-project-jwt-secret-of-at-least-thirty-two-chars';
export const API_DB_PASSWORD = 'a-long-random-password-for-the-function';

/** docs/deploy.md as it is now. */
export const deployPage = () => readFile(path.join(REPO, 'docs', 'deploy.md'), 'utf8');

/**
 * The page's block, split before step 6 (the platform must run the function in between);
 * its head (the exports), and its step 4 (the signing key) and step 5 (the settings) apart.
 */
export async function documentedCommands(): Promise<{ setup: string; check: string; head: string; key: string; settings: string }> {
  const page = await deployPage();
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
export const commandsOf = (script: string) => script.replace(/\\\n/g, ' ').split('\n').filter((l) => l.trim() !== '' && !l.trim().startsWith('#'));

/** A realtime config as GET /realtime/config gives it. */
export interface RealtimeConfig { url: string; key: string; token?: string; channel_prefix?: string; private?: boolean }

export interface HostedProject {
  /** A scratch folder (the CLI's home is in it). */
  work: string;
  /** The project's database as `postgres` (not a superuser), and its name. */
  dbUrl: string;
  dbName: string;
  /** The same database as the twin's superuser: only for what plays Supabase. */
  adminUrl: string;
  managementApi: ManagementApi;
  pooler: RunningPooler;
  realtime: LocalRealtime;
  project: ProjectKeys;
  /** The project's legacy anon key, disabled (the platform may still set SUPABASE_ANON_KEY). */
  anonKey: string;
  /** The function's URL, `https://$PROJECT_REF.supabase.co/functions/v1/manette` on the twin. */
  functionBase: string;
  /** The environment the page's commands run in (the CLI pointed at the twin). */
  cliEnv: NodeJS.ProcessEnv;
  /** The page's placeholders and hosts, as the twin has them. */
  substitute(text: string): string;
  /** A script, by bash -euo pipefail, in the repository. */
  bash(script: string, env: NodeJS.ProcessEnv): Promise<{ stdout: string; stderr: string }>;
  /** The page's steps 1 to 5, as written; their output. */
  deploy(): Promise<string>;
  /** The platform runs the uploaded function with the project's secrets (again after they change). */
  startFunction(): Promise<void>;
  /** The running function, its last output. */
  fn(): ChildProcess | undefined;
  fnOutput(): string;
  /** "Enable the pg_cron extension (Database → Extensions)": the twin's pg_cron, its scheduler running. */
  enablePgCron(): Promise<void>;
  /** A realtime-js client as a game opens it with /realtime/config's answer (closed with the project). */
  realtimeClient(config: RealtimeConfig): RealtimeClient;
  /** Joins a topic: the channel once subscribed, else the reason Realtime gave. */
  joinTopic(rt: RealtimeClient, topic: string, isPrivate: boolean, onBroadcast?: (m: any) => void): Promise<RealtimeChannel>;
  close(): Promise<void>;
}

/**
 * A new hosted project's twin, nothing deployed yet: an empty database, its pooler, the
 * Management API and Realtime with the project's new keys. `game` is what the page's
 * `mygame.json` stands for: a file's path, or a game written to such a file.
 */
export async function startHostedProject(opts: { databasePrefix: string; game: string | Record<string, unknown> }): Promise<HostedProject> {
  const work = await mkdtemp(path.join(tmpdir(), 'manette-hosted-'));
  let gameFile: string;
  if (typeof opts.game === 'string') gameFile = opts.game;
  else await writeFile(gameFile = path.join(work, 'mygame.json'), JSON.stringify(opts.game));
  const dbUrl = await emptyDatabase(opts.databasePrefix);
  const dbName = new URL(dbUrl).pathname.slice(1);
  const adminUrl = twinAdminUrlOf(dbUrl);
  // A project with Supabase's new keys: legacy API keys disabled, legacy JWT secret
  // revoked, a Supabase-generated signing key in use.
  const project = new ProjectKeys({ legacyJwtSecret: JWT_SECRET, mode: 'new-keys' });
  const managementApi = await startManagementApi({ project });
  const pooler = await startPgBouncer({
    databaseUrl: dbUrl, mode: 'transaction', users: [{ name: 'manette_api', password: API_DB_PASSWORD }],
  });
  const anonKey = await new SignJWT({ role: 'anon', iss: 'supabase' }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt().setExpirationTime('1h').sign(new TextEncoder().encode(JWT_SECRET));
  // The project's Realtime with the project's keys, set as the page says: private channels only.
  const realtime = await startLocalRealtime({
    port: 0, databaseUrl: adminUrl, project, quotas: PLANS.free, privateOnly: 'all', log: () => {},
  });
  const functionBase = `http://127.0.0.1:${await freePort()}/manette`;
  const cliEnv: NodeJS.ProcessEnv = {
    ...process.env, ...(await managementApi.cliEnvironment(work)),
    HOME: path.join(work, 'home'), SUPABASE_YES: '1', // the CLI's prompts answered yes, as a person would
  };
  let fn: ChildProcess | undefined;
  let fnOutput = '';
  let scheduler: CronScheduler | undefined;
  const rtClients: RealtimeClient[] = [];

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
      .replaceAll('mygame.json', gameFile)
      .replaceAll('https://$PROJECT_REF.supabase.co/functions/v1/manette', functionBase);
  };
  const bash = (script: string, env: NodeJS.ProcessEnv) => run('bash', ['-euo', 'pipefail', '-c', script],
    { cwd: REPO, env, timeout: 600_000, maxBuffer: 32 * 1024 * 1024 });

  return {
    work, dbUrl, dbName, adminUrl, managementApi, pooler, realtime, project, anonKey, functionBase, cliEnv, substitute, bash,
    async deploy() {
      const { setup } = await documentedCommands();
      const out = await bash(substitute(setup), cliEnv);
      return out.stdout + out.stderr;
    },
    async startFunction() {
      if (fn && fn.exitCode === null) {
        const exited = new Promise((r) => fn!.once('exit', r));
        fn.kill('SIGKILL');
        await exited;
      }
      const { dir } = await copyDeployment(managementApi.deployment('manette')!);
      const port = new URL(functionBase).port;
      const functionEnv = {
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
    },
    fn: () => fn,
    fnOutput: () => fnOutput,
    async enablePgCron() {
      await installCronStandIn(adminUrl);
      // pg_cron's jobs log in as their user: `postgres`, with the project's database password.
      scheduler ??= startCronScheduler({ adminUrl, userUrl: (u) => (u === 'postgres' ? dbUrl : undefined) });
    },
    realtimeClient(config) {
      const rt = new RealtimeClient(config.url, {
        params: { apikey: config.key }, timeout: 5_000,
        transport: WebSocket as unknown as RealtimeClientOptions['transport'],
      });
      rtClients.push(rt);
      return rt;
    },
    joinTopic: (rt, topic, isPrivate, onBroadcast) => new Promise<RealtimeChannel>((resolve, reject) => {
      const channel = rt.channel(topic, { config: { private: isPrivate } }).on('broadcast', { event: '*' }, (m: any) => onBroadcast?.(m));
      channel.subscribe((status, err) => {
        if (status === 'SUBSCRIBED') resolve(channel);
        else if (status !== 'CLOSED') { void rt.removeChannel(channel); reject(new Error(`${status} ${err?.message ?? ''}`)); }
      });
    }),
    async close() {
      for (const rt of rtClients) rt.disconnect();
      await scheduler?.stop().catch(() => {});
      if (fn && fn.exitCode === null) fn.kill('SIGKILL');
      await realtime.close();
      await pooler.stop();
      await managementApi.close();
      await rm(work, { recursive: true, force: true });
    },
  };
}
