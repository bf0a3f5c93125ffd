// Issue 31: the hashing places of a process are shared fairly between games. One lane per
// game (its API key, once the database has accepted it), served in turn; a game's admission
// counts what its new hash would wait for under that rotation, so a game alone is bounded
// as before and another game arriving during its flood is served before the flood's backlog
// (api/security/password.ts, docs/api.md). Orders and counts only, never durations.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../api/errors.js';
import {
  confirmedBy, confirmHashingKey, hashingLane, hashingQueue, HashingQueue, passwordCost, UNCONFIRMED_LANE,
} from '../api/security/password.js';
import { client, EDGE, minimalGame, startTestApp, type TestApp } from './support/harness.js';

/** Reserves in `lane` until the first refusal; the number admitted. */
function fill(q: HashingQueue, lane: string, max = 1000): number {
  for (let n = 0; n < max; n++) {
    try { q.reserve(lane); } catch (err) {
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).status).toBe(503);
      return n;
    }
  }
  throw new Error(`${lane}: never refused`);
}

const admitted = (q: HashingQueue) => q.snapshot().running + q.snapshot().reserved;
const ticks = () => new Promise((r) => setImmediate(r));

describe('the queue (unit: counts, no hashing)', () => {
  // One place, 100 ms a hash, 2 s per game: the rule of before admits 1 + 2000/100 = 21.
  const queue = () => { const q = new HashingQueue(1, 2_000, 100); return q; };

  it('a game alone is bounded exactly as one queue was: 21 admitted, then 503 with Retry-After', () => {
    const q = queue();
    expect(fill(q, 'A')).toBe(21);
    // The same rule as before: what it would wait for is all that the process holds.
    expect(q.laneQueuedMs('A')).toBe(q.queuedMs());
    try { q.reserve('A'); expect.unreachable(); } catch (err) {
      expect((err as ApiError).code).toBe('unavailable');
      expect((err as ApiError).extra.retryAfter).toBeGreaterThanOrEqual(1);
    }
  });

  it('another game is admitted during a full flood, then bounded by its own share; the process by a hard cap', () => {
    const q = queue();
    expect(fill(q, 'A')).toBe(21);
    // B's first hash waits for one of A's, not for A's 21: admitted.
    q.reserve('B');
    // B may hold k while k + min(21, k + 1) hashes ≤ 20: 10 in all.
    expect(fill(q, 'B') + 1).toBe(10);
    expect(fill(q, 'A')).toBe(0);
    // More games: each admitted for a few, until the process holds 2 × 2 s of hashes (41 at most).
    for (const g of ['C', 'D', 'E', 'F', 'G', 'H']) fill(q, g);
    expect(admitted(q)).toBeLessThanOrEqual(41);
    expect(admitted(q)).toBeGreaterThan(31);
    expect(fill(q, 'late')).toBe(0);
  });

  it('a cancelled place is given back to its game', () => {
    const q = queue();
    const t = q.reserve('A');
    expect(fill(q, 'A')).toBe(20);
    t.cancel();
    t.cancel(); // twice changes nothing
    expect(fill(q, 'A')).toBe(1);
    expect(q.snapshot().lanes.A!.admitted).toBe(21);
  });

  it('waiting hashes are served one lane after the other (round-robin), each lane in FIFO order', async () => {
    const q = queue();
    const started: string[] = [];
    const finish = new Map<string, () => void>();
    const job = (name: string, lane: string) => q.reserve(lane).run(() => new Promise<void>((resolve) => {
      started.push(name);
      finish.set(name, resolve);
    }));
    const done = ['A1', 'A2', 'A3', 'A4', 'A5'].map((n) => job(n, 'A'));
    await ticks();
    done.push(job('B1', 'B'), job('B2', 'B'));
    await ticks();
    expect(started).toEqual(['A1']);
    expect(q.snapshot().lanes).toEqual({ A: { admitted: 4, waiting: 4 }, B: { admitted: 2, waiting: 2 } });
    for (let i = 1; i < 7; i++) {
      finish.get(started[i - 1]!)!();
      await vi.waitFor(() => expect(started.length).toBe(i + 1));
    }
    finish.get(started[6]!)!();
    await Promise.all(done);
    // With one FIFO queue of before: A1 A2 A3 A4 A5 B1 B2.
    expect(started).toEqual(['A1', 'A2', 'B1', 'A3', 'B2', 'A4', 'A5']);
    expect(q.snapshot()).toEqual({ running: 0, reserved: 0, lanes: {} });
  });

  it('a key gets its own lane only once the database accepted it; made-up keys share one', async () => {
    expect(hashingLane(undefined)).toBe(UNCONFIRMED_LANE);
    expect(hashingLane('sk_unit_unknown')).toBe(UNCONFIRMED_LANE);
    const invalidKey = Object.assign(new Error('invalid_key'), { code: 'MN401' });
    await expect(confirmedBy('sk_unit_made_up', Promise.reject(invalidKey))).rejects.toBe(invalidKey);
    expect(hashingLane('sk_unit_made_up')).toBe(UNCONFIRMED_LANE);
    const verdict = Object.assign(new Error('code_invalide'), { code: 'MN400' });
    await expect(confirmedBy('sk_unit_real', Promise.reject(verdict))).rejects.toBe(verdict);
    expect(hashingLane('sk_unit_real')).toBe('sk_unit_real');
    await confirmedBy('sk_unit_other', Promise.resolve(1));
    expect(hashingLane('sk_unit_other')).toBe('sk_unit_other');
    confirmHashingKey('sk_unit_third');
    expect(hashingLane('sk_unit_third')).toBe('sk_unit_third');
  });
});

