// The offline table queue at work: every table write goes through it (so a lost answer is
// replayed with the same Idempotency-Key), one tab at a time flushes it (Web Locks, or a
// lease in localStorage without them), and results are told to every tab.
import { ManetteError } from './errors.js';
import { randomId, request, type Transport } from './http.js';
import {
  LOCAL_PREFIX, backoffMs, decide, nextOp, pendingFor, targetOf,
  type OpKind, type Outcome, type QueuedOp,
} from './queue.js';
import { openQueueStore, type QueueStore } from './queue-store.js';
import { reportAsync, type Session } from './session.js';
import type { Row } from './types.js';

export interface PendingOp {
  id: string; kind: OpKind; table: string; row_id: string | null; donnees: Record<string, unknown> | null;
  attempts: number; cree_le: string;
}

export interface SyncEvent {
  /** queued, merged, cancelled: a write entered the queue; sent: the server accepted it;
   *  rejected: the server refused it (dropped, see `error`); retrying: no answer yet. */
  type: 'queued' | 'merged' | 'cancelled' | 'sent' | 'rejected' | 'retrying';
  op: PendingOp;
  /** sent: the row as the server returned it (for an insert, replaces the `local_` row). */
  row?: Row;
  /** rejected / retrying: why. */
  error?: ManetteError;
  /** Writes still queued for this player after this event. */
  pending: number;
}

type Settled = { ok: true; row: Row } | { ok: false; error: ManetteError; retrying: boolean };

const SEND_WAIT_MS = 10_000;

export class Sync {
  private readonly store: QueueStore;
  private readonly lockName: string;
  private readonly channel: BroadcastChannel | undefined;
  private readonly listeners = new Set<(e: SyncEvent) => void>();
  private readonly waiters = new Map<string, (s: Settled) => void>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private flushing: Promise<void> | undefined;
  /** A pass that must send now, asked while another pass runs: it runs right after. */
  private again: Promise<void> | undefined;

  constructor(private readonly t: Transport, private readonly session: Session, scope: string) {
    this.store = openQueueStore(`manette-sync-${scope}`);
    this.lockName = `manette-sync-${scope}`;
    this.channel = typeof BroadcastChannel !== 'undefined' ? new BroadcastChannel(`manette-sync-${scope}`) : undefined;
    this.channel?.addEventListener('message', (e: MessageEvent) => this.onRemote(e.data as { event: SyncEvent; settled?: Settled }));
    if (typeof window !== 'undefined' && typeof window.addEventListener === 'function') {
      // Back online: a write waiting for its retry timer goes now, not when the timer fires.
      window.addEventListener('online', () => { void this.flush(); });
    }
    session.onChange((j) => { if (j) void this.pass(false); });
    // Writes left by a previous page (or another tab that closed) are replayed on load.
    if (session.player) setTimeout(() => { void this.pass(false); }, 0);
  }

  onChange(cb: (e: SyncEvent) => void): () => void {
    this.listeners.add(cb);
    return () => { this.listeners.delete(cb); };
  }

  /** Drops every write queued for `player` (a deleted account: they can never be sent). */
  async forget(player: string): Promise<void> {
    await this.withLock(async () => {
      for (const op of await this.store.all()) if (op.player === player) await this.store.finish(op.id);
    });
  }

  /** The server id of a row inserted through the queue (`local_...`), once known. */
  async mappedId(localId: string): Promise<string | undefined> {
    return (await this.store.ids()).get(localId);
  }

  async pending(): Promise<PendingOp[]> {
    const player = this.session.player?.id;
    if (!player) return [];
    return pendingFor(await this.store.all(), player).map(publicOp);
  }

