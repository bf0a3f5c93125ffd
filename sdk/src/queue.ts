// The offline queue's rules, with no I/O: what a new write does to the queue (coalescing),
// which operation goes next, and what an answer means (done, retry, rejected). The
// IndexedDB store (queue-store.ts) and the flusher (sync.ts) apply these decisions.
//
// Coalescing only touches operations never sent (`attempts === 0`): one that may have
// reached the server is never changed, never cancelled, only replayed with its own key.
//   - update after an unsent insert of the same (local) row: merged into the insert.
//   - update after an unsent update of the same row: merged into that update (the
//     columns of the later one win); only writes of the same row move, so the server sees
//     the same final row.
//   - remove of a row whose insert was never sent: the insert, its updates and the
//     remove all disappear (nothing reached the server).
//   - remove after unsent updates of the same row: those updates are dropped.
// Anything else is appended.

export type OpKind = 'insert' | 'update' | 'remove';

export interface QueuedOp {
  /** Local id; also the Idempotency-Key sent on every attempt. */
  id: string;
  seq: number;
  kind: OpKind;
  table: string;
  /** Player the write belongs to: replayed only with that player's session. */
  player: string;
  /** update/remove: the row's id, server id or a local id (`local_...`) of a queued insert. */
  rowId?: string;
  /** insert: the local id the pending row was given. */
  localId?: string;
  donnees?: Record<string, unknown>;
  createdAt: number;
  /** Sends started. Written before each send: > 0 means it may have reached the server. */
  attempts: number;
  /** Earliest time of the next attempt (backoff), ms since epoch. */
  notBefore?: number;
}

export type NewOp = Omit<QueuedOp, 'seq' | 'attempts' | 'createdAt'> & { createdAt?: number };

export interface EnqueuePlan {
  put: QueuedOp[];
  remove: string[];
  /** queued: appended; merged: folded into `into`; cancelled: nothing left to send for that row. */
  outcome: 'queued' | 'merged' | 'cancelled';
  into?: string;
}

export const LOCAL_PREFIX = 'local_';
export const isLocalId = (id: string | undefined): boolean => typeof id === 'string' && id.startsWith(LOCAL_PREFIX);

const sameRow = (op: QueuedOp, rowId: string) => (op.kind === 'insert' ? op.localId === rowId : op.rowId === rowId);

/** How a new write changes the queue (`queue` is the whole store, any order). */
export function planEnqueue(queue: readonly QueuedOp[], incoming: NewOp, now = Date.now()): EnqueuePlan {
  const ordered = [...queue].sort(bySeq);
  const seq = ordered.length ? ordered[ordered.length - 1]!.seq + 1 : 1;
  const fresh: QueuedOp = { ...incoming, seq, attempts: 0, createdAt: incoming.createdAt ?? now };
  if (incoming.kind === 'insert' || !incoming.rowId) return { put: [fresh], remove: [], outcome: 'queued' };
  const rowId = incoming.rowId;
  const mine = ordered.filter((op) => op.player === incoming.player && op.table === incoming.table && sameRow(op, rowId));
  const last = mine[mine.length - 1];

  if (incoming.kind === 'update') {
    // Only the latest write of that row may absorb the update, and only if never sent.
    if (last && last.attempts === 0 && (last.kind === 'insert' || last.kind === 'update')) {
      const merged = { ...last, donnees: { ...last.donnees, ...incoming.donnees } };
      return { put: [merged], remove: [], outcome: 'merged', into: last.id };
    }
    return { put: [fresh], remove: [], outcome: 'queued' };
  }

  // remove
  const insert = mine.find((op) => op.kind === 'insert');
  if (insert && insert.attempts === 0 && mine.every((op) => op.attempts === 0)) {
    return { put: [], remove: mine.map((op) => op.id), outcome: 'cancelled' };
  }
  // Unsent updates after the last sent write of the row are pointless before a remove.
  const dropped: string[] = [];
  for (let i = mine.length - 1; i >= 0; i--) {
    const op = mine[i]!;
    if (op.kind !== 'update' || op.attempts > 0) break;
    dropped.push(op.id);
  }
  return { put: [fresh], remove: dropped, outcome: 'queued' };
}

export function bySeq(a: QueuedOp, b: QueuedOp): number {
  return a.seq - b.seq || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** The player's operations in replay order. */
export function pendingFor(queue: readonly QueuedOp[], player: string): QueuedOp[] {
  return queue.filter((op) => op.player === player).sort(bySeq);
}

/**
 * The operation to send now, or why none: `wait` (the head is backing off until `until`),
 * `empty`. Strictly in order: a later write never overtakes one that is waiting to retry.
 */
export function nextOp(queue: readonly QueuedOp[], player: string, now = Date.now()):
  { op: QueuedOp } | { wait: number } | { empty: true } {
  const head = pendingFor(queue, player)[0];
  if (!head) return { empty: true };
  if (head.notBefore && head.notBefore > now) return { wait: head.notBefore };
  return { op: head };
}

/**
 * The id to send for an update/remove: a local id resolves through `ids` (local → server,
 * filled when an insert is acknowledged). `undefined` when the local row never reached
 * the server (its insert was rejected): the write is then rejected too.
 */
export function targetOf(op: QueuedOp, ids: ReadonlyMap<string, string>): string | undefined {
  if (!op.rowId) return undefined;
  return isLocalId(op.rowId) ? ids.get(op.rowId) : op.rowId;
}

export interface Outcome {
  /** HTTP status; 0 when no answer arrived (network error, answer lost). */
  status: number;
  code?: string;
}

export type Decision = 'done' | 'retry' | 'rejected' | 'unauthorized';

export const MAX_SERVER_ERROR_ATTEMPTS = 8;

/**
 * What an answer means for the operation that was just sent (`op.attempts` already counts
 * this send):
 *   - 2xx: done.
 *   - no answer, 503 `unavailable`, 429, 408: retry with the same key, for ever (the
 *     server said "later" or did not answer).
 *   - other 5xx: retried up to MAX_SERVER_ERROR_ATTEMPTS sends, then rejected.
 *   - 401 `invalid_token`/`missing_player`: kept for when the same player logs in again.
 *   - remove answered `row_not_found` after an earlier send: done (that send deleted it).
 *   - any other 4xx: rejected, reported and dropped.
 */
export function decide(op: QueuedOp, outcome: Outcome): Decision {
  const { status, code } = outcome;
  if (status >= 200 && status < 300) return 'done';
  if (status === 0 || status === 503 || status === 429 || status === 408) return 'retry';
  if (status >= 500) return op.attempts >= MAX_SERVER_ERROR_ATTEMPTS ? 'rejected' : 'retry';
  if (status === 401 && (code === 'invalid_token' || code === 'missing_player')) return 'unauthorized';
  if (op.kind === 'remove' && status === 404 && code === 'row_not_found' && op.attempts > 1) return 'done';
  return 'rejected';
}

/** Backoff before the next attempt after `attempts` sends: 1 s, 2 s, 4 s ... capped at 30 s. */
export function backoffMs(attempts: number): number {
  return Math.min(30_000, 1000 * 2 ** Math.max(0, attempts - 1));
}

/** The server keeps Idempotency-Keys 24 h: an older insert replayed may create a second row. */
export const KEY_WINDOW_MS = 24 * 60 * 60 * 1000;
export const isPastKeyWindow = (op: QueuedOp, now = Date.now()) => op.attempts > 0 && now - op.createdAt > KEY_WINDOW_MS;