// The Edge Function runs the façade in another process (Deno): its queue is not this one.
describe.skipIf(EDGE)('over HTTP: one game floods register and reset, another logs in', () => {
  let app: TestApp;
  let a: ReturnType<typeof client>;
  let b: ReturnType<typeof client>;
  let keyA: string;
  let keyB: string;

  beforeAll(async () => {
    // 8 MiB × 8 passes: tens of ms a hash natively, so that 2 s hold a backlog of tens of
    // hashes (the test's own cost: its own queue in this process).
    app = await startTestApp({ MANETTE_ARGON2_MEMORY_KIB: '8192', MANETTE_ARGON2_ITERATIONS: '8' });
    keyA = await app.applyGame(minimalGame('hash-flood'));
    keyB = await app.applyGame(minimalGame('hash-login'));
    a = client(app.baseUrl, keyA);
    b = client(app.baseUrl, keyB);
    // Each game has been accepted by the database once (a registration): its own lane.
    await a.register('Flooder');
    await b.register('Bella');
    expect(hashingLane(keyA)).toBe(keyA);
    expect(hashingLane(keyB)).toBe(keyB);
  }, 60_000);
  afterAll(async () => { await app?.close(); });

  const queue = () => hashingQueue(passwordCost(app.settings));

  /** A's flood: half registrations, half resets with a wrong code (each hashes before its SQL). */
  function flood(n: number, tag: string, order: string[]) {
    return Array.from({ length: n }, (_, i) => (i % 2 === 0
      ? a.post('/players/register', { pseudo: `${tag}${i}`, email: `${tag}${i}@example.test`, password: 'motdepasse-solide' })
      : a.post('/players/mot-de-passe/reinitialiser', { email: `${tag}${i}@example.test`, code: '00000000', password: 'motdepasse-solide' })
    ).then((r) => { order.push(`A${r.status === 503 ? '-refused' : ''}`); return r; }));
  }

  it('B’s logins are served before A’s backlog', async () => {
    const order: string[] = [];
    const replies = flood(100, 'fa', order);
    // Orders, not durations: B comes once A's backlog is queued.
    await vi.waitFor(() => expect(queue().snapshot().lanes[keyA]?.waiting ?? 0).toBeGreaterThanOrEqual(10), { timeout: 30_000, interval: 5 });
    const backlog = queue().snapshot().lanes[keyA]!.waiting;
    const logins = Array.from({ length: 3 }, () => b.post('/players/login', { identifiant: 'Bella', password: 'motdepasse-solide' })
      .then((r) => { order.push('B'); return r; }));
    const [fromA, fromB] = [await Promise.all(replies), await Promise.all(logins)];
    for (const r of fromB) expect(r.status, JSON.stringify(r.body)).toBe(200);
    const servedA = fromA.filter((r) => r.status !== 503);
    const refusedA = fromA.filter((r) => r.status === 503);
    for (const r of servedA) expect(r.status, JSON.stringify(r.body)).toBeLessThan(500);
    for (const r of refusedA) {
      expect(r.body).toMatchObject({ ok: false, error: 'unavailable' });
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    // B's three logins came back while most of A's backlog was still to be served: each
    // waited for about one of A's hashes per place. With one queue, the backlog A had queued
    // before them came first.
    const lastB = order.lastIndexOf('B');
    const servedAfterB = order.slice(lastB + 1).filter((x) => x === 'A').length;
    expect(servedAfterB, order.join(' ')).toBeGreaterThanOrEqual(Math.min(backlog - 3 * queue().parallelism - 2, 5));
    expect(queue().snapshot()).toEqual({ running: 0, reserved: 0, lanes: {} });
  }, 120_000);

  it('a game alone: its flood is still bounded (503 with Retry-After past its share, the rest served)', async () => {
    const order: string[] = [];
    // 400: on a quiet machine 200 of these hashes took less than the 2 s bound, so none was shed.
    const pending = flood(400, 'fb', order);
    // Alone, what a new hash of A waits for is all that the process holds: the rule of before.
    await vi.waitFor(() => expect(queue().snapshot().lanes[keyA]?.waiting ?? 0).toBeGreaterThanOrEqual(10), { timeout: 30_000, interval: 5 });
    expect(Object.keys(queue().snapshot().lanes)).toEqual([keyA]);
    expect(queue().laneQueuedMs(keyA)).toBe(queue().queuedMs());
    const replies = await Promise.all(pending);
    const refused = replies.filter((r) => r.status === 503);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.length).toBeLessThan(400);
    for (const r of refused) expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    for (const r of replies.filter((x) => x.status !== 503)) expect(r.status, JSON.stringify(r.body)).toBeLessThan(500);
  }, 120_000);
});