  /**
   * Queues a write, then sends the queue. Resolves with the server's row when it answered
   * within SEND_WAIT_MS; with a pending row (`en_attente: true`) when the write stays queued
   * (offline, no answer, or another tab is sending); rejects when the server refused it.
   */
  async write(kind: OpKind, table: string, rowId: string | undefined, donnees: Record<string, unknown> | undefined): Promise<Row> {
    const player = this.session.player;
    if (!this.session.currentToken || !player) {
      throw new ManetteError({ code: 'missing_player', status: 401, message: this.t.lang === 'en' ? 'Log in first.' : 'Connecte-toi d’abord.' });
    }
    const id = randomId();
    const localId = kind === 'insert' ? `${LOCAL_PREFIX}${id}` : undefined;
    // Saved (with its key, the op id) before the first send.
    const plan = await this.store.enqueue({ id, kind, table, player: player.id, rowId, localId, donnees });
    const now = new Date().toISOString();
    // What the row will hold once the queue is sent: the queued writes of that row, folded.
    let folded: Record<string, unknown> = { ...(donnees ?? {}) };
    if (kind !== 'insert' && rowId) {
      folded = {};
      for (const q of pendingFor(await this.store.all(), player.id)) {
        if (q.table === table && (q.rowId === rowId || q.localId === rowId)) folded = { ...folded, ...q.donnees };
      }
      if (kind === 'update') folded = { ...folded, ...donnees };
    }
    const pendingRow = (): Row => ({
      id: localId ?? rowId!, joueur_id: player.id, donnees: folded, cree_le: now, maj_le: now, en_attente: true,
    });
    const queuedOp = plan.put[0] ?? { id, seq: 0, kind, table, player: player.id, rowId, localId, donnees, attempts: 0, createdAt: Date.now() };
    const count = (await this.pending()).length;
    this.emit({ type: plan.outcome, op: publicOp(queuedOp), pending: count }, true);
    if (plan.outcome !== 'queued') return pendingRow();
    if (typeof navigator !== 'undefined' && navigator.onLine === false) return pendingRow();

    const settled = new Promise<Settled | undefined>((resolve) => {
      const timeout = setTimeout(() => { this.waiters.delete(id); resolve(undefined); }, SEND_WAIT_MS);
      this.waiters.set(id, (s) => { clearTimeout(timeout); this.waiters.delete(id); resolve(s); });
    });
    void this.pass(false);
    const s = await settled;
    if (!s || (!s.ok && s.retrying)) return pendingRow();
    if (!s.ok) throw s.error;
    return s.row;
  }

  /**
   * Sends what is queued for the current player, in order, now: a write waiting for its
   * retry timer (after a lost answer) is sent at once, not when the timer fires. Resolves
   * when this pass ends (the write sent, refused, or still unanswered).
   */
  flush(): Promise<void> {
    return this.pass(true);
  }

  /**
   * One pass over the queue. `now`: also the writes backing off (flush(), `online`); the
   * others (a new write, the retry timer, a login) respect the backoff. A pass asked while
   * another runs joins it, or, if it must send now, runs once more right after it.
   */
  private pass(now: boolean): Promise<void> {
    if (now && this.timer) { clearTimeout(this.timer); this.timer = undefined; }
    if (this.flushing) {
      if (!now) return this.flushing;
      this.again ??= this.flushing.catch(() => undefined).then(() => { this.again = undefined; return this.pass(true); });
      return this.again;
    }
    const run = this.withLock(() => this.drain(now)).finally(() => { if (this.flushing === run) this.flushing = undefined; });
    this.flushing = run;
    return run;
  }

  private async withLock(fn: () => Promise<void>): Promise<void> {
    const locks = typeof navigator !== 'undefined' ? (navigator as Navigator & { locks?: LockManager }).locks : undefined;
    if (locks?.request) {
      // Waits for the tab that holds it; that tab has sent what it saw, we send the rest.
      await locks.request(this.lockName, () => fn());
      return;
    }
    await withLease(this.lockName, fn);
  }

  private async drain(now: boolean): Promise<void> {
    for (;;) {
      const player = this.session.player?.id;
      const token = this.session.currentToken;
      if (!player || !token) return;
      // Sending now ignores the head's backoff: each op is still sent at most once per
      // pass, since a retry decision ends the pass.
      const next = nextOp(await this.store.all(), player, now ? Number.POSITIVE_INFINITY : Date.now());
      if ('empty' in next) return;
      if ('wait' in next) return this.schedule(next.wait - Date.now());
      const op = await this.store.claim(next.op.id);
      if (!op) continue; // finished by another tab meanwhile
      const { outcome, row, error } = await this.send(op, token);
      const decision = decide(op, outcome);
      if (decision === 'done') {
        await this.store.finish(op.id, op.kind === 'insert' && op.localId && row ? [op.localId, row.id] : undefined);
        await this.settle(op, { ok: true, row: row! }, 'sent', row);
        continue;
      }
      if (decision === 'retry') {
        op.notBefore = Date.now() + backoffMs(op.attempts);
        await this.store.update(op);
        await this.settle(op, { ok: false, error: error!, retrying: true }, 'retrying', undefined, error);
        return this.schedule(backoffMs(op.attempts));
      }
      if (decision === 'unauthorized') {
        // The session ended (request() cleared it): the write waits for this player's next login.
        op.attempts -= 1;
        await this.store.update(op);
        return;
      }
      await this.store.finish(op.id);
      await this.settle(op, { ok: false, error: error!, retrying: false }, 'rejected', undefined, error);
    }
  }

