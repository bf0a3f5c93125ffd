// Database side of the local Realtime, as Supabase Realtime reads a project
// (supabase/realtime Realtime.Tenants.ReplicationConnection): logical replication of
// realtime.messages with pgoutput (protocol 2, binary tuples), through the publication
// `supabase_realtime_messages_publication` FOR TABLE realtime.messages (created, or
// recreated when it holds other tables), on a TEMPORARY slot created by the replication
// connection itself. So only committed rows are seen, in commit order, and a row committed
// while the connection is down is never delivered: the new slot starts at the WAL position
// of its creation (at-most-once across reconnects, no catch-up), as on Supabase.
//
// `catch-up` (MANETTE_REALTIME_DELIVERY=catch-up) is kinder than Supabase, for local work
// only: a permanent slot (created at start, dropped at close) survives lost connections, so
// rows committed meanwhile are delivered after the reconnection, once each, in order.
//
// Like Realtime's Connect and Janitor, it also keeps the daily partitions of
// realtime.messages: yesterday to three days ahead at every (re)connection and every four
// hours, and partitions older than 72 hours dropped (Realtime.Messages.delete_old_messages).
import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { LogicalReplicationService, PgoutputPlugin, type Pgoutput } from 'pg-logical-replication';
import { ensureMessagePartitions } from '../postgres/provision.js';
import type { Log } from './log.js';

export type Delivery = 'hosted' | 'catch-up';

/** A committed realtime.messages row, as ReplicationConnection hands it to the broadcast. */
export interface DatabaseMessage {
  id: string; topic: string; event: string; private: boolean;
  /** `payload` (jsonb text, verbatim) or, when set, `binary_payload` (bytea). */
  encoding: 'json' | 'binary'; payload: Buffer;
  /** Its transaction's commit time (epoch ms, from pgoutput's Begin), for the benchmarks' per-stage timing. */
  committedAt?: number;
}

export interface Replication {
  /** Whether the stream is up now. */
  readonly streaming: boolean;
  close(): Promise<void>;
}

export const PUBLICATION = 'supabase_realtime_messages_publication';
const SLOT_PREFIX = 'supabase_realtime_messages_replication_slot_';
/** Realtime's application_name for this connection. */
export const REPLICATION_APPLICATION_NAME = 'realtime_replication_connection';
const JANITOR_APPLICATION_NAME = 'realtime_janitor';
const BACKOFF_MIN_MS = 250;
const BACKOFF_MAX_MS = 2_000;
const CONNECT_TIMEOUT_MS = 10_000;
/** A status update asking for a reply goes out this often; a server silent for SILENT_MS is dropped. */
const PING_EVERY_MS = 5_000;
const SILENT_MS = 20_000;
/** Janitor: Realtime's JANITOR_SCHEDULE_TIMER_IN_MS default; messages are kept 72 h. */
const JANITOR_EVERY_MS = 4 * 3_600_000;
const KEEP_HOURS = 72;

const lsnOf = (lsn: string | null | undefined): bigint => {
  if (!lsn) return 0n;
  const [hi = '0', lo = '0'] = lsn.split('/');
  return (BigInt(`0x${hi}`) << 32n) | BigInt(`0x${lo}`);
};
/** Postgres's epoch (2000-01-01 UTC), for the status updates' clock. */
const PG_EPOCH_MS = Date.UTC(2000, 0, 1);

/** The slot's name: Realtime's, with a suffix of this stand-in (slot names are cluster-wide). */
function slotName(delivery: Delivery, database: string): string {
  // catch-up: one per database (a leftover of a crash is found again); hosted: one per run.
  return SLOT_PREFIX + (delivery === 'catch-up'
    ? `c${createHash('sha256').update(database).digest('hex').slice(0, 12)}`
    : `m${randomBytes(5).toString('hex')}`);
}

