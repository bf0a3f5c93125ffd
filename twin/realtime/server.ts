// Local stand-in for Supabase Realtime (broadcast + presence) used by the
// embedded stack: the Phoenix WebSocket protocol at /realtime/v1/websocket
// (vsn 1.0.0 JSON objects, vsn 2.0.0 JSON arrays + binary broadcasts), so that
// the unmodified @supabase/realtime-js and hand-written game clients work;
// delivery of realtime.send() rows read by logical replication as Supabase does
// (replication.ts); channel authorization by the RLS policies on realtime.messages,
// with JWTs signed with the tenant's jwt_secret or one of its JWT signing keys
// (jwt_jwks); and a plan's quotas (quotas.ts).
import { createServer, STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { createAuthorizer } from './authorization.js';
import { Hub } from './hub.js';
import { listen } from '../../api/http/node-server.js';
import { authorizeToken, handshakeError, looksLikeJwt, type TenantJwk, type TenantKeys } from './jwt.js';
import type { ProjectKeys } from './project-keys.js';
import type { Log } from './log.js';
import { negotiateVsn, type Vsn } from './protocol.js';
import { PLANS, payloadLimitBytes, quotasFrom, type QuotaSettings, type Quotas } from './quotas.js';
import { startReplication, type DatabaseMessage, type Delivery } from './replication.js';
import { appendFileSync } from 'node:fs';
import type { DeliveryFaults } from './faults.js';
import { monthlyQuotaFrom, MonthlyUsage } from './usage.js';
import type { PrivateOnly } from './hub.js';

export interface LocalRealtimeOptions {
  port: number;
  host?: string;
  /**
   * The project database as Realtime connects to it: a role that may replicate and owns (or
   * is superuser over) realtime.messages, for the publication, the slot and the partitions:
   * the twin's `adminUrl` (supabase_admin), as hosted Realtime connects as a superuser.
   */
  databaseUrl: string;
  /**
   * The tenant's `jwt_secret` (HS256/384/512, the string's UTF-8 bytes as the key): it
   * verifies the tokens of channel joins and access_token messages, a socket apikey that
   * is a JWT, and the service_role token the HTTP broadcast endpoint requires.
   */
  jwtSecret?: string;
  /**
   * The tenant's `jwt_jwks` ({keys: [JWK, ...]}): on a hosted project, the public parts of
   * its JWT signing keys. A token with a `kid` and an RS*, ES* or EdDSA alg is verified by
   * the key of that kid (twin/realtime/jwt.ts says which). Default: none (secret only).
   */
  jwtJwks?: { keys: TenantJwk[] };
  /**
   * Decides on an `apikey` (query parameter or x-api-key header) that is not a JWT
   * verified with jwtSecret (those are always accepted). Default: any non-empty key.
   */
  authorize?: (apikey: string | undefined) => boolean | Promise<boolean>;
  /**
   * A project's API keys and JWT signing keys with their states (./project-keys.ts), in
   * place of jwtSecret, jwtJwks and authorize: tokens are verified with the keys the
   * project trusts at that moment (current and previously used; not standby, not revoked),
   * and a socket's apikey goes through the project's gateway (its publishable key; a
   * legacy JWT key only while legacy API keys are enabled).
   */
  project?: ProjectKeys;
  /** The project's quotas. Default: the Free plan's. */
  quotas?: Quotas;
  /**
   * The month's Realtime messages past which the tenant is suspended until the next month
   * (usage.ts), or undefined: counted, never refused. Messages are counted either way.
   */
  monthlyQuota?: number;
  /** The tenant of the month's count in `_realtime.usage_monthly`. Default `local`. */
  usageTenant?: string;
  /** The clock of the month's count (tests). */
  clock?: () => Date;
  /** Which public joins get the private-only error. Default `manette` (Manette's topics). */
  privateOnly?: PrivateOnly;
  /** `hosted` (default): what is committed while the replication connection is down is lost; `catch-up`: delivered later. */
  delivery?: Delivery;
  log?: (level: 'info' | 'warn' | 'error', msg: string, extra?: object) => void;
  /** Tests only: committed broadcasts to drop (twin/realtime/faults.ts). */
  faults?: DeliveryFaults;
  /**
   * Benchmarks only: the timing of each committed row (deliveryTrace). Default: the file named
   * by MANETTE_REALTIME_TRACE if set (bench/match.ts sets it), else none.
   */
  trace?: DeliveryTrace;
}

/** Per-stage timing of the committed rows, for the benchmarks (bench/match.ts). */
export interface DeliveryTrace {
  add(m: DatabaseMessage, receivedAt: number, sentAt: number): void;
  close(): void;
}

/**
 * A tab-separated line per committed row, appended to `file` every 200 ms: topic, event,
 * numero_tour (read from the payload, or empty), then epoch milliseconds (µs precision) of
 * the transaction's commit (pgoutput's Begin), of its arrival here (decoded), and of its
 * frames handed to the subscribers' sockets.
 */
export function deliveryTrace(file: string): DeliveryTrace {
  let lines: string[] = [];
  const flush = () => {
    if (lines.length === 0) return;
    appendFileSync(file, lines.join(''));
    lines = [];
  };
  const timer = setInterval(flush, 200);
  timer.unref();
  return {
    add(m, receivedAt, sentAt) {
      // The partie's own numero_tour, the last one: an `etat` with its action beside its fields
      // (realtime.evenements etat, etat_aux_autres) has the action's, one less, before it.
      const turn = m.encoding === 'json' ? [...m.payload.toString('utf8').matchAll(/"numero_tour": ?(\d+)/g)].at(-1)?.[1] ?? '' : '';
      lines.push(`${m.topic}\t${m.event}\t${turn}\t${m.committedAt?.toFixed(3) ?? ''}\t${receivedAt.toFixed(3)}\t${sentAt.toFixed(3)}\n`);
    },
    close() { clearInterval(timer); flush(); },
  };
}

export interface LocalRealtime {
  /** e.g. ws://127.0.0.1:PORT/realtime/v1: `new RealtimeClient(url, {params: {apikey}})` appends /websocket. */
  url: string;
  port: number;
  /** This calendar month's Realtime messages (UTC), stored and not yet stored. */
  messagesThisMonth(): number;
  close(): Promise<void>;
}

/** The stand-in's options from the MANETTE_REALTIME_* settings (api/config/settings.ts). */
export function standInOptions(s: QuotaSettings & { MANETTE_REALTIME_PRIVATE_ONLY: PrivateOnly; MANETTE_REALTIME_DELIVERY: Delivery }) {
  return {
    quotas: quotasFrom(s), monthlyQuota: monthlyQuotaFrom(s),
    privateOnly: s.MANETTE_REALTIME_PRIVATE_ONLY, delivery: s.MANETTE_REALTIME_DELIVERY,
  };
}

const WS_PATH = '/realtime/v1/websocket';
const BROADCAST_API_PATH = '/realtime/v1/api/broadcast';
const MAX_FRAME_BYTES = 5_000_000; // max_frame_size in RealtimeWeb.Endpoint
const IDLE_TIMEOUT_MS = 60_000; // Phoenix/Cowboy websocket timeout: no frame (heartbeat) for 60 s closes the socket

const defaultLog: Log = (level, msg, extra) => {
  if (level !== 'info') console.error(`[realtime] ${level}: ${msg}`, extra ?? '');
};

export async function startLocalRealtime(opts: LocalRealtimeOptions): Promise<LocalRealtime> {
  const log = opts.log ?? defaultLog;
  const host = opts.host ?? '127.0.0.1';
  const project = opts.project;
  if (!project && (typeof opts.jwtSecret !== 'string' || opts.jwtSecret === '')) throw new Error('startLocalRealtime: jwtSecret (or project) is required');
  const jwtKeys: TenantKeys = project ? project.realtimeKeys() : { secret: new TextEncoder().encode(opts.jwtSecret!), jwks: opts.jwtJwks };
  const quotas = opts.quotas ?? PLANS.free;
  const authorizer = createAuthorizer({ databaseUrl: opts.databaseUrl, log });
  let usage: MonthlyUsage | undefined;
  const hub = new Hub({
    log, jwtKeys, authorizer, quotas, privateOnly: opts.privateOnly ?? 'manette',
    countMessages: (n) => usage?.add(n), suspended: () => usage?.exhausted ?? false,
  });
  try {
    usage = await MonthlyUsage.start({
      databaseUrl: opts.databaseUrl, tenant: opts.usageTenant, quota: opts.monthlyQuota, now: opts.clock, log,
      rate: () => hub.events.avg + hub.presence.avg, onExhausted: () => hub.disconnectAll(),
    });
  } catch (err) {
    hub.stop();
    await authorizer.close().catch(() => {});
    throw new Error(`the local Realtime cannot keep the month's message count: ${(err as Error).message}`);
  }
  const trace = opts.trace ?? (process.env.MANETTE_REALTIME_TRACE ? deliveryTrace(process.env.MANETTE_REALTIME_TRACE) : undefined);
  const replication = await startReplication({
    databaseUrl: opts.databaseUrl,
    delivery: opts.delivery ?? 'hosted',
    log,
    onMessage: (m) => {
      if (opts.faults?.take(m.event, m.topic)) return log('info', 'realtime: test fault: broadcast dropped', { topic: m.topic, event: m.event });
      if (!trace) return hub.deliverDatabase(m);
      const received = performance.timeOrigin + performance.now();
      hub.deliverDatabase(m);
      trace.add(m, received, performance.timeOrigin + performance.now());
    },
  }).catch(async (err: unknown) => {
    hub.stop();
    await usage?.close().catch(() => {});
    await authorizer.close().catch(() => {});
    throw err;
  });

  let closing = false;
  const authorized = async (apikey: string | undefined): Promise<boolean> => {
    try {
      return opts.authorize ? await opts.authorize(apikey) : !!apikey;
    } catch (err) {
      log('error', 'realtime: authorize() failed', { error: (err as Error).message });
      return false;
    }
  };

  /**
   * UserSocket.connect: an apikey that is a JWT verified with the jwt_secret (authorize_conn:
   * role and exp required) becomes the socket's tenant token, used by joins that carry no
   * token of their own; any other key is up to `authorize` (e.g. a game's API key).
   */
  const socketAuth = async (apikey: string | undefined): Promise<{ ok: true; tenantToken?: string } | { ok: false; error: string }> => {
    if (!apikey) return { ok: false, error: 'API key is missing' };
    if (project) {
      // The project's gateway first: a publishable key, or a legacy JWT key while enabled.
      const gate = project.gateway(apikey);
      if ('refuse' in gate) return { ok: false, error: gate.refuse };
      if (gate.pass === 'publishable') return { ok: true };
    }
    const jwt = looksLikeJwt(apikey) ? await authorizeToken(apikey, jwtKeys) : undefined;
    if (project) return jwt?.ok ? { ok: true, tenantToken: apikey } : { ok: false, error: jwt && !jwt.ok ? handshakeError(jwt.error) : 'Invalid API key' };
    if (jwt?.ok) return { ok: true, tenantToken: apikey };
    if (await authorized(apikey)) return { ok: true };
    return { ok: false, error: jwt && !jwt.ok ? handshakeError(jwt.error) : 'Invalid API key' };
  };

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  const onConnection = (ws: WebSocket, vsn: Vsn, tenantToken: string | undefined): void => {
    const conn = hub.open(ws, vsn, tenantToken);
    ws.on('message', (data: RawData, isBinary: boolean) => hub.receive(conn, toBuffer(data), isBinary));
    ws.on('ping', () => { conn.lastSeen = Date.now(); });
    ws.on('close', () => hub.close(conn));
    ws.on('error', (err) => log('warn', 'realtime: websocket error', { error: err.message }));
  };

  const handleUpgrade = async (req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> => {
    socket.on('error', () => socket.destroy());
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname.replace(/\/+$/, '') !== WS_PATH) return rejectUpgrade(socket, 404, 'Not Found');
    // UserSocket.connect: a suspended tenant (suspend: true) is refused before its token is read.
    if (hub.suspended) return rejectUpgrade(socket, 403, 'Realtime was disabled for this tenant');
    const vsn = negotiateVsn(url.searchParams.get('vsn'));
    if (!vsn) return rejectUpgrade(socket, 400, `Unsupported vsn ${url.searchParams.get('vsn')} (1.0.0 or 2.0.0)`);
    // UserSocket.access_token: the x-api-key header wins over the apikey parameter.
    const apikey = header(req, 'x-api-key') ?? url.searchParams.get('apikey') ?? undefined;
    // UserSocket.connect errors answer the handshake with 401 + {"error": ...} (handle_error).
    const auth = await socketAuth(apikey);
    if (!auth.ok) return rejectUpgrade(socket, 401, auth.error);
    // TenantRateLimiters.check_tenant: max_concurrent_users, then the joins counter.
    const limited = hub.connectRefusal();
    if (limited) return rejectUpgrade(socket, 429, limited);
    if (closing || socket.destroyed) return void socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws, vsn, auth.tenantToken));
  };

  // POST /realtime/v1/api/broadcast {messages: [{topic, event, payload, private?}]}: what
  // realtime-js channel.send() falls back to when the channel is not joined (BroadcastController
  // -> BatchBroadcast). Locally it is the server's endpoint: only a service_role JWT may use it
  // (Supabase's RealtimeWeb.AuthTenant: the Authorization bearer, else the apikey header).
  const handleHttp = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method !== 'POST' || url.pathname.replace(/\/+$/, '') !== BROADCAST_API_PATH) return sendJson(res, 404, { error: 'Not Found' }, true);
    const bearer = header(req, 'authorization')?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
    const token = bearer ?? header(req, 'apikey');
    if (!token) return sendJson(res, 401, { error: 'Unauthorized: a service_role token is required' }, true);
    const auth = await authorizeToken(token, jwtKeys);
    if (!auth.ok) return sendJson(res, 401, { error: `Unauthorized: ${handshakeError(auth.error)}` }, true);
    if (auth.claims.role !== 'service_role') return sendJson(res, 403, { error: 'Forbidden: only a service_role token may broadcast' }, true);
    // BatchBroadcast.broadcast on a suspended tenant: {:error, :forbidden, "Tenant is suspended"}.
    if (hub.suspended) return sendJson(res, 403, { message: 'Tenant is suspended' }, true);
    // Body limit = the WebSocket frame limit, refused without reading the rest.
    const tooLarge = { error: `Request body larger than ${MAX_FRAME_BYTES} bytes` };
    if (Number(header(req, 'content-length') ?? 0) > MAX_FRAME_BYTES) return sendJson(res, 413, tooLarge, true);
    let text: string;
    try {
      text = await readBody(req, MAX_FRAME_BYTES);
    } catch (err) {
      if (err instanceof BodyTooLarge) return sendJson(res, 413, tooLarge, true);
      throw err;
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return sendJson(res, 400, { error: 'Invalid JSON body' });
    }
    const messages = typeof body === 'object' && body !== null && Array.isArray((body as { messages?: unknown }).messages)
      ? (body as { messages: unknown[] }).messages : undefined;
    const valid = messages?.every((m) => typeof m === 'object' && m !== null
      && typeof (m as Record<string, unknown>).topic === 'string' && typeof (m as Record<string, unknown>).event === 'string'
      && typeof (m as Record<string, unknown>).payload === 'object' && (m as Record<string, unknown>).payload !== null);
    if (!messages || messages.length === 0 || !valid) {
      return sendJson(res, 422, { error: 'expected {messages: [{topic, event, payload, private?}]}' });
    }
    const batch = (messages as Array<{ topic: string; event: string; payload: object; private?: unknown }>)
      .map((m) => ({ m, payloadJson: JSON.stringify(m.payload) }));
    // BatchBroadcast.validate_payload_size: each payload within max_payload_size_in_kb; the
    // changeset's errors, one entry per message (FallbackController, ChangesetView).
    const sizes = batch.map((b) => Buffer.byteLength(b.payloadJson) > payloadLimitBytes(quotas));
    if (sizes.some(Boolean)) {
      return sendJson(res, 422, { errors: { messages: sizes.map((over) => (over ? { payload: ['Payload size exceeds tenant limit'] } : {})) } });
    }
    // BatchBroadcast.check_rate_limit, on the events counter's average: a batch that would
    // exceed it is refused whole (FallbackController: {message}).
    const avg = hub.events.avg;
    if (avg > quotas.maxEventsPerSecond) return sendJson(res, 429, { message: 'You have exceeded your rate limit' });
    if (batch.length + avg > quotas.maxEventsPerSecond) {
      return sendJson(res, 429, { message: 'Too many messages to broadcast, please reduce the batch size' });
    }
    for (const { m, payloadJson } of batch) {
      hub.deliver({ topic: m.topic, isPrivate: m.private === true, event: m.event, payloadJson });
    }
    res.writeHead(202).end();
  };

  const server = createServer((req, res) => {
    handleHttp(req, res).catch((err: Error) => {
      log('error', 'realtime: HTTP request failed', { error: err.message });
      if (!res.headersSent) sendJson(res, 500, { error: 'Internal error' });
    });
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    handleUpgrade(req, socket, head).catch((err: Error) => {
      log('error', 'realtime: WebSocket upgrade failed', { error: err.message });
      socket.destroy();
    });
  });

  try {
    await listen(server, opts.port, host); // `::` is dual-stack; 0.0.0.0 where IPv6 is unavailable
  } catch (err) {
    await replication.close();
    hub.stop();
    await usage?.close().catch(() => {});
    await authorizer.close();
    throw err;
  }
  server.on('error', (err) => log('error', 'realtime: HTTP server error', { error: err.message }));

  const idleSweep = setInterval(() => {
    const limit = Date.now() - IDLE_TIMEOUT_MS;
    for (const conn of hub.conns) {
      if (conn.lastSeen < limit) {
        log('info', 'realtime: closing a socket silent for 60 s (no heartbeat)');
        conn.ws.terminate();
      }
    }
  }, 5_000);
  idleSweep.unref();

  const port = (server.address() as AddressInfo).port;
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  let closed: Promise<void> | undefined;
  return {
    url: `ws://${urlHost}:${port}/realtime/v1`,
    port,
    messagesThisMonth: () => usage?.total ?? 0,
    close() {
      closed ??= (async () => {
        closing = true;
        clearInterval(idleSweep);
        for (const conn of hub.conns) conn.ws.terminate();
        wss.close();
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await stopped;
        await replication.close();
        trace?.close();
        hub.stop();
        await usage?.close().catch((err: Error) => log('warn', 'realtime: could not store the month\'s message count', { error: err.message }));
        await authorizer.close();
      })();
      return closed;
    },
  };
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return (Array.isArray(v) ? v[0] : v) || undefined;
}

function rejectUpgrade(socket: Duplex, status: number, error: string): void {
  const body = JSON.stringify({ error });
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json\r\n`
    + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

/** A JSON response; `close` for one sent before the request body was read (the connection is not reused). */
function sendJson(res: ServerResponse, status: number, body: object, close = false): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...(close ? { Connection: 'close' } : {}) }).end(JSON.stringify(body));
}

class BodyTooLarge extends Error {}

async function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new BodyTooLarge('body too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
