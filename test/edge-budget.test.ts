// The Edge Function under the CPU limits of Supabase's edge runtime, as the twin applies
// them (twin/edge-runtime.ts: 1 s soft / 2 s hard of CPU per worker, the values of the
// Supabase CLI's emulation of hosted). Passwords at OWASP's cost (argon2id 19 MiB, t=2)
// are hashed on the function's only thread; the hashing a worker holds at once is bounded
// (api/security/password.ts, EDGE_HASH_CPU_MS), so a burst of logins never gets a request
// terminated: each answers 200 or 503 with Retry-After, and clients retrying all log in.
// Without the bound, the same burst does get requests terminated (546 WORKER_LIMIT).
// Also measures the CPU time of a login, a register and a match action in the function
// (printed; docs/deploy.md, "CPU per request").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../api/errors.js';
import { HashingQueue } from '../api/security/password.js';
import { CLI_EDGE_LIMITS, type EdgeRuntime } from '../twin/edge-runtime.js';
import { builtFunctionFolder, type FunctionFolder } from './support/function-folder.js';
import { client, denoBinary, startTestApp, type TestApp } from './support/harness.js';

const deno = denoBinary();
const linux = process.platform === 'linux';
const OWASP = { MANETTE_ARGON2_MEMORY_KIB: '19456', MANETTE_ARGON2_ITERATIONS: '2' };
const GAME = {
  jeu: 'edge-budget', nom: 'Edge budget',
  modes: { '1v1': { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', elo_ecart_initial: 10000 } },
};
const PASSWORD = 'motdepasse-solide';

describe('the hashing queue\'s CPU bound (the Edge Function\'s)', () => {
  it('holds at most the bound of hashes at once, at least one, and refuses past it with Retry-After', async () => {
    const q = new HashingQueue(1, Infinity, 100, Infinity, 350); // 100 ms a hash: 3 fit in 350 ms
    const releases: Array<() => void> = [];
    const hold = () => { const t = q.reserve(); void t.run(() => new Promise<void>((r) => releases.push(r))); return t; };
    hold(); hold(); hold();
    let refused: unknown;
    try { q.reserve(); } catch (err) { refused = err; }
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 503, code: 'unavailable', extra: { retryAfter: 1 } });
    // One done: one more fits.
    await new Promise((r) => setTimeout(r, 0));
    releases.shift()!();
    await new Promise((r) => setTimeout(r, 0));
    expect(() => q.reserve().cancel()).not.toThrow();
    // A bound below one hash still admits one at a time.
    const small = new HashingQueue(1, Infinity, 100, Infinity, 50);
    const first = small.reserve();
    expect(() => small.reserve()).toThrow(ApiError);
    first.cancel();
    expect(() => small.reserve().cancel()).not.toThrow();
    // A ticket of two hashes (a keyed registration) counts twice.
    const w = new HashingQueue(1, Infinity, 100, Infinity, 350);
    const two = w.reserve(undefined, 2);
    expect(() => w.reserve(undefined, 2)).toThrow(ApiError);
    const one = w.reserve();
    expect(() => w.reserve()).toThrow(ApiError);
    two.cancel();
    one.cancel();
    expect(() => w.reserve(undefined, 3).cancel()).not.toThrow();
  });
});

