// The Supabase Edge Function (supabase/functions/manette) under the real Deno of the `deno`
// package, on a fresh database, connecting as the API role itself with no startup options
// (as behind Supabase's pooler): one end-to-end flow over HTTP at /manette/api/public/v1.
// `npm run test:edge` runs the other HTTP test files against it too.
import { spawn } from 'node:child_process';
import { jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, denoBinary, freshDatabase, query, startTestApp, type TestApp } from './support/harness.js';
import { freePort } from './support/net.js';

const deno = denoBinary();
if (!deno) console.warn('edge-deno.test.ts skipped: the deno package is not installed (npm install)');

const GAME = {
  jeu: 'edge-e2e',
  nom: 'Edge E2E',
  tables: { inventaire: { colonnes: { item_id: { type: 'text', requis: true }, quantite: { type: 'integer' } }, lecture: 'proprietaire', ecriture: 'joueurs' } },
  classements: { score: {} },
  modes: { '1v1': { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', elo_ecart_initial: 10000 } },
};

describe.skipIf(!deno)('Edge Function under Deno', () => {
  let app: TestApp;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    app = await startTestApp({}, undefined, { server: 'edge' });
    api = client(app.baseUrl, await app.applyGame(GAME));
  }, 90_000);
  afterAll(async () => { await app?.close(); });

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

  it('answers errors with the envelope, in the player\'s language', async () => {
    const noKey = await api.get('/realtime/config', { key: null });
    expect([noKey.status, noKey.body.ok, noKey.body.error]).toEqual([401, false, 'missing_key']);
    const bad = await api.request('POST', '/players/login', { raw: '{"identifiant":', headers: { 'content-type': 'application/json', 'accept-language': 'en' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ ok: false, error: 'invalid_json' });
    expect(typeof bad.body.message).toBe('string');
    expect(bad.headers.get('x-request-id')).toMatch(/.+/);
  });
});

describe.skipIf(!deno)('the Edge Function\'s identity check', () => {
  it('refuses to start as a role with BYPASSRLS, naming the fix', async () => {
    const databaseUrl = await freshDatabase();
    const role = `t_edge_bypass_${Math.random().toString(36).slice(2, 10)}`;
    // The function's user is manette_api (a login, as behind the pooler): it may set this role.
    await query(databaseUrl, `create role ${role} nologin bypassrls; grant ${role} to manette_api`);
    try {
      const failure = await startTestApp({ MANETTE_DB_ROLE: role }, databaseUrl, { server: 'edge' }).then(
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
