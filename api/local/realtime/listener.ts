// Database side of the local Realtime: realtime.send() (supabase-compat.sql)
// inserts into realtime.messages and NOTIFYs the row id on
// `realtime_local_broadcast`, which Postgres delivers only on commit. This
// stands in for Supabase's logical replication of realtime.messages
// (Realtime.Tenants.ReplicationConnection), which also only sees committed rows.
import pg from 'pg';

export const NOTIFY_CHANNEL = 'realtime_local_broadcast';
const CLEANUP_EVERY_MS = 10 * 60_000;
const BACKOFF_MIN_MS = 250;
const BACKOFF_MAX_MS = 10_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface MessageRow {
  id: string; topic: string; event: string | null; private: boolean | null;
  /** jsonb as text, forwarded verbatim. */
  payload: string | null;
}
export type Log = (level: 'info' | 'warn' | 'error', msg: string, extra?: object) => void;

export interface BroadcastListener { close(): Promise<void> }

/**
 * LISTENs with one dedicated connection, fetches each notified row and hands
 * the rows to onRows in commit/notification order. Reconnects with backoff if
 * the connection drops; the first connection must succeed (bad URL = error).
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
  const queue: string[] = [];

  async function connect(): Promise<void> {
    const c = new pg.Client({ connectionString: opts.databaseUrl, application_name: 'manette_local_realtime', keepAlive: true });
    c.on('error', (err) => dropped(c, err));
    c.on('end', () => dropped(c));
    c.on('notification', (n) => {
      if (n.channel !== NOTIFY_CHANNEL || !n.payload) return;
      if (!UUID.test(n.payload)) return log('warn', 'realtime: ignoring a notification that is not a message id', { payload: n.payload });
      queue.push(n.payload);
      void drain();
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${NOTIFY_CHANNEL}`);
    } catch (err) {
      await c.end().catch(() => {}); // never became `client`, so dropped() ignores it
      throw err;
    }
    if (closed) { await c.end().catch(() => {}); return; }
    client = c;
    attempt = 0;
    void drain(); // ids queued before a drop
  }

  function dropped(c: pg.Client, err?: Error): void {
    if (client !== c) return;
    client = null;
    c.end().catch(() => {});
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
  // (e.g. two realtime.send in one transaction arrive in call order).
  async function drain(): Promise<void> {
    if (draining) return;
    draining = true;
    try {
      while (queue.length > 0 && client) {
        const c = client;
        const ids = queue.splice(0, 200);
        let rows: MessageRow[];
        try {
          const res = await c.query<MessageRow>(
            `select id::text as id, topic, event, private, payload::text as payload
               from realtime.messages where id = any($1::uuid[])`, [ids]);
          const byId = new Map(res.rows.map((r) => [r.id, r]));
          rows = ids.flatMap((id) => byId.get(id) ?? []);
        } catch (err) {
          if (client !== c) { queue.unshift(...ids); break; } // connection lost: retry after reconnect
          log('error', 'realtime: could not read realtime.messages', { error: (err as Error).message });
          continue;
        }
        try { opts.onRows(rows); } catch (err) { log('error', 'realtime: delivering messages failed', { error: (err as Error).message }); }
      }
    } finally {
      draining = false;
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

  return {
    async close() {
      closed = true;
      clearInterval(cleanupTimer);
      if (reconnectTimer) clearTimeout(reconnectTimer);
      const c = client;
      client = null;
      if (c) await c.end().catch(() => {});
    },
  };
}