  private async send(op: QueuedOp, token: string): Promise<{ outcome: Outcome; row?: Row; error?: ManetteError }> {
    const base = `/tables/${encodeURIComponent(op.table)}`;
    try {
      let body: { data: Row };
      if (op.kind === 'insert') {
        body = await request<{ data: Row }>(this.t, 'POST', base, { body: { donnees: op.donnees ?? {} }, token, idempotencyKey: op.id });
      } else {
        const target = targetOf(op, await this.store.ids());
        if (!target) {
          const error = new ManetteError({ code: 'row_not_found', status: 404, message: this.t.lang === 'en' ? 'The row was never created.' : 'La ligne n’a jamais été créée.' });
          return { outcome: { status: 404, code: 'local_row_rejected' }, error };
        }
        const path = `${base}/${encodeURIComponent(target)}`;
        body = op.kind === 'update'
          ? await request<{ data: Row }>(this.t, 'PATCH', path, { body: { donnees: op.donnees ?? {} }, token, idempotencyKey: op.id })
          : await request<{ data: Row }>(this.t, 'DELETE', path, { token, idempotencyKey: op.id });
      }
      return { outcome: { status: 200 }, row: body.data };
    } catch (err) {
      const e = err instanceof ManetteError ? err : new ManetteError({ code: 'network_error', status: 0, message: String(err) });
      if (e.code === 'invalid_token') this.session.clear();
      return { outcome: { status: e.status, code: e.code }, error: e };
    }
  }

  private async settle(op: QueuedOp, s: Settled, type: SyncEvent['type'], row?: Row, error?: ManetteError) {
    const count = (await this.pending()).length;
    const event: SyncEvent = { type, op: publicOp(op), pending: count, ...(row ? { row } : {}), ...(error ? { error } : {}) };
    this.waiters.get(op.id)?.(s);
    this.emit(event, true, s);
  }

  private emit(event: SyncEvent, broadcast: boolean, settled?: Settled): void {
    for (const cb of [...this.listeners]) {
      try { cb(event); } catch (err) { reportAsync(err); }
    }
    if (broadcast) {
      try {
        this.channel?.postMessage({ event: serialisable(event), settled: settled && serialisableSettled(settled) });
      } catch { /* a tab closing */ }
    }
  }

  private onRemote(msg: { event: SyncEvent; settled?: Settled }): void {
    const event = revive(msg.event);
    const settled = msg.settled && (msg.settled.ok ? msg.settled : { ...msg.settled, error: revive({ ...msg.event, error: msg.settled.error }).error! });
    if (settled) this.waiters.get(event.op.id)?.(settled);
    this.emit(event, false);
  }

  private schedule(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => { this.timer = undefined; void this.pass(false); }, Math.max(50, ms));
  }
}

function publicOp(op: QueuedOp): PendingOp {
  return {
    id: op.id, kind: op.kind, table: op.table, row_id: op.kind === 'insert' ? op.localId ?? null : op.rowId ?? null,
    donnees: op.donnees ?? null, attempts: op.attempts, cree_le: new Date(op.createdAt).toISOString(),
  };
}

function serialisable(e: SyncEvent) {
  return { ...e, error: e.error?.toJSON() };
}
function serialisableSettled(s: Settled) {
  return s.ok ? s : { ...s, error: s.error.toJSON() };
}
function revive(e: SyncEvent): SyncEvent {
  if (!e.error || e.error instanceof ManetteError) return e;
  const j = e.error as unknown as ConstructorParameters<typeof ManetteError>[0];
  return { ...e, error: new ManetteError(j) };
}


// Without Web Locks: a lease in localStorage (owner and expiry), renewed while held. Two
// tabs may rarely both take an expired lease at once; each op's Idempotency-Key still
// keeps inserts single, and claim() counts attempts in IndexedDB.
const LEASE_MS = 5000;
const tabId = randomId();
async function withLease(name: string, fn: () => Promise<void>): Promise<void> {
  const ls = (() => { try { return typeof localStorage !== 'undefined' ? localStorage : undefined; } catch { return undefined; } })();
  if (!ls) return fn();
  const key = `${name}.lease`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const raw = ls.getItem(key);
    const lease = raw ? JSON.parse(raw) as { owner: string; until: number } : undefined;
    if (!lease || lease.until < Date.now() || lease.owner === tabId) break;
    if (Date.now() > deadline) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  ls.setItem(key, JSON.stringify({ owner: tabId, until: Date.now() + LEASE_MS }));
  const renew = setInterval(() => ls.setItem(key, JSON.stringify({ owner: tabId, until: Date.now() + LEASE_MS })), LEASE_MS / 2);
  try {
    await fn();
  } finally {
    clearInterval(renew);
    if (JSON.parse(ls.getItem(key) ?? 'null')?.owner === tabId) ls.removeItem(key);
  }
}
