// The offline queue's rules (sdk/src/queue.ts), without a browser: coalescing only what
// never reached the server, strict replay order, and what each answer means.
import { describe, expect, it } from 'vitest';
import {
  KEY_WINDOW_MS, MAX_SERVER_ERROR_ATTEMPTS, backoffMs, decide, isPastKeyWindow, nextOp, planEnqueue, targetOf,
  type NewOp, type QueuedOp,
} from '../sdk/src/queue.js';

const P = 'joueur-1';
let n = 0;
const op = (o: Partial<NewOp> & Pick<NewOp, 'kind'>): NewOp => ({ id: `op${++n}`, table: 'inventaire', player: P, ...o });

/** Applies planEnqueue like the store does; returns the new queue and the plan. */
function enqueue(queue: QueuedOp[], incoming: NewOp) {
  const plan = planEnqueue(queue, incoming, 1000);
  const next = queue.filter((q) => !plan.remove.includes(q.id) && !plan.put.some((p) => p.id === q.id));
  return { queue: [...next, ...plan.put].sort((a, b) => a.seq - b.seq), plan };
}
const sent = (q: QueuedOp[], id: string) => q.map((o) => (o.id === id ? { ...o, attempts: 1 } : o));

describe('sdk queue: coalescing', () => {
  it('appends writes in order with increasing seq and attempts 0', () => {
    let q: QueuedOp[] = [];
    q = enqueue(q, op({ kind: 'insert', localId: 'local_a', donnees: { item_id: 'a' } })).queue;
    q = enqueue(q, op({ kind: 'update', rowId: 'srv-1', donnees: { quantite: 1 } })).queue;
    q = enqueue(q, op({ kind: 'remove', rowId: 'srv-2' })).queue;
    expect(q.map((o) => [o.kind, o.seq, o.attempts])).toEqual([['insert', 1, 0], ['update', 2, 0], ['remove', 3, 0]]);
  });

  it('merges an update into the unsent insert of the same local row', () => {
    let q = enqueue([], op({ kind: 'insert', localId: 'local_a', donnees: { item_id: 'a', quantite: 1 } })).queue;
    const r = enqueue(q, op({ kind: 'update', rowId: 'local_a', donnees: { quantite: 5 } }));
    q = r.queue;
    expect(r.plan.outcome).toBe('merged');
    expect(q).toHaveLength(1);
    expect(q[0]).toMatchObject({ kind: 'insert', donnees: { item_id: 'a', quantite: 5 } });
  });

  it('never changes an insert that may have reached the server: the update is queued after it', () => {
    let q = enqueue([], op({ kind: 'insert', localId: 'local_a', donnees: { item_id: 'a' } })).queue;
    q = sent(q, q[0]!.id);
    const r = enqueue(q, op({ kind: 'update', rowId: 'local_a', donnees: { quantite: 5 } }));
    expect(r.plan.outcome).toBe('queued');
    expect(r.queue.map((o) => o.kind)).toEqual(['insert', 'update']);
    expect(r.queue[0]!.donnees).toEqual({ item_id: 'a' });
  });

  it('merges update after unsent update of the same row (later columns win), not of another row', () => {
    let q = enqueue([], op({ kind: 'update', rowId: 'srv-1', donnees: { quantite: 1, rarete: 'x' } })).queue;
    q = enqueue(q, op({ kind: 'update', rowId: 'srv-2', donnees: { quantite: 9 } })).queue;
    const r = enqueue(q, op({ kind: 'update', rowId: 'srv-1', donnees: { quantite: 2 } }));
    expect(r.plan.outcome).toBe('merged');
    expect(r.queue.map((o) => [o.rowId, o.donnees])).toEqual([['srv-1', { quantite: 2, rarete: 'x' }], ['srv-2', { quantite: 9 }]]);
  });

  it('does not merge into an update already sent, nor across tables or players', () => {
    let q = enqueue([], op({ kind: 'update', rowId: 'srv-1', donnees: { quantite: 1 } })).queue;
    q = sent(q, q[0]!.id);
    expect(enqueue(q, op({ kind: 'update', rowId: 'srv-1', donnees: { quantite: 2 } })).plan.outcome).toBe('queued');
    const q2 = enqueue([], op({ kind: 'update', rowId: 'srv-1', donnees: { quantite: 1 } })).queue;
    expect(enqueue(q2, op({ kind: 'update', table: 'autre', rowId: 'srv-1', donnees: {} })).plan.outcome).toBe('queued');
    expect(enqueue(q2, op({ kind: 'update', player: 'joueur-2', rowId: 'srv-1', donnees: {} })).plan.outcome).toBe('queued');
  });

  it('insert then remove of a never-sent row cancels both (and the updates between)', () => {
    let q = enqueue([], op({ kind: 'insert', localId: 'local_a', donnees: { item_id: 'a' } })).queue;
    q = enqueue(q, op({ kind: 'insert', localId: 'local_b', donnees: { item_id: 'b' } })).queue;
    const r = enqueue(q, op({ kind: 'remove', rowId: 'local_a' }));
    expect(r.plan.outcome).toBe('cancelled');
    expect(r.queue.map((o) => o.localId)).toEqual(['local_b']);
  });

  it('a remove of a row whose insert was sent is queued; unsent updates before it are dropped', () => {
    let q = enqueue([], op({ kind: 'insert', localId: 'local_a', donnees: { item_id: 'a' } })).queue;
    q = sent(q, q[0]!.id);
    q = enqueue(q, op({ kind: 'update', rowId: 'local_a', donnees: { quantite: 3 } })).queue;
    const r = enqueue(q, op({ kind: 'remove', rowId: 'local_a' }));
    expect(r.plan.outcome).toBe('queued');
    expect(r.queue.map((o) => o.kind)).toEqual(['insert', 'remove']);
  });

  it('a remove keeps an update that was already sent', () => {
    let q = enqueue([], op({ kind: 'update', rowId: 'srv-1', donnees: { quantite: 3 } })).queue;
    q = sent(q, q[0]!.id);
    const r = enqueue(q, op({ kind: 'remove', rowId: 'srv-1' }));
    expect(r.queue.map((o) => o.kind)).toEqual(['update', 'remove']);
  });
});

