// Where the offline queue lives: IndexedDB (shared by the game's tabs, survives reloads),
// or memory when IndexedDB is missing (private modes, Node). Every change is one
// readwrite transaction, so tabs never interleave a read-modify-write.
import { planEnqueue, type EnqueuePlan, type NewOp, type QueuedOp } from './queue.js';

export interface QueueStore {
  all(): Promise<QueuedOp[]>;
  enqueue(op: NewOp): Promise<EnqueuePlan>;
  /** Counts a send before it starts; returns the op as stored now, or undefined if gone. */
  claim(id: string): Promise<QueuedOp | undefined>;
  update(op: QueuedOp): Promise<void>;
  /** Removes an op (done or rejected); with `mapLocal`, records local id → server id. */
  finish(id: string, mapLocal?: [string, string]): Promise<void>;
  ids(): Promise<Map<string, string>>;
}

export function openQueueStore(name: string): QueueStore {
  if (typeof indexedDB === 'undefined') return new MemoryStore();
  return new IdbStore(name);
}

class MemoryStore implements QueueStore {
  private ops = new Map<string, QueuedOp>();
  private map = new Map<string, string>();
  async all() { return [...this.ops.values()].map((o) => ({ ...o })); }
  async enqueue(op: NewOp) {
    const plan = planEnqueue([...this.ops.values()], op);
    for (const id of plan.remove) this.ops.delete(id);
    for (const p of plan.put) this.ops.set(p.id, p);
    return plan;
  }
  async claim(id: string) {
    const op = this.ops.get(id);
    if (!op) return undefined;
    op.attempts += 1;
    return { ...op };
  }
  async update(op: QueuedOp) { if (this.ops.has(op.id)) this.ops.set(op.id, { ...op }); }
  async finish(id: string, mapLocal?: [string, string]) {
    this.ops.delete(id);
    if (mapLocal) this.map.set(mapLocal[0], mapLocal[1]);
  }
  async ids() { return new Map(this.map); }
}

const OPS = 'ops';
const IDS = 'ids';

class IdbStore implements QueueStore {
  private db: Promise<IDBDatabase> | undefined;
  constructor(private readonly name: string) {}

  private open(): Promise<IDBDatabase> {
    this.db ??= new Promise<IDBDatabase>((resolve, reject) => {
      const req = indexedDB.open(this.name, 1);
      req.onupgradeneeded = () => {
        req.result.createObjectStore(OPS, { keyPath: 'id' });
        req.result.createObjectStore(IDS);
      };
      req.onsuccess = () => {
        const db = req.result;
        // Another tab upgrading (a newer SDK): let it.
        db.onversionchange = () => { db.close(); this.db = undefined; };
        resolve(db);
      };
      req.onerror = () => { this.db = undefined; reject(req.error); };
      req.onblocked = () => { /* waits for other tabs; the open completes afterwards */ };
    });
    return this.db;
  }

  /** Runs `body` in one transaction; resolves with its result once the transaction committed. */
  private async tx<T>(stores: string[], mode: IDBTransactionMode, body: (t: IDBTransaction, done: (v: T) => void) => void): Promise<T> {
    const db = await this.open();
    return new Promise<T>((resolve, reject) => {
      const t = db.transaction(stores, mode);
      let value: T;
      t.oncomplete = () => resolve(value);
      t.onerror = () => reject(t.error);
      t.onabort = () => reject(t.error ?? new Error('transaction aborted'));
      body(t, (v) => { value = v; });
    });
  }

  all() {
    return this.tx<QueuedOp[]>([OPS], 'readonly', (t, done) => {
      const r = t.objectStore(OPS).getAll();
      r.onsuccess = () => done(r.result as QueuedOp[]);
    });
  }

  enqueue(op: NewOp) {
    return this.tx<EnqueuePlan>([OPS], 'readwrite', (t, done) => {
      const store = t.objectStore(OPS);
      const r = store.getAll();
      r.onsuccess = () => {
        const plan = planEnqueue(r.result as QueuedOp[], op);
        for (const id of plan.remove) store.delete(id);
        for (const p of plan.put) store.put(p);
        done(plan);
      };
    });
  }

  claim(id: string) {
    return this.tx<QueuedOp | undefined>([OPS], 'readwrite', (t, done) => {
      const store = t.objectStore(OPS);
      const r = store.get(id);
      r.onsuccess = () => {
        const op = r.result as QueuedOp | undefined;
        if (!op) return done(undefined);
        op.attempts += 1;
        store.put(op);
        done(op);
      };
    });
  }

  update(op: QueuedOp) {
    return this.tx<void>([OPS], 'readwrite', (t) => {
      const store = t.objectStore(OPS);
      const r = store.get(op.id);
      r.onsuccess = () => {
        // Keep a merge another tab made meanwhile: only the retry fields are ours.
        const current = r.result as QueuedOp | undefined;
        if (current) store.put({ ...current, attempts: op.attempts, notBefore: op.notBefore });
      };
    });
  }

  finish(id: string, mapLocal?: [string, string]) {
    return this.tx<void>([OPS, IDS], 'readwrite', (t) => {
      t.objectStore(OPS).delete(id);
      if (mapLocal) t.objectStore(IDS).put(mapLocal[1], mapLocal[0]);
    });
  }

  ids() {
    return this.tx<Map<string, string>>([IDS], 'readonly', (t, done) => {
      const store = t.objectStore(IDS);
      const map = new Map<string, string>();
      const r = store.openCursor();
      r.onsuccess = () => {
        const c = r.result;
        if (!c) return done(map);
        map.set(String(c.key), String(c.value));
        c.continue();
      };
    });
  }
}