/** pgoutput with `binary 'true'`: the column values are the types' binary send format. */
function decodeRow(row: Record<string, Buffer | null>): DatabaseMessage | { missing: string } {
  const text = (b: Buffer | null | undefined) => (b ? b.toString('utf8') : null);
  const id = row.id ?? null;
  const topic = text(row.topic);
  const event = text(row.event);
  const priv = row.private ?? null;
  // ReplicationConnection.handle_message(Insert): these are required, in this order.
  if (!row.inserted_at) return { missing: 'inserted_at_missing' };
  if (event === null) return { missing: 'event_missing' };
  if (!id || id.length !== 16) return { missing: 'id_missing' };
  if (topic === null) return { missing: 'topic_missing' };
  if (!priv) return { missing: 'private_missing' };
  const hex = id.toString('hex');
  const uuid = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  const base = { id: uuid, topic, event, private: priv[0] === 1 };
  // pick_payload: binary_payload wins; jsonb's binary format is a version byte (1), then the text.
  if (row.binary_payload) return { ...base, encoding: 'binary', payload: row.binary_payload };
  if (row.payload) return { ...base, encoding: 'json', payload: row.payload.subarray(1) };
  return { missing: 'payload_missing' };
}

/** The replication client's socket, to cut a connection that no longer answers. */
const socketOf = (c: pg.Client | undefined) => (c as unknown as { connection?: { stream?: { destroy(): void } } } | undefined)?.connection?.stream;

/**
 * Starts reading realtime.messages. The first connection must succeed (a bad URL, a role
 * that may not replicate or own the publication, or wal_level below logical are errors);
 * later ones are retried with backoff for as long as it runs.
 */