describe.skipIf(!deno || !linux)('the Edge Function under the edge runtime\'s CPU limits', () => {
  let folder: FunctionFolder;
  let fnDir: string;
  beforeAll(async () => {
    folder = await builtFunctionFolder('manette-edge-budget-');
    fnDir = folder.fnDir;
  }, 120_000);
  afterAll(async () => { await folder?.remove(); });

  async function burst(app: TestApp, key: string, players: string[], count: number) {
    const api = client(app.baseUrl, key);
    const answers: Array<{ status: number; error?: string; retryAfter: string | null }> = [];
    const logins = Array.from({ length: count }, async (_, i) => {
      for (let attempt = 0; attempt < 60; attempt++) {
        const r = await api.post('/players/login', { identifiant: players[i % players.length], password: PASSWORD });
        answers.push({ status: r.status, error: r.body?.error ?? r.body?.code, retryAfter: r.headers.get('retry-after') });
        if (r.status !== 503) return r.status;
        await new Promise((res) => setTimeout(res, Number(r.headers.get('retry-after') ?? 1) * 1000));
      }
      return 0;
    });
    return { finals: await Promise.all(logins), answers };
  }

  async function withApp(env: Record<string, string>, fn: (app: TestApp, edge: EdgeRuntime, key: string) => Promise<void>) {
    const app = await startTestApp({ ...OWASP, ...env }, undefined, { server: 'edge', edgeFunctionDir: fnDir, edgeLimits: { ...CLI_EDGE_LIMITS } });
    try {
      await fn(app, app.edge!, await app.applyGame(GAME));
    } finally {
      await app.close();
    }
  }

  async function register(app: TestApp, key: string, n: number): Promise<string[]> {
    const api = client(app.baseUrl, key);
    const names: string[] = [];
    for (let i = 0; i < n; i++) {
      const name = `Burst${i}`;
      // One at a time: each answers (a retry on a 503 is part of the contract).
      for (;;) {
        const r = await api.post('/players/register', { pseudo: name, email: `${name.toLowerCase()}@example.test`, password: PASSWORD });
        if (r.status === 503) { await new Promise((res) => setTimeout(res, 1000)); continue; }
        expect(r.status, JSON.stringify(r.body)).toBe(201);
        break;
      }
      names.push(name);
    }
    return names;
  }

  it('a burst of 50 logins: no request terminated; each answers 200 or 503 with Retry-After, and every client logs in', async () => {
    await withApp({}, async (app, edge, key) => {
      const players = await register(app, key, 10);
      const { finals, answers } = await burst(app, key, players, 50);
      expect(finals).toEqual(Array(50).fill(200));
      for (const a of answers) {
        expect([200, 503], JSON.stringify(a)).toContain(a.status);
        if (a.status === 503) expect([a.error, a.retryAfter]).toEqual(['unavailable', expect.stringMatching(/^[1-9]\d*$/)]);
      }
      expect(edge.events.filter((e) => e.kind === 'terminated' || e.kind === 'exited')).toEqual([]);
      console.log(`burst of 50 logins: ${answers.length} answers, ${answers.filter((a) => a.status === 503).length} of them 503; `
        + `workers retired at the soft limit: ${edge.events.filter((e) => e.kind === 'retired').length}`);
    });
  }, 600_000);

  it('without the bound (MANETTE_EDGE_HASH_CPU_MS=0), the same burst gets requests terminated: 546 WORKER_LIMIT', async () => {
    // Every hash admitted at once (the queue's own bound, in wall time, would admit fewer
    // on a busy machine): they still run one at a time on the function's thread.
    await withApp({ MANETTE_EDGE_HASH_CPU_MS: '0', MANETTE_HASH_PARALLELISM: '50' }, async (app, edge, key) => {
      const players = await register(app, key, 10);
      const { answers } = await burst(app, key, players, 50);
      expect(answers.filter((a) => a.status === 546).length).toBeGreaterThan(0);
      expect(answers.find((a) => a.status === 546)).toMatchObject({ error: 'WORKER_LIMIT' });
      expect(edge.events.some((e) => e.kind === 'terminated' && e.reason === 'cpu_hard' && e.inFlight > 0)).toBe(true);
    });
  }, 600_000);

  it('measures the CPU time of a register, a login and a match action in the function', async () => {
    await withApp({}, async (app, edge, key) => {
      const api = client(app.baseUrl, key);
      // The CPU the worker spent on one request alone, when the same worker served it.
      const cpuOf = async (send: () => Promise<{ status: number }>): Promise<number | undefined> => {
        const before = edge.workers().find((w) => !w.retired);
        const r = await send();
        expect(r.status).toBeLessThan(300);
        const after = edge.workers().find((w) => w.id === before?.id);
        return before && after ? after.cpuMs - before.cpuMs : undefined;
      };
      const samples: Record<string, number[]> = { register: [], login: [], action: [] };
      const keep = (kind: string, ms: number | undefined) => { if (ms !== undefined) samples[kind]!.push(ms); };
      await api.get('/realtime/config', { key: null }); // warm the worker
      for (let round = 0; round < 3; round++) {
        const ids: Record<string, string> = {};
        const tokens: Record<string, string> = {};
        for (const name of [`CpuX${round}`, `CpuO${round}`]) {
          keep('register', await cpuOf(async () => {
            const r = await api.post('/players/register', { pseudo: name, email: `${name.toLowerCase()}@example.test`, password: PASSWORD });
            ids[name] = r.body.data?.joueur?.id;
            return r;
          }));
          keep('login', await cpuOf(async () => {
            const r = await api.post('/players/login', { identifiant: name, password: PASSWORD });
            tokens[ids[name]!] = r.body.token;
            return r;
          }));
        }
        const [tx, to] = Object.values(tokens) as [string, string];
        expect((await api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1000 }, { token: tx })).status).toBe(200);
        const m = await api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1000 }, { token: to });
        expect(m.body.status).toBe('matched');
        const seats = m.body.participants.map((p: { joueur_id: string }) => tokens[p.joueur_id]!);
        for (const [i, c] of [4, 0, 2, 1].entries()) {
          keep('action', await cpuOf(() => api.post('/match/action', { partie_id: m.body.partie_id, action: 'jouer', donnees: { case: c } }, { token: seats[i % 2] })));
        }
      }
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      for (const [kind, xs] of Object.entries(samples)) {
        expect(xs.length, kind).toBeGreaterThan(0);
        console.log(`CPU of a ${kind} in the Edge Function (main thread, ms): median ${median(xs).toFixed(1)}, samples ${xs.map((x) => x.toFixed(1)).join(' ')}`);
      }
      // A login and a register each compute a hash; an action none.
      expect(median(samples.login!)).toBeGreaterThan(median(samples.action!));
      expect(median(samples.register!)).toBeGreaterThan(median(samples.action!));
    });
  }, 600_000);
});