describe('sdk queue: replay', () => {
  it('replays strictly in order, per player, and waits on a head that backs off', () => {
    let q: QueuedOp[] = [];
    q = enqueue(q, op({ kind: 'insert', localId: 'local_a', donnees: {} })).queue;
    q = enqueue(q, op({ kind: 'insert', player: 'joueur-2', localId: 'local_x', donnees: {} })).queue;
    q = enqueue(q, op({ kind: 'insert', localId: 'local_b', donnees: {} })).queue;
    const head = nextOp([...q].reverse(), P, 5000);
    expect('op' in head && head.op.localId).toBe('local_a');
    q[0] = { ...q[0]!, notBefore: 9000 };
    expect(nextOp(q, P, 5000)).toEqual({ wait: 9000 }); // local_b does not overtake it
    expect('op' in nextOp(q, P, 9001)).toBe(true);
    expect(nextOp(q, 'joueur-3')).toEqual({ empty: true });
  });

  it('resolves a local row id through the ids recorded when its insert was acknowledged', () => {
    const u = { id: 'u', seq: 1, kind: 'update', table: 't', player: P, rowId: 'local_a', attempts: 0, createdAt: 0 } as QueuedOp;
    expect(targetOf(u, new Map())).toBeUndefined();
    expect(targetOf(u, new Map([['local_a', 'srv-9']]))).toBe('srv-9');
    expect(targetOf({ ...u, rowId: 'srv-1' }, new Map())).toBe('srv-1');
  });

  const base = { id: 'k', seq: 1, table: 't', player: P, createdAt: 0 };
  const ins = { ...base, kind: 'insert', attempts: 1 } as QueuedOp;

  it('2xx is done; no answer, 503, 429 are retried with the same key', () => {
    expect(decide(ins, { status: 201 })).toBe('done');
    expect(decide(ins, { status: 0, code: 'network_error' })).toBe('retry');
    expect(decide({ ...ins, attempts: 50 }, { status: 503, code: 'unavailable' })).toBe('retry');
    expect(decide(ins, { status: 429, code: 'rate_limited' })).toBe('retry');
  });

  it('other 5xx are retried a bounded number of times, then rejected', () => {
    expect(decide({ ...ins, attempts: MAX_SERVER_ERROR_ATTEMPTS - 1 }, { status: 500, code: 'internal_error' })).toBe('retry');
    expect(decide({ ...ins, attempts: MAX_SERVER_ERROR_ATTEMPTS }, { status: 500, code: 'internal_error' })).toBe('rejected');
  });

  it('4xx are rejected (reported, dropped), except a lost session and a remove that already happened', () => {
    expect(decide(ins, { status: 400, code: 'validation_failed' })).toBe('rejected');
    expect(decide(ins, { status: 403, code: 'forbidden' })).toBe('rejected');
    expect(decide(ins, { status: 409, code: 'idempotency_conflict' })).toBe('rejected');
    expect(decide(ins, { status: 401, code: 'invalid_token' })).toBe('unauthorized');
    expect(decide(ins, { status: 401, code: 'invalid_key' })).toBe('rejected');
    const rm = { ...base, kind: 'remove', rowId: 'srv-1' } as QueuedOp;
    expect(decide({ ...rm, attempts: 1 }, { status: 404, code: 'row_not_found' })).toBe('rejected');
    expect(decide({ ...rm, attempts: 2 }, { status: 404, code: 'row_not_found' })).toBe('done');
  });

  it('backs off 1 s, 2 s, 4 s ... up to 30 s; flags a sent op older than the 24 h key window', () => {
    expect([1, 2, 3, 4, 10].map(backoffMs)).toEqual([1000, 2000, 4000, 8000, 30_000]);
    expect(isPastKeyWindow({ ...ins, createdAt: 0 }, KEY_WINDOW_MS + 1)).toBe(true);
    expect(isPastKeyWindow({ ...ins, createdAt: 0 }, KEY_WINDOW_MS - 1)).toBe(false);
  });
});