export async function startReplication(opts: {
  databaseUrl: string; delivery: Delivery; log: Log; onMessage: (m: DatabaseMessage) => void;
}): Promise<Replication> {
  const { log, delivery } = opts;
  const database = decodeURIComponent(new URL(opts.databaseUrl).pathname.slice(1)) || 'postgres';
  const slot = slotName(delivery, database);
  const clientConfig = {
    connectionString: opts.databaseUrl, application_name: REPLICATION_APPLICATION_NAME,
    keepAlive: true, connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  };
  let closed = false;
  let streaming = false;
  let attempt = 0;
  let everConnected = false;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let service: LogicalReplicationService | undefined;
  let client: pg.Client | undefined;
  let lastHeard = 0;
  // Positions: the end of the last commit seen, the server's WAL end from its keepalives.
  let commitEnd = 0n;
  let walEnd = 0n;
  // Delivery bookkeeping (matters with a permanent slot, which may send a transaction again
  // after a reconnection): the last transaction delivered whole, the one in progress.
  let done = 0n;
  let partial: { commit: bigint; count: number } | undefined;
  let txn: { commit: bigint; index: number; skip: number; at: number } | undefined;

  /** One connection of its own for the janitor's work (partitions), like Realtime's. */
  async function withAdmin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
    const c = new pg.Client({ connectionString: opts.databaseUrl, application_name: JANITOR_APPLICATION_NAME, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    c.on('error', () => {});
    await c.connect();
    try {
      return await fn(c);
    } finally {
      await c.end().catch(() => {});
    }
  }

  /** Realtime.Messages.delete_old_messages, then Realtime.Tenants.create_messages_partitions. */
  async function janitor(): Promise<void> {
    await withAdmin(async (c) => {
      const { rows } = await c.query<{ relname: string }>(
        `select child.relname from pg_inherits
           join pg_class parent on pg_inherits.inhparent = parent.oid
           join pg_class child on pg_inherits.inhrelid = child.oid
           join pg_namespace n on n.oid = child.relnamespace
          where parent.relname = 'messages' and n.nspname = 'realtime'`);
      const limit = new Date(Date.now() - KEEP_HOURS * 3_600_000).toISOString().slice(0, 10);
      for (const { relname } of rows) {
        const m = /^messages_(\d{4})_(\d{2})_(\d{2})$/.exec(relname);
        if (m && `${m[1]}-${m[2]}-${m[3]}` < limit) {
          await c.query(`drop table if exists realtime.${c.escapeIdentifier(relname)}`);
          log('info', 'realtime: dropped a realtime.messages partition older than 72 hours', { partition: relname });
        }
      }
      await ensureMessagePartitions(c);
    });
  }
  const runJanitor = () => janitor().catch((err: Error) => log('error', `realtime: PartitionCreationFailed: ${err.message}`));

  /** What the plugin runs on the replication connection before START_REPLICATION (Realtime's steps). */
  async function setUp(c: pg.Client): Promise<void> {
    const q = (sql: string) => c.query(sql);
    const existing = await q(`SELECT active FROM pg_replication_slots WHERE slot_name = '${slot}'`);
    if (delivery === 'hosted' && existing.rows.length > 0) throw new Error(`replication slot ${slot} already exists and is in use`);
    if (delivery === 'catch-up' && existing.rows[0]?.active === true) throw new Error(`replication slot ${slot} is in use by another connection`);
    const pub = await q(`SELECT 1 FROM pg_publication WHERE pubname = '${PUBLICATION}'`);
    if (pub.rows.length === 0) {
      await q(`CREATE PUBLICATION ${PUBLICATION} FOR TABLE realtime.messages`);
    } else {
      const tables = await q(`SELECT schemaname, tablename FROM pg_publication_tables WHERE pubname = '${PUBLICATION}'`);
      const valid = tables.rows.length > 0 && tables.rows.every((r: { schemaname: string; tablename: string }) =>
        r.schemaname === 'realtime' && (r.tablename === 'messages' || r.tablename.startsWith('messages_')));
      if (!valid) {
        log('warn', `realtime: publication ${PUBLICATION} contains unexpected tables, recreating it`);
        await q(`DROP PUBLICATION IF EXISTS ${PUBLICATION}; CREATE PUBLICATION ${PUBLICATION} FOR TABLE realtime.messages`);
      }
    }
    if (delivery === 'hosted') await q(`CREATE_REPLICATION_SLOT ${slot} TEMPORARY LOGICAL pgoutput NOEXPORT_SNAPSHOT`);
    else if (existing.rows.length === 0) await q(`CREATE_REPLICATION_SLOT ${slot} LOGICAL pgoutput NOEXPORT_SNAPSHOT`);
  }

  class RealtimeMessagesPlugin extends PgoutputPlugin {
    constructor() { super({ protoVersion: 2, publicationNames: [PUBLICATION] }); }
    override async start(c: pg.Client, name: string): Promise<unknown> {
      client = c;
      await setUp(c);
      // From the slot's own position (0/0): its creation for a temporary slot.
      return c.query(`START_REPLICATION SLOT ${name} LOGICAL 0/0 (proto_version '2', publication_names '${PUBLICATION}', binary 'true')`);
    }
  }

  /** The position the server may forget up to: never inside a transaction being received. */
  const safePosition = () => (txn ? commitEnd : (walEnd > commitEnd ? walEnd : commitEnd));
  /**
   * A Standby Status Update ('r') confirming exactly `safePosition()` as written, flushed and
   * applied, as a logical replication consumer does (Postgres's own apply worker, Realtime):
   * a commit's end LSN and a keepalive's WAL end are already "the last byte + 1", so that
   * position is the one processed. Not pg-logical-replication's acknowledge(), which adds 1:
   * confirming one past what the server has sent, its walsender never sees itself caught up
   * (WalSndDone wants the confirmed position to equal the sent one) and a fast shutdown of
   * the database never finishes while this connection is up.
   */
  const acknowledge = (ping = false) => {
    if (!service || !streaming) return;
    const connection = (client as unknown as { connection?: { sendCopyFromChunk(b: Buffer): void } } | undefined)?.connection;
    if (!connection) return;
    const position = safePosition();
    const update = Buffer.alloc(34);
    update.write('r', 0, 'latin1');
    update.writeBigUInt64BE(position, 1); // written
    update.writeBigUInt64BE(position, 9); // flushed
    update.writeBigUInt64BE(position, 17); // applied
    update.writeBigInt64BE(BigInt(Date.now() - PG_EPOCH_MS) * 1000n, 25); // microseconds since 2000-01-01
    update.writeUInt8(ping ? 1 : 0, 33);
    try {
      connection.sendCopyFromChunk(update);
    } catch { /* the connection is going away: it reconnects */ }
  };

  /**
   * The commits of one read from the socket confirmed by one status update, once they are all
   * handled (setImmediate): the same positions as one update per commit, a write and a reply
   * for the walsender to process fewer under load. A redelivery after a reconnection is
   * still ruled out by `done` (catch-up); a temporary slot (hosted) is gone with its connection.
   */
  let ackScheduled = false;
  const acknowledgeSoon = () => {
    if (ackScheduled) return;
    ackScheduled = true;
    setImmediate(() => { ackScheduled = false; acknowledge(); });
  };

  function onData(_lsn: string, msg: Pgoutput.Message): void {
    lastHeard = Date.now();
    switch (msg.tag) {
      case 'begin': {
        const commit = lsnOf(msg.commitLsn);
        const skip = commit <= done ? Number.POSITIVE_INFINITY : partial?.commit === commit ? partial.count : 0;
        txn = { commit, index: 0, skip, at: Number(msg.commitTime) / 1000 };
        partial = { commit, count: Number.isFinite(skip) ? skip : 0 };
        return;
      }
      case 'insert': {
        const rel = msg.relation;
        // Only realtime.messages and its partitions (Realtime ignores other relations).
        if (rel.schema !== 'realtime' || !rel.name.startsWith('messages')) return;
        if (txn) {
          txn.index++;
          if (txn.index <= txn.skip) return;
          if (partial) partial.count = txn.index;
        }
        const decoded = decodeRow(msg.new as Record<string, Buffer | null>);
        if ('missing' in decoded) return log('error', `realtime: UnableToBroadcastChanges: :${decoded.missing}`);
        if (txn) decoded.committedAt = txn.at;
        try {
          opts.onMessage(decoded);
        } catch (err) {
          log('error', `realtime: UnableToBroadcastChanges: ${(err as Error).message}`);
        }
        return;
      }
      case 'commit': {
        const end = lsnOf(msg.commitEndLsn);
        if (end > commitEnd) commitEnd = end;
        if (txn && txn.commit > done) done = txn.commit;
        txn = undefined;
        partial = undefined;
        acknowledgeSoon();
        return;
      }
      default:
        return;
    }
  }

  /** One replication connection; resolves once streaming, and calls `ended` when it stops. */
  function connect(): Promise<void> {
    const s = new LogicalReplicationService(clientConfig, { acknowledge: { auto: false, timeoutSeconds: 0 } });
    service = s;
    txn = undefined;
    return new Promise<void>((resolve, reject) => {
      let started = false;
      s.on('error', () => { /* the subscription's promise reports it */ });
      s.on('data', onData);
      s.on('heartbeat', (lsn: string, _at: number, reply: boolean) => {
        lastHeard = Date.now();
        const end = lsnOf(lsn);
        if (end > walEnd) walEnd = end;
        if (reply) acknowledge();
      });
      s.on('start', () => {
        started = true;
        streaming = true;
        lastHeard = Date.now();
        resolve();
      });
      s.subscribe(new RealtimeMessagesPlugin(), slot).then(
        () => ended(s),
        (err: Error) => {
          if (!started) {
            void stopService(s);
            if (service === s) service = undefined;
            reject(err);
          } else ended(s, err);
        },
      );
    });
  }

  /** Stops a service without waiting on a server that does not answer. */
  async function stopService(s: LogicalReplicationService): Promise<void> {
    const c = client;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      s.stop().then(() => undefined, () => undefined),
      new Promise<void>((resolve) => { timer = setTimeout(() => { socketOf(c)?.destroy(); resolve(); }, 2_000); timer.unref(); }),
    ]);
    clearTimeout(timer);
  }

  function ended(s: LogicalReplicationService, err?: Error): void {
    if (service !== s) return;
    service = undefined;
    streaming = false;
    client = undefined;
    void stopService(s);
    if (closed) return;
    log('warn', 'realtime: replication connection lost, reconnecting', { error: err?.message });
    scheduleReconnect();
  }

  function scheduleReconnect(): void {
    const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** attempt) * (0.75 + Math.random() / 2);
    attempt++;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      if (closed) return;
      connect().then(
        () => {
          attempt = 0;
          if (closed) return;
          log('info', delivery === 'hosted'
            ? 'realtime: replication connection re-established (rows committed meanwhile are not delivered, as on Supabase)'
            : 'realtime: replication connection re-established (catch-up: rows committed meanwhile follow)');
          void runJanitor();
        },
        (err: Error) => {
          if (closed) return;
          log('warn', 'realtime: reconnecting the replication connection failed', { error: err.message, attempt });
          scheduleReconnect();
        },
      );
    }, delay);
    reconnectTimer.unref();
  }

  // Before the first connection: the database must allow logical replication, and a catch-up
  // slot left by a run that did not close is replaced (a hosted run removes it: it would keep
  // WAL forever).
  await withAdmin(async (c) => {
    const level = (await c.query<{ wal_level: string }>('show wal_level')).rows[0]?.wal_level;
    if (level !== 'logical') throw new Error(`wal_level is ${level}: Realtime reads realtime.messages by logical replication (wal_level = logical)`);
    const leftover = slotName('catch-up', database);
    await c.query(`select pg_drop_replication_slot(slot_name) from pg_replication_slots where slot_name = $1 and not active`, [leftover]);
  }).catch((err: Error) => { throw new Error(`the local Realtime cannot read realtime.messages: ${err.message}`); });
  await janitor().catch((err: Error) => { throw new Error(`the local Realtime cannot keep the partitions of realtime.messages: ${err.message}`); });
  try {
    await connect();
  } catch (err) {
    throw new Error(`the local Realtime cannot read realtime.messages by logical replication: ${(err as Error).message}`);
  }
  everConnected = true;

  // Liveness: a status update asking for a reply; a server that stays silent is cut.
  const pingTimer = setInterval(() => {
    if (!streaming) return;
    if (Date.now() - lastHeard > SILENT_MS) {
      log('warn', 'realtime: the replication connection stopped answering, reconnecting');
      socketOf(client)?.destroy();
      return;
    }
    acknowledge(true);
  }, PING_EVERY_MS);
  pingTimer.unref();
  const janitorTimer = setInterval(() => void runJanitor(), JANITOR_EVERY_MS);
  janitorTimer.unref();

  return {
    get streaming() { return streaming && everConnected; },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(pingTimer);
      clearInterval(janitorTimer);
      if (reconnectTimer) clearTimeout(reconnectTimer);
      acknowledge(); // the last commits handled, if their update is still scheduled
      const s = service;
      service = undefined;
      streaming = false;
      if (s) await stopService(s);
      // Returns once the slot is gone: a temporary one when its walsender has exited; the
      // permanent one of catch-up is dropped (it would keep WAL forever otherwise).
      await withAdmin(async (c) => {
        for (let i = 0; i < 50; i++) {
          if (delivery === 'catch-up') {
            await c.query('select pg_drop_replication_slot(slot_name) from pg_replication_slots where slot_name = $1 and not active', [slot]);
          }
          if ((await c.query('select 1 from pg_replication_slots where slot_name = $1', [slot])).rows.length === 0) return;
          await new Promise((r) => setTimeout(r, 100));
        }
      }).catch(() => {});
    },
  };
}
