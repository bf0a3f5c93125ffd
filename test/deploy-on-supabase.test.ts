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
import { createRealtimeSigner } from '../api/security/realtime-token.js';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManagementApi } from '../twin/management-api/server.js';
import type { LocalRealtime } from '../twin/realtime/server.js';
import type { ProjectKeys } from '../twin/realtime/project-keys.js';
import type { RunningPooler } from '../twin/pooler/pgbouncer.js';
import { client, query } from './support/harness.js';
import {
  API_DB_PASSWORD, JWT_SECRET, canDeployHere, commandsOf, documentedCommands, startHostedProject, type HostedProject,
} from './support/hosted-project.js';

const ready = canDeployHere('deploy-on-supabase.test.ts');

const GAME = {
  jeu: 'deploy-path', nom: 'Deploy path',
  modes: { '1v1': { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', elo_ecart_initial: 10000 } },
};

describe.skipIf(!ready)('docs/deploy.md, "Deploy on Supabase", on a twin of a hosted project', () => {
  let hosted: HostedProject;
  let dbUrl: string;
  let dbName: string;
  let managementApi: ManagementApi;
  let pooler: RunningPooler;
  let realtime: LocalRealtime;
  let setupOutput = '';
  let anonKey: string;
  let project: ProjectKeys;
  let cliEnv: NodeJS.ProcessEnv;
  let functionBase: string;
  /** From the game: its API client, a player's session token, the match, a realtime config given then. */
  let played: { api: ReturnType<typeof client>; player: string; match: string; config: any } | undefined;

  beforeAll(async () => {
    hosted = await startHostedProject({ databasePrefix: 'deploy_path', game: GAME });
    ({ dbUrl, dbName, managementApi, pooler, realtime, project, anonKey, cliEnv, functionBase } = hosted);
    setupOutput = await hosted.deploy();
  }, 900_000);
  afterAll(async () => { await hosted?.close(); });

  const substitute = (text: string) => hosted.substitute(text);
  const bash = (script: string, env: NodeJS.ProcessEnv) => hosted.bash(script, env);
  const realtimeClient = (config: { url: string; key: string }) => hosted.realtimeClient(config);
  const joinTopic: HostedProject['joinTopic'] = (...args) => hosted.joinTopic(...args);
  const startFunction = () => hosted.startFunction();

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

  it('6: the platform runs what was uploaded, with those secrets, and it answers', async () => {
    await startFunction();
    expect(hosted.fn()!.exitCode, hosted.fnOutput()).toBeNull();
    const { check } = await documentedCommands();
    const { stdout } = await bash(substitute(check), { ...process.env });
    expect(JSON.parse(stdout), hosted.fnOutput()).toEqual({ ok: true, data: { database: 'ok' } });
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
    expect(skipped.ok, JSON.stringify(skipped) + hosted.fnOutput()).toBe(true);
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
