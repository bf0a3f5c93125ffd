// The twin's edge runtime (twin/edge-runtime.ts) applies the per-worker limits of
// Supabase's edge runtime (supabase/edge-runtime, crates/base/src/worker/supervisor/
// strategy_per_worker.rs) with the values of the Supabase CLI's emulation (supabase/cli,
// apps/cli-go/internal/functions/serve/templates/main.ts): the worker's accumulated CPU
// time, read for real from Linux, retires it at the soft limit and terminates it at the
// hard one, its requests in flight then answering 546 WORKER_LIMIT; half the wall clock
// retires it, the whole terminates it. Shown with a function whose requests burn a given
// CPU time of its own thread (test/fixtures/edge-cpu).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CLI_EDGE_LIMITS, edgeLimitsFromEnv, edgeRuntimeDeno, startEdgeRuntime, WORKER_ANSWERS, type EdgeLimits, type EdgeRuntime,
} from '../twin/edge-runtime.js';

const deno = edgeRuntimeDeno();
const FIXTURE = path.resolve(import.meta.dirname, 'fixtures', 'edge-cpu');
const linux = existsSync('/proc/thread-self/schedstat');

let rt: EdgeRuntime | undefined;
afterEach(async () => { await rt?.close(); rt = undefined; });

async function start(limits: Partial<EdgeLimits>): Promise<EdgeRuntime> {
  rt = await startEdgeRuntime({ deno: deno!, functionDir: FIXTURE, env: { PATH: process.env.PATH, HOME: process.env.HOME }, limits, onOutput: () => {}, onEvent: () => {} });
  return rt;
}
async function get(r: EdgeRuntime, p: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${r.url}${p}`);
  return { status: res.status, body: await res.json() };
}
async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setTimeout(r, 20));
}

describe('the edge runtime\'s limits, as configured', () => {
  it('default to the Supabase CLI\'s emulation of hosted: 1 s / 2 s of CPU per worker, 400 s of wall clock', () => {
    expect(CLI_EDGE_LIMITS).toEqual({ cpuSoftLimitMs: 1000, cpuHardLimitMs: 2000, wallClockLimitMs: 400_000 });
    expect(edgeLimitsFromEnv({})).toEqual(CLI_EDGE_LIMITS);
    expect(edgeLimitsFromEnv({ EDGE_CPU_SOFT_LIMIT_MS: '200', EDGE_CPU_HARD_LIMIT_MS: '400', EDGE_WALL_CLOCK_LIMIT_S: '0' }))
      .toEqual({ cpuSoftLimitMs: 200, cpuHardLimitMs: 400, wallClockLimitMs: 0 });
    expect(() => edgeLimitsFromEnv({ EDGE_CPU_HARD_LIMIT_MS: 'lots' })).toThrow(/EDGE_CPU_HARD_LIMIT_MS/);
  });
});

describe.skipIf(!deno || !linux)('the twin\'s edge runtime applies the per-worker limits', () => {
  it('a worker past the soft limit is retired: its requests finish, the next goes to a fresh worker', async () => {
    const r = await start({ ...CLI_EDGE_LIMITS });
    const { body: { pid } } = await get(r, '/pid');
    // Requests of a fixed amount of CPU work, one after the other, until the worker is
    // retired: each measured under the margin between the limits, so none can be killed.
    const worker = () => r.workers().find((w) => w.pid === pid);
    let before = worker()!.cpuMs;
    for (let i = 0; !r.events.some((e) => e.kind === 'retired'); i++) {
      expect(i).toBeLessThan(200);
      const res = await get(r, '/spin?m=20');
      expect(res).toEqual({ status: 200, body: { pid } });
      const after = worker()?.cpuMs;
      if (after !== undefined) {
        expect(after - before).toBeLessThan(CLI_EDGE_LIMITS.cpuHardLimitMs - CLI_EDGE_LIMITS.cpuSoftLimitMs);
        before = after;
      }
    }
    const retired = r.events.find((e) => e.kind === 'retired')!;
    expect(retired).toMatchObject({ worker: 1, reason: 'cpu_soft' });
    expect(retired.cpuMs).toBeGreaterThanOrEqual(1000);
    const next = await get(r, '/pid');
    expect(next.status).toBe(200);
    expect(next.body.pid).not.toBe(pid);
    // Retired with nothing in flight, it is dropped; nothing was terminated.
    await until(() => r.events.some((e) => e.kind === 'dropped'));
    expect(r.events.filter((e) => e.kind === 'terminated')).toEqual([]);
  });

  it('at the hard limit the worker is terminated: every request in flight on it answers 546 WORKER_LIMIT', async () => {
    const r = await start({ ...CLI_EDGE_LIMITS });
    const { body: { pid } } = await get(r, '/pid');
    // A request that waits, in flight on the same worker, and one that computes forever.
    const waiting = get(r, '/sleep?ms=600000');
    await until(() => r.workers()[0]!.inFlight === 1);
    const heavy = await get(r, '/spin');
    expect(heavy).toEqual({ status: 546, body: WORKER_ANSWERS.limit.body });
    expect(await waiting).toEqual({ status: 546, body: { code: 'WORKER_LIMIT', message: 'Worker failed to respond due to a resource limit (please check logs)' } });
    const terminated = r.events.find((e) => e.kind === 'terminated')!;
    expect(terminated).toMatchObject({ worker: 1, reason: 'cpu_hard', inFlight: 2 });
    expect(terminated.cpuMs).toBeGreaterThanOrEqual(2000);
    // Retired first (soft limit), then terminated.
    expect(r.events.map((e) => e.kind)).toEqual(['booted', 'retired', 'terminated']);
    // The next request boots a fresh worker.
    const next = await get(r, '/pid');
    expect(next.status).toBe(200);
    expect(next.body.pid).not.toBe(pid);
  });

  it('half the wall clock retires a worker, the whole terminates it with its requests in flight', async () => {
    const r = await start({ cpuSoftLimitMs: 0, cpuHardLimitMs: 0, wallClockLimitMs: 4_000 });
    const { body: { pid } } = await get(r, '/pid');
    const long = get(r, '/sleep?ms=60000');
    await until(() => r.events.some((e) => e.kind === 'retired'));
    expect(r.events.find((e) => e.kind === 'retired')).toMatchObject({ worker: 1, reason: 'wall_clock_half', inFlight: 1 });
    // After retirement, a new request goes to a new worker...
    const after = await get(r, '/pid');
    expect(after.body.pid).not.toBe(pid);
    // ...and the one still in flight on the first is failed at the whole wall clock.
    expect(await long).toEqual({ status: 546, body: WORKER_ANSWERS.limit.body });
    expect(r.events.find((e) => e.kind === 'terminated')).toMatchObject({ worker: 1, reason: 'wall_clock', inFlight: 1 });
  });
});
