// Database side of the local Realtime: realtime.send() (twin/postgres/provision)
// inserts into realtime.messages and NOTIFYs the row id on
// `realtime_local_broadcast`, which Postgres delivers only on commit. This
// stands in for Supabase's logical replication of realtime.messages
// (Realtime.Tenants.ReplicationConnection), which also only sees committed rows
// and, being a replication slot, resumes where it stopped after a disconnection.
// NOTIFYs sent while the LISTEN connection is down are lost, so after a
// reconnection the listener reads what was committed meanwhile (catch-up).
import pg from 'pg';

export const NOTIFY_CHANNEL = 'realtime_local_broadcast';
const CLEANUP_EVERY_MS = 10 * 60_000;
const BACKOFF_MIN_MS = 250;
const BACKOFF_MAX_MS = 2_000;
/** The periodic cheap query: it advances the catch-up floor and detects a dead or frozen connection. */
const PROBE_EVERY_MS = 5_000;
const QUERY_TIMEOUT_MS = 10_000;
/**
 * Catch-up margin: rows whose inserted_at is at most this much older than the last
 * database time seen while connected are read again after a reconnection (a
 * transaction in flight at the drop commits rows stamped before it).
 */
const CATCH_UP_MARGIN_US = 60_000_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface MessageRow {
  id: string; topic: string; event: string | null; private: boolean | null;
  /** jsonb as text, forwarded verbatim. */
  payload: string | null;
}
export type Log = (level: 'info' | 'warn' | 'error', msg: string, extra?: object) => void;

export interface BroadcastListener { close(): Promise<void> }

/** Not an error of the statement but of the connection: network, timeout, server shutting down. */
const connectionError = (err: unknown): boolean =>
  !(err instanceof pg.DatabaseError) || /^(08|57P)/.test(err.code ?? '');

// Timestamps are compared as microseconds since the epoch of the `timestamp` values
// (inserted_at and localtimestamp, both in the server's time zone).
const EPOCH_US = (expr: string) => `(extract(epoch from ${expr}) * 1000000)::float8`;

/**
 * LISTENs with one dedicated connection, fetches each notified row and hands
 * the rows to onRows in commit/notification order. Reconnects with backoff if
 * the connection drops (or stops answering), then delivers the committed rows
 * it missed, each row exactly once; the first connection must succeed (bad URL = error).
 */
export async function startBroadcastListener(opts: {
  databaseUrl: string; onRows: (rows: MessageRow[]) => void; log: Log;
}): Promise<BroadcastListener> {
  const { log } = opts;
  let client: pg.Client | null = null;
  let closed = false;
  let attempt = 0;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let draining = false;
  /** Ids to fetch and deliver, in order; `queued` mirrors it (plus the batch being fetched). */
  const queue: string[] = [];
  const queued = new Set<string>();
  /** Ids delivered whose inserted_at (µs) is >= floor: a row is never delivered twice. */
  const delivered = new Map<string, number>();
  /** Catch-up floor (µs): the last database time seen while connected, minus the margin. */
  let floor: number | undefined;
  /** While a reconnection reads what it missed, notifications wait here (they are newer). */
  let held: string[] | null = null;

  function enqueue(ids: Iterable<string>): void {
    for (const id of ids) {
      if (queued.has(id) || delivered.has(id)) continue;
      queued.add(id);
      queue.push(id);
    }
  }

  /** The database time moved on: raise the floor and forget deliveries below it. */
  function observed(dbNowUs: number): void {
    const next = dbNowUs - CATCH_UP_MARGIN_US;
    if (floor !== undefined && next <= floor) return;
    floor = next;
    // Roughly in inserted_at order (delivery order): stop at the first recent one. A
    // straggler stays a little longer, which only costs memory until its turn comes.
    for (const [id, at] of delivered) {
      if (at >= next) break;
      delivered.delete(id);
    }
  }

  async function connect(): Promise<void> {
    const c = new pg.Client({
      connectionString: opts.databaseUrl, application_name: 'manette_local_realtime', keepAlive: true,
      connectionTimeoutMillis: QUERY_TIMEOUT_MS, query_timeout: QUERY_TIMEOUT_MS,
    });
    c.on('error', (err) => dropped(c, err));
    c.on('end', () => dropped(c));
    c.on('notification', (n) => {
      if (n.channel !== NOTIFY_CHANNEL || !n.payload) return;
      if (!UUID.test(n.payload)) return log('warn', 'realtime: ignoring a notification that is not a message id', { payload: n.payload });
      if (held) return void held.push(n.payload);
      enqueue([n.payload]);
      void drain();
    });
    const reconnecting = floor !== undefined;
    try {
      await c.connect();
      await c.query(`LISTEN ${NOTIFY_CHANNEL}`);
      if (reconnecting) {
        // LISTEN first, then read what was committed since the floor: nothing falls in between.
        held = [];
        const res = await c.query<{ id: string; at: number }>(
          `select id::text as id, ${EPOCH_US('inserted_at')} as at from realtime.messages
            where inserted_at >= to_timestamp($1::float8 / 1000000) at time zone 'UTC'
            order by inserted_at, id`, [floor]);
        enqueue(res.rows.map((r) => r.id));
        const missed = queue.length;
        if (missed > 0) log('info', 'realtime: catching up on realtime.messages committed while disconnected', { candidates: missed });
      }
      const now = await c.query<{ now: number }>(`select ${EPOCH_US('localtimestamp')} as now`);
      observed(Number(now.rows[0]!.now));
    } catch (err) {
      held = null;
      await endClient(c); // never became `client`, so dropped() ignores it
      throw err;
    }
    if (held) { enqueue(held); held = null; }
    if (closed) { await endClient(c); return; }
    client = c;
    attempt = 0;
    void drain(); // ids queued before a drop, and the catch-up
  }

  /** Ends a client without waiting on a frozen server: the socket is destroyed if end() hangs. */
  async function endClient(c: pg.Client): Promise<void> {
    const stream = (c as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      c.end().catch(() => {}),
      new Promise<void>((resolve) => { timer = setTimeout(() => { stream?.destroy(); resolve(); }, 2_000); timer.unref(); }),
    ]);
    clearTimeout(timer);
  }

  function dropped(c: pg.Client, err?: Error): void {
    if (client !== c) return;
    client = null;
    void endClient(c);
    if (closed) return;
    log('warn', 'realtime: LISTEN connection lost, reconnecting', { error: err?.message });
    scheduleReconnect();
  }

  function scheduleReconnect(): void {
    const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** attempt) * (0.75 + Math.random() / 2);
    attempt++;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      connect().then(
        () => { if (!closed) log('info', 'realtime: LISTEN connection re-established'); },
        (err: Error) => {
          if (closed) return;
          log('warn', 'realtime: reconnecting the LISTEN connection failed', { error: err.message, attempt });
          scheduleReconnect();
        },
      );
    }, delay);
    reconnectTimer.unref();
  }

  // One fetch at a time, so rows reach subscribers in notification order
  // (e.g. two realtime.send in one transaction arrive in call order), the
  // caught-up rows in inserted_at order before newer notifications.
  async function drain(): Promise<void> {
    if (draining) return;
    draining = true;
    try {
      while (queue.length > 0 && client) {
        const c = client;
        const ids = queue.splice(0, 200);
        let rows: Array<MessageRow & { at: number }>;
        let dbNow: number;
        try {
          const res = await c.query<MessageRow & { at: number; now: number }>(
            `select id::text as id, topic, event, private, payload::text as payload,
                    ${EPOCH_US('inserted_at')} as at, ${EPOCH_US('localtimestamp')} as now
               from realtime.messages where id = any($1::uuid[])`, [ids]);
          const byId = new Map(res.rows.map((r) => [r.id, r]));
          rows = ids.flatMap((id) => byId.get(id) ?? []);
          dbNow = res.rows.length > 0 ? Number(res.rows[0]!.now) : NaN;
        } catch (err) {
          // Connection lost (or frozen: query_timeout): retry these ids after the reconnection.
          if (client !== c || connectionError(err)) {
            queue.unshift(...ids);
            if (client === c) dropped(c, err as Error);
            break;
          }
          for (const id of ids) queued.delete(id);
          log('error', 'realtime: could not read realtime.messages', { error: (err as Error).message });
          continue;
        }
        for (const id of ids) queued.delete(id);
        for (const r of rows) delivered.set(r.id, Number(r.at));
        if (!Number.isNaN(dbNow)) observed(dbNow);
        const out: MessageRow[] = rows.map(({ id, topic, event, private: p, payload }) => ({ id, topic, event, private: p, payload }));
        try { opts.onRows(out); } catch (err) { log('error', 'realtime: delivering messages failed', { error: (err as Error).message }); }
      }
    } finally {
      draining = false;
    }
  }

  /** The periodic query: database time (for the floor), and a connection that does not answer is replaced. */
  async function probe(): Promise<void> {
    const c = client;
    if (!c) return;
    try {
      const res = await c.query<{ now: number }>(`select ${EPOCH_US('localtimestamp')} as now`);
      observed(Number(res.rows[0]!.now));
    } catch (err) {
      if (client === c) dropped(c, err as Error); // query_timeout: frozen connection
    }
  }

  // Delivery happens right after commit, so rows older than an hour are done
  // with. (Supabase drops whole daily partitions of realtime.messages instead.)
  async function cleanup(): Promise<void> {
    const c = client;
    if (!c) return;
    try {
      const res = await c.query(`delete from realtime.messages where inserted_at < localtimestamp - interval '1 hour'`);
      if (res.rowCount) log('info', 'realtime: deleted old realtime.messages rows', { count: res.rowCount });
    } catch (err) {
      if (client === c) log('warn', 'realtime: cleaning realtime.messages failed', { error: (err as Error).message });
    }
  }

  await connect();
  void cleanup();
  const cleanupTimer = setInterval(() => void cleanup(), CLEANUP_EVERY_MS);
  cleanupTimer.unref();
  const probeTimer = setInterval(() => void probe(), PROBE_EVERY_MS);
  probeTimer.unref();

  return {
    async close() {
      closed = true;
      clearInterval(cleanupTimer);
      clearInterval(probeTimer);
      if (reconnectTimer) clearTimeout(reconnectTimer);
      const c = client;
      client = null;
      if (c) await endClient(c);
    },
  };
}
