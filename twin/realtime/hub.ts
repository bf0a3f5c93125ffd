// Channel semantics of Supabase Realtime for broadcast and presence: what
// Phoenix.Socket, RealtimeWeb.RealtimeChannel (+ BroadcastHandler,
// PresenceHandler) and MessageDispatcher do with each client message,
// including channel authorization (RLS policies on realtime.messages, see
// authorization.ts), the token's lifetime (confirm_token, access_token) and the
// project's quotas (quotas.ts): the join limits, the events and presence rate counters,
// the payload size, and private-only channels.
import { randomBytes, randomUUID } from 'node:crypto';
import { WebSocket } from 'ws';
import { canonicalJson } from '../../api/canonical-json.js';
import { decode, encode, type Inbound, type Json, type JsonObject, type Outbound, type Vsn } from './protocol.js';
import type { Log } from './log.js';
import { newPolicies, type AuthorizationContext, type AuthorizationError, type Authorizer, type Policies } from './authorization.js';
import { confirmToken, joinReason, shutdownMessage, type TenantKeys } from './jwt.js';
import { payloadLimitBytes, RateCounter, type Quotas } from './quotas.js';
import type { DatabaseMessage } from './replication.js';

type Task = () => void | Promise<void>;

export interface Conn {
  ws: WebSocket; vsn: Vsn; channels: Map<string, Channel>; lastSeen: number;
  /** UserSocket assigns.tenant_token: the socket's apikey when it is a JWT verified with the jwt_secret. */
  tenantToken?: string;
  /** Client messages and channel timers, handled one at a time like the socket/channel processes do. */
  inbox: Task[]; busy: boolean; closed: boolean;
}

interface Channel {
  conn: Conn; topic: string; subTopic: string; joinRef: Json; room: string; isPrivate: boolean;
  self: boolean; ack: boolean;
  presenceKey: string; presenceEnabled: boolean;
  /** Tracked presence: meta = the track payload + phx_ref (Phoenix.Presence). */
  presence?: { meta: JsonObject; canonical: string };
  /** assigns.access_token: the token verified at join (or by the last access_token message). */
  accessToken?: string;
  /** assigns.authorization_context, when the channel has a verified token. */
  ctx?: AuthorizationContext;
  /** assigns.policies: set on private channels only (nil on public ones). */
  policies?: Policies;
  /** assigns.confirm_token_ref */
  confirmTimer?: NodeJS.Timeout;
  /** assigns.presence_client_rate_limit: presence messages in the current window. */
  presenceCalls: { count: number; resetAt?: number };
  closed: boolean;
}

/**
 * Which public joins are refused with Realtime's private-only error: `all` (a project whose
 * Realtime settings allow private channels only), `manette` (only Manette's topics,
 * `manette_*`: the default, other channels stay public), or `off` (public channels allowed).
 */
export type PrivateOnly = 'all' | 'manette' | 'off';

export interface HubOptions {
  log: Log;
  /** The tenant's jwt_secret (its UTF-8 bytes) and jwt_jwks. */
  jwtKeys: TenantKeys;
  authorizer: Authorizer;
  quotas: Quotas;
  privateOnly: PrivateOnly;
  /** Each message counted by the events and presence counters is also counted here (the month's, usage.ts). */
  countMessages?: (n: number) => void;
  /** The tenant is suspended (its month's quota is used, usage.ts). */
  suspended?: () => boolean;
}

/**
 * Realtime.Tenants.tenant_topic: a private channel and a public channel with
 * the same name are different rooms, and realtime.send(..., private) reaches
 * only the matching kind.
 */
export const roomOf = (subTopic: string, isPrivate: boolean): string => `${isPrivate ? 'private' : 'public'}:${subTopic}`;

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
// RealtimeWeb.Channels.Payloads.FlexibleBoolean: true/false or "true"/"false".
const flag = (v: unknown): boolean => v === true || (typeof v === 'string' && v.toLowerCase() === 'true');
// Phoenix.Tracker refs: 8 random bytes, base64.
const newPhxRef = (): string => randomBytes(8).toString('base64');
const j = JSON.stringify;
// Elixir truthiness (nil and false are falsy), for `a || b` on join params.
const elixirOr = (a: unknown, b: unknown): unknown => (a === undefined || a === null || a === false ? b : a);

const cannotRead = (subTopic: string) => `You do not have permissions to read from this Channel topic: ${subTopic}`;
const UNABLE_TO_CONNECT = 'Realtime was unable to connect to the project database';
const TOO_MANY_MESSAGES = 'Too many messages per second';
const TOO_MANY_PRESENCE = 'Too many presence messages per second';
/** config :realtime, :client_presence_rate_limit defaults: 5 presence messages per channel per 30 s. */
const CLIENT_PRESENCE_MAX_CALLS = 5;
const CLIENT_PRESENCE_WINDOW_MS = 30_000;
/** A task that does not settle in time no longer holds the connection's later messages. */
const TASK_DEADLINE_MS = 20_000;
/** Messages waiting behind a slow join; beyond this a flooding client's messages are dropped. */
const MAX_INBOX = 10_000;

export class Hub {
  readonly conns = new Set<Conn>();
  /** UsersCounter: the sockets that joined a channel, counted until they close. */
  readonly users = new Set<Conn>();
  /** The tenant's rate counters (Tenants.events_per_second_rate, joins_per_second_rate, presence_events_per_second_rate). */
  readonly events: RateCounter;
  readonly joins: RateCounter;
  readonly presence: RateCounter;
  readonly quotas: Quotas;
  private readonly rooms = new Map<string, Set<Channel>>();
  private readonly log: Log;
  private readonly jwtKeys: TenantKeys;
  private readonly authorizer: Authorizer;
  private readonly privateOnly: PrivateOnly;

  constructor(opts: HubOptions) {
    this.log = opts.log;
    this.jwtKeys = opts.jwtKeys;
    this.authorizer = opts.authorizer;
    this.quotas = opts.quotas;
    this.privateOnly = opts.privateOnly;
    this.isSuspended = opts.suspended ?? (() => false);
    this.events = new RateCounter(opts.quotas.maxEventsPerSecond,
      () => this.log('error', 'realtime: MessagePerSecondRateLimitReached: Too many messages per second'), opts.countMessages);
    this.joins = new RateCounter(opts.quotas.maxJoinsPerSecond,
      () => this.log('error', 'realtime: ClientJoinRateLimitReached: Too many joins per second'));
    this.presence = new RateCounter(opts.quotas.maxPresenceEventsPerSecond,
      () => this.log('error', 'realtime: PresenceRateLimitReached: Too many presence events per second'), opts.countMessages);
  }

  /** Stops the rate counters' timers. */
  stop(): void {
    for (const c of [this.events, this.joins, this.presence]) c.stop();
  }

  /**
   * The tenant suspended (its month's quota used, usage.ts): Realtime.Api.update_tenant
   * disconnects every socket of a tenant whose `suspend` changes (requires_disconnect) and
   * stops its database connection; no message is delivered until it is lifted.
   */
  get suspended(): boolean {
    return this.isSuspended();
  }
  private readonly isSuspended: () => boolean;
  disconnectAll(): void {
    for (const conn of this.conns) conn.ws.close(1000);
  }

  /** TenantRateLimiters.check_tenant at the handshake: a refusal, or undefined. */
  connectRefusal(): string | undefined {
    if (this.users.size >= this.quotas.maxConnections) return 'Too many connected users';
    if (this.joins.triggered) return 'Too many joins per second';
    return undefined;
  }

  open(ws: WebSocket, vsn: Vsn, tenantToken?: string): Conn {
    const conn: Conn = { ws, vsn, channels: new Map(), lastSeen: Date.now(), tenantToken, inbox: [], busy: false, closed: false };
    this.conns.add(conn);
    return conn;
  }

  /** Socket closed: its channels terminate, tracked presences leave (presence_diff to the others). */
  close(conn: Conn): void {
    conn.closed = true;
    conn.inbox.length = 0;
    for (const ch of [...conn.channels.values()]) this.removeChannel(ch);
    this.conns.delete(conn);
    this.users.delete(conn);
  }

  receive(conn: Conn, data: Buffer, isBinary: boolean): void {
    conn.lastSeen = Date.now();
    let msg: Inbound;
    try {
      msg = decode(conn.vsn, data, isBinary);
    } catch (err) {
      // RealtimeWeb.Socket.handle_in: log MalformedWebSocketMessage, keep the socket open.
      const frame = isBinary ? `<${data.length} bytes>` : data.toString('utf8', 0, 200);
      this.log('warn', `realtime: MalformedWebSocketMessage: ${(err as Error).message}`, { vsn: conn.vsn, frame });
      return;
    }
    // Phoenix.Socket answers heartbeats itself, at once, even while a join is being authorized.
    if (msg.topic === 'phoenix' && msg.event === 'heartbeat') {
      return this.send(conn, { type: 'reply', joinRef: null, ref: msg.ref, topic: 'phoenix', status: 'ok', response: {} });
    }
    if (conn.inbox.length >= MAX_INBOX) {
      return this.log('warn', 'realtime: too many messages waiting on this socket, message dropped', { topic: msg.topic, event: msg.event });
    }
    this.enqueue(conn, () => this.route(conn, msg));
  }

  /**
   * Everything a socket's channels do runs through its inbox, in arrival order:
   * Phoenix handles a socket's frames one after the other (and a channel's
   * messages one after the other), so a broadcast sent right after a join is
   * handled once that join, which may wait on the database, is done.
   */
  private enqueue(conn: Conn, task: Task): void {
    if (conn.closed) return;
    conn.inbox.push(task);
    if (!conn.busy) this.pump(conn);
  }

  private pump(conn: Conn): void {
    while (!conn.busy && !conn.closed) {
      const task = conn.inbox.shift();
      if (!task) return;
      let result: void | Promise<void>;
      try {
        result = task();
      } catch (err) {
        this.log('error', 'realtime: UnknownErrorOnWebSocketMessage', { error: (err as Error).message });
        continue;
      }
      if (!(result instanceof Promise)) continue;
      conn.busy = true;
      let timer: NodeJS.Timeout | undefined;
      const bounded = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          this.log('error', 'realtime: a channel operation did not finish in time, moving on');
          resolve();
        }, TASK_DEADLINE_MS);
        timer.unref();
      });
      Promise.race([result, bounded])
        .catch((err: Error) => this.log('error', 'realtime: UnknownErrorOnWebSocketMessage', { error: err.message }))
        .finally(() => {
          clearTimeout(timer);
          conn.busy = false;
          this.pump(conn);
        });
    }
  }

  /**
   * A message of the REST API (BatchBroadcast.send_message_and_count): counted, then a
   * Phoenix.Socket.Broadcast with payload {event, [meta: {id},] payload, type: "broadcast"}
   * sent as JSON (text frame) to every subscriber allowed to read broadcasts, V1 and V2
   * alike. payloadJson is the user payload, verbatim.
   */
  deliver(m: { topic: string; isPrivate: boolean; event: string; payloadJson: string; id?: string }): void {
    this.events.add();
    const meta = m.id === undefined ? '' : `"meta":{"id":${j(m.id)}},`;
    this.broadcast(roomOf(m.topic, m.isPrivate), {
      type: 'message', joinRef: null, ref: null, topic: `realtime:${m.topic}`, event: 'broadcast',
      payloadJson: `{"event":${j(m.event)},${meta}"payload":${m.payloadJson},"type":"broadcast"}`,
    });
  }

  /**
   * A committed realtime.messages row (ReplicationConnection.handle_message(Insert)):
   * dropped (and logged) when its payload is over the limit or while the events counter is
   * triggered; otherwise counted and sent as a UserBroadcast with metadata {id}: a binary
   * frame (kind 4) to V2 sockets, JSON with `meta` to V1 ones (JSON payloads only).
   */
  deliverDatabase(m: DatabaseMessage): void {
    // A suspended tenant has no replication connection: its rows are never read.
    if (this.suspended) return;
    // :erlang.external_size of a binary: its bytes plus 6.
    if (m.payload.length + 6 > payloadLimitBytes(this.quotas)) {
      return this.log('error', 'realtime: UnableToBroadcastChanges: :payload_size_exceeded', { topic: m.topic, id: m.id });
    }
    if (this.events.triggered) return this.log('error', 'realtime: UnableToBroadcastChanges: :too_many_requests', { topic: m.topic, id: m.id });
    this.events.add();
    if (this.suspended) return;
    this.broadcast(roomOf(m.topic, m.private), {
      type: 'user_broadcast', topic: `realtime:${m.topic}`, userEvent: m.event, encoding: m.encoding, data: m.payload,
      metadata: j({ id: m.id }),
    });
  }

  private route(conn: Conn, msg: Inbound): void | Promise<void> {
    if (msg.event === 'phx_join') return this.join(conn, msg);
    const ch = conn.channels.get(msg.topic);
    if (!ch) {
      // Phoenix.Socket with no channel for the topic: a leave is acknowledged, anything else is "unmatched topic".
      if (msg.event === 'phx_leave') return this.send(conn, { type: 'reply', joinRef: msg.joinRef, ref: msg.ref, topic: msg.topic, status: 'ok', response: {} });
      return this.send(conn, { type: 'reply', joinRef: null, ref: msg.ref, topic: msg.topic, status: 'error', response: { reason: 'unmatched topic' } });
    }
    switch (msg.event) {
      case 'phx_leave':
        // Phoenix.Socket only honours a leave carrying the channel's join_ref
        // (or any leave if the join had none, V1 clients); others are dropped.
        if (ch.joinRef !== null && ch.joinRef !== msg.joinRef) {
          return this.log('warn', 'realtime: phx_leave ignored, its join_ref does not match the join', { topic: ch.topic, joinRef: ch.joinRef, got: msg.joinRef });
        }
        this.reply(ch, msg.ref, 'ok', {});
        this.removeChannel(ch);
        // Channel exit {:shutdown, :left} -> phx_close with ref = join_ref.
        return this.push(ch, 'phx_close', '{}', ch.joinRef);
      case 'broadcast':
        return this.clientBroadcast(ch, msg);
      case 'presence':
        return this.clientPresence(ch, msg);
      case 'access_token':
        return this.refreshToken(ch, msg);
      default:
        // RealtimeChannel.handle_in fallback: counted, ignored, no reply.
        this.events.add();
        return this.log('info', `realtime: unexpected message from client of type \`${msg.event}\``, { topic: ch.topic });
    }
  }

  private join(conn: Conn, msg: Inbound): void | Promise<void> {
    const { topic, joinRef, ref } = msg;
    if (!topic.startsWith('realtime:')) {
      // UserSocket only routes "realtime:*"; Phoenix replies "unmatched topic" without join_ref.
      return this.send(conn, { type: 'reply', joinRef: null, ref, topic, status: 'error', response: { reason: 'unmatched topic' } });
    }
    const existing = conn.channels.get(topic);
    if (existing) {
      // Phoenix.Socket: duplicate join closes the existing channel first.
      this.removeChannel(existing);
      this.push(existing, 'phx_close', '{}', existing.joinRef);
    }
    const subTopic = topic.slice('realtime:'.length);
    const refuse = (reason: string): void => {
      this.log('warn', `realtime: join refused: ${reason}`, { topic });
      this.send(conn, { type: 'reply', joinRef, ref, topic, status: 'error', response: { reason } });
    };
    if (subTopic === '') return refuse('TopicNameRequired: You must provide a topic name');
    // RealtimeWeb.Channels.Payloads.Join, parsed leniently like Supabase (invalid fields fall back to defaults).
    const params = msg.payload.kind === 'json' && isObject(msg.payload.value) ? msg.payload.value : {};
    const config = isObject(params.config) ? params.config : undefined;
    const broadcast = config && isObject(config.broadcast) ? config.broadcast : {};
    const presence = config && isObject(config.presence) ? config.presence : undefined;
    const key = presence?.key;
    const isPrivate = flag(config?.private);
    const ch: Channel = {
      conn, topic, subTopic, joinRef, room: roomOf(subTopic, isPrivate), isPrivate,
      self: flag(broadcast.self), ack: flag(broadcast.ack),
      // Join.presence_key: a generated UUID when the key is "" or absent.
      presenceKey: (typeof key === 'string' && key !== '') || typeof key === 'number' || typeof key === 'boolean' ? String(key) : randomUUID(),
      // Join.presence_enabled?: config.presence.enabled, or true when the join carries no presence config.
      presenceEnabled: presence ? flag(presence.enabled) : true,
      presenceCalls: { count: 0 },
      closed: false,
    };
    // only_private?, limit_max_users, limit_joins, limit_channels: before the token is looked at.
    if (!isPrivate && this.refusesPublic(subTopic)) {
      if (this.privateOnly === 'manette') {
        this.log('warn', 'realtime: a public channel of a Manette topic was refused (MANETTE_REALTIME_PRIVATE_ONLY=off allows it, '
          + 'as a project whose Realtime settings allow public channels)', { topic });
      }
      return refuse('PrivateOnly: This project only allows private channels');
    }
    if (!this.users.has(conn) && this.users.size >= this.quotas.maxConnections) {
      return refuse('ConnectionRateLimitReached: Too many connected users');
    }
    this.joins.start();
    if (this.joins.triggered) {
      // The join is refused, then the socket is disconnected.
      refuse('ClientJoinRateLimitReached: Too many joins per second');
      conn.ws.close(1000);
      return;
    }
    this.joins.add();
    if (conn.channels.size >= this.quotas.maxChannelsPerConnection) return refuse('ChannelRateLimitReached: Too many channels');
    if (Array.isArray(config?.postgres_changes) && config.postgres_changes.length > 0) {
      this.log('warn', 'realtime: postgres_changes is not supported by the local Realtime (join replies with an empty list)', { topic });
    }

    // RealtimeChannel.assign_access_token: user_token, else access_token, else the socket's
    // tenant token; an "sb_" key (a publishable/secret key, not a JWT) means the tenant token.
    const given = elixirOr(params.access_token, params.user_token);
    const token = typeof given === 'string' && given.startsWith('sb_') ? conn.tenantToken
      : typeof params.user_token === 'string' ? params.user_token
        : typeof params.access_token === 'string' ? params.access_token
          : conn.tenantToken;

    if (token === undefined) {
      // Local keys are not JWTs: a public channel is joined without claims. A private one
      // needs claims for its policies (maybe_assign_policies), so it is refused.
      if (isPrivate) return refuse(`Unauthorized: ${cannotRead(subTopic)}`);
      return this.completeJoin(ch, ref);
    }

    return (async () => {
      // confirm_token: the token is verified on every channel, public ones too.
      const confirmed = await confirmToken(token, this.jwtKeys);
      if (conn.closed) return;
      if (!confirmed.ok) return refuse(joinReason(confirmed.error));
      ch.accessToken = token;
      ch.ctx = this.context(subTopic, confirmed.claims);
      if (isPrivate) {
        // maybe_assign_policies: read policies, one of broadcast/presence read is required.
        const res = await this.authorizer.read(newPolicies(), ch.ctx, ch.presenceEnabled);
        if (conn.closed) return;
        if (!res.ok) return refuse(this.readErrorReason(res.error, subTopic));
        if (!res.policies.broadcast.read && !res.policies.presence.read) return refuse(`Unauthorized: ${cannotRead(subTopic)}`);
        ch.policies = res.policies;
      }
      this.completeJoin(ch, ref);
      this.scheduleConfirm(ch, confirmed.checkInMs);
    })();
  }

  /** Subscribes the joined channel to its room, replies ok and syncs presence. */
  private completeJoin(ch: Channel, ref: Json): void {
    const { conn } = ch;
    // assign_counter, assign_presence_counter (RateCounter.new), UsersCounter.add.
    this.events.start();
    this.presence.start();
    this.users.add(conn);
    conn.channels.set(ch.topic, ch);
    let subs = this.rooms.get(ch.room);
    if (!subs) this.rooms.set(ch.room, (subs = new Set()));
    subs.add(ch);
    // RealtimeChannel.join returns {:ok, %{postgres_changes: [...]}, socket}; realtime-js
    // matches that list against its postgres_changes bindings.
    this.send(conn, { type: 'reply', joinRef: ch.joinRef, ref, topic: ch.topic, status: 'ok', response: { postgres_changes: [] } });
    // :sync_presence right after the join when presence is enabled (PresenceHandler.sync:
    // on a private channel only with presence read; limit_presence_event first).
    if (ch.presenceEnabled && this.canReadPresence(ch)) {
      if (!this.limitPresenceEvent()) return this.shutdown(ch, TOO_MANY_PRESENCE);
      this.push(ch, 'presence_state', j(this.presenceState(ch.room)));
    }
  }

  /** PresenceHandler.limit_presence_event: refused when the average is over the limit, else counted. */
  private limitPresenceEvent(): boolean {
    if (this.presence.avg > this.quotas.maxPresenceEventsPerSecond) return false;
    this.presence.add();
    return true;
  }

  /** only_private?: the project's private-only setting, here per topic (PrivateOnly). */
  private refusesPublic(subTopic: string): boolean {
    return this.privateOnly === 'all' || (this.privateOnly === 'manette' && subTopic.startsWith('manette_'));
  }

  /** assign_authorization_context: the claims, role and sub the policies see. */
  private context(subTopic: string, claims: JsonObject): AuthorizationContext {
    return { topic: subTopic, claims, role: claims.role, sub: claims.sub };
  }

  /** The join reply for a failed read authorization (maybe_assign_policies + join's else clauses). */
  private readErrorReason(e: AuthorizationError, subTopic: string): string {
    switch (e.kind) {
      case 'rls_policy_error':
        this.log('error', `realtime: RlsPolicyError: ${e.message}`, { topic: subTopic });
        return `Unauthorized: ${cannotRead(subTopic)}`;
      case 'query_canceled': return `QueryCanceled: ${e.message}`;
      case 'missing_partition': return 'MissingPartition: Realtime was unable to find the expected messages partition';
      case 'tenant_database_unavailable':
        this.log('error', `realtime: UnableToConnectToProject: ${e.message}`, { topic: subTopic });
        return `UnableToConnectToProject: ${UNABLE_TO_CONNECT}`;
    }
  }

  /** confirm_token's timer: Process.send_after(self(), :confirm_token, interval), replaced by each new one. */
  private scheduleConfirm(ch: Channel, delayMs: number): void {
    if (ch.confirmTimer) clearTimeout(ch.confirmTimer);
    // A few ms late rather than early: Node timers may fire a millisecond ahead.
    ch.confirmTimer = setTimeout(() => this.enqueue(ch.conn, () => this.confirmTokenTick(ch)), delayMs + 5);
    ch.confirmTimer.unref();
  }

  /** handle_info(:confirm_token): the token is checked again; expired -> system error and the channel stops. */
  private async confirmTokenTick(ch: Channel): Promise<void> {
    ch.confirmTimer = undefined;
    if (ch.closed) return;
    const res = await confirmToken(ch.accessToken, this.jwtKeys);
    if (ch.closed) return;
    if (!res.ok) return this.shutdown(ch, shutdownMessage(res.error));
    this.scheduleConfirm(ch, res.checkInMs);
  }

  /**
   * handle_in("access_token"): a new token replaces the channel's one. The same token,
   * null or an "sb_" key are ignored. The new token is verified, the read policies of a
   * private channel evaluated again (write policies are reset, evaluated on next use), and
   * the channel stops if anything fails or a read permission it had is gone.
   */
  private refreshToken(ch: Channel, msg: Inbound): void | Promise<void> {
    const p = msg.payload.kind === 'json' && isObject(msg.payload.value) ? msg.payload.value : undefined;
    const token = p?.access_token;
    if (!p || !('access_token' in p) || (token !== null && typeof token !== 'string')) {
      return this.log('info', 'realtime: unexpected message from client of type `access_token`', { topic: ch.topic });
    }
    if (token === null || token === ch.accessToken || token.startsWith('sb_')) return;
    return (async () => {
      const previous = ch.policies;
      ch.accessToken = token;
      const confirmed = await confirmToken(token, this.jwtKeys);
      if (ch.closed) return;
      if (!confirmed.ok) return this.shutdown(ch, shutdownMessage(confirmed.error));
      ch.ctx = this.context(ch.subTopic, confirmed.claims);
      if (ch.isPrivate) {
        const res = await this.authorizer.read(newPolicies(), ch.ctx, ch.presenceEnabled);
        if (ch.closed) return;
        if (!res.ok) {
          if (res.error.kind === 'rls_policy_error') {
            this.log('error', `realtime: RlsPolicyError: ${res.error.message}`, { topic: ch.topic });
            return this.shutdown(ch, cannotRead(ch.subTopic));
          }
          if (res.error.kind === 'query_canceled') return this.shutdown(ch, 'Query was cancelled, please try again');
          return this.shutdown(ch, UNABLE_TO_CONNECT);
        }
        const now = res.policies;
        if (!now.broadcast.read && !now.presence.read) return this.shutdown(ch, cannotRead(ch.subTopic));
        // check_read_permissions_revoked: a read that was true and is now false.
        const revoked = (a?: boolean, b?: boolean) => a === true && b === false;
        if (previous && (revoked(previous.broadcast.read, now.broadcast.read) || revoked(previous.presence.read, now.presence.read))) {
          return this.shutdown(ch, `You no longer have permission to read from this Channel topic: ${ch.subTopic}`);
        }
        ch.policies = now;
      }
      this.scheduleConfirm(ch, confirmed.checkInMs);
    })();
  }

  /**
   * RealtimeChannel.shutdown_response: a "system" error message, then {:stop, :normal}:
   * the channel terminates (presence untracked) and Phoenix.Socket sends phx_close.
   */
  private shutdown(ch: Channel, message: string): void {
    if (ch.closed) return;
    this.log('warn', `realtime: ChannelShutdown: ${message}`, { topic: ch.topic });
    this.push(ch, 'system', j({ extension: 'system', status: 'error', message, channel: ch.subTopic }));
    this.removeChannel(ch);
    this.push(ch, 'phx_close', '{}', ch.joinRef);
  }

  private clientBroadcast(ch: Channel, msg: Inbound): void | Promise<void> {
    if (!ch.isPrivate) return this.sendBroadcast(ch, msg);
    // BroadcastHandler.handle (private): write policies are evaluated on first use, then kept.
    const policies = ch.policies ?? newPolicies();
    if (policies.broadcast.write !== undefined) {
      if (policies.broadcast.write) return this.sendBroadcast(ch, msg);
      return; // {:noreply, socket}: dropped, no ack
    }
    return (async () => {
      const res = await this.authorizer.write(policies, ch.ctx!);
      if (ch.closed) return;
      if (!res.ok) {
        // Logged, message dropped, no reply.
        return this.log('error', `realtime: ${this.writeErrorCode(res.error)}`, { topic: ch.topic });
      }
      ch.policies = res.policies;
      if (res.policies.broadcast.write) this.sendBroadcast(ch, msg);
    })();
  }

  private writeErrorCode(e: AuthorizationError): string {
    switch (e.kind) {
      case 'rls_policy_error': return `RlsPolicyError: ${e.message}`;
      case 'query_canceled': return `QueryCanceled: ${e.message}`;
      case 'missing_partition': return 'MissingPartition: Realtime was unable to find the expected messages partition';
      case 'tenant_database_unavailable': return `UnableToConnectToProject: ${UNABLE_TO_CONNECT} (${e.message})`;
    }
  }

  /**
   * BroadcastHandler.handle for an allowed write: counted (increment_rate_counter), the
   * payload size checked, then send_message, and the ack reply.
   */
  private sendBroadcast(ch: Channel, msg: Inbound): void {
    this.events.add();
    const p = msg.payload;
    let out: Outbound;
    let size: number;
    if (p.kind === 'user_broadcast') {
      size = p.data.length + Buffer.byteLength(p.userEvent);
      // BroadcastHandler.build_broadcast -> %UserBroadcast{} (metadata dropped).
      out = { type: 'user_broadcast', topic: ch.topic, userEvent: p.userEvent, encoding: p.encoding, data: p.data };
    } else if (p.kind === 'binary') {
      out = { type: 'binary_broadcast', topic: ch.topic, event: 'broadcast', data: p.data };
      size = p.data.length;
    } else if (isObject(p.value)) {
      // JSON broadcast: the client's payload ({type, event, payload}) is forwarded as is.
      const payloadJson = j(p.value);
      out = { type: 'message', joinRef: null, ref: null, topic: ch.topic, event: 'broadcast', payloadJson };
      size = Buffer.byteLength(payloadJson);
    } else {
      return this.log('warn', 'realtime: broadcast payload must be an object, message dropped', { topic: ch.topic });
    }
    // Tenants.validate_payload_size (the JSON size stands for :erlang.external_size of the map).
    if (size > payloadLimitBytes(this.quotas)) {
      // Not sent; with ack the reply is {:error, :payload_size_exceeded}.
      if (ch.ack) this.reply(ch, msg.ref, 'error', 'payload_size_exceeded');
      return;
    }
    // broadcast.self -> pubsub_broadcast (sender included), else broadcast_from (sender excluded).
    this.broadcast(ch.room, out, ch.self ? undefined : ch);
    if (ch.ack) this.reply(ch, msg.ref, 'ok', {});
  }

  private clientPresence(ch: Channel, msg: Inbound): void | Promise<void> {
    const p = msg.payload.kind === 'json' ? msg.payload.value : null;
    // PresenceHandler.handle without an "event" is a no-op that still replies ok.
    if (!isObject(p) || typeof p.event !== 'string') return this.reply(ch, msg.ref, 'ok', {});
    // limit_client_presence_event: a few presence messages per channel per window.
    const now = Date.now();
    const calls = ch.presenceCalls;
    if (calls.resetAt === undefined || now > calls.resetAt) {
      calls.count = 1;
      calls.resetAt = now + CLIENT_PRESENCE_WINDOW_MS;
    } else if (calls.count >= CLIENT_PRESENCE_MAX_CALLS) {
      this.log('error', 'realtime: ClientPresenceRateLimitReached: :client_rate_limit_exceeded', { topic: ch.topic });
      return this.shutdown(ch, 'Client presence rate limit exceeded');
    } else {
      calls.count++;
    }
    const event = p.event.toLowerCase();
    if (event === 'track' && ch.isPrivate) {
      const policies = ch.policies ?? newPolicies();
      if (policies.presence.write === undefined) return this.authorizeTrack(ch, msg, p, policies);
      // handle_presence_event("track") when not can_write_presence?: {:error, :unauthorized} -> {:reply, :error}.
      if (!policies.presence.write) return this.presenceDenied(ch, msg.ref, 'unauthorized');
    }
    switch (event) {
      case 'track':
        return this.track(ch, msg.ref, p);
      case 'untrack': {
        const prev = ch.presence;
        ch.presence = undefined;
        this.reply(ch, msg.ref, 'ok', {});
        if (prev) this.presenceDiff(ch, {}, { [ch.presenceKey]: { metas: [prev.meta] } });
        return;
      }
      default:
        this.log('warn', `realtime: UnknownPresenceEvent ${p.event}`, { topic: ch.topic });
        return this.reply(ch, msg.ref, 'error', {});
    }
  }

  /**
   * PresenceHandler.handle_presence_event("track") on a private channel whose presence
   * write is not evaluated: presence read first if the join skipped it (presence was
   * disabled), then the write policies, then the track itself.
   */
  private async authorizeTrack(ch: Channel, msg: Inbound, p: JsonObject, policies: Policies): Promise<void> {
    let current = policies;
    if (current.presence.read === undefined) {
      const res = await this.authorizer.read(current, ch.ctx!, true);
      if (ch.closed) return;
      if (!res.ok) return this.presenceDenied(ch, msg.ref, this.writeErrorCode(res.error));
      current = res.policies;
    }
    const res = await this.authorizer.write(current, ch.ctx!, true);
    if (ch.closed) return;
    if (!res.ok) return this.presenceDenied(ch, msg.ref, this.writeErrorCode(res.error));
    ch.policies = res.policies;
    if (!res.policies.presence.write) return this.presenceDenied(ch, msg.ref, 'unauthorized');
    this.track(ch, msg.ref, p);
  }

  /** handle_in("presence") `{:error, error}`: log_error("UnableToHandlePresence") and {:reply, :error, socket}. */
  private presenceDenied(ch: Channel, ref: Json, why: string): void {
    this.log('error', `realtime: UnableToHandlePresence: ${why}`, { topic: ch.topic });
    this.reply(ch, ref, 'error', {});
  }

  private track(ch: Channel, ref: Json, p: JsonObject): void {
    const key = ch.presenceKey;
    const data = p.payload === undefined ? {} : p.payload;
    if (!isObject(data)) return this.reply(ch, ref, 'error', { reason: 'Presence track payload must be a map' });
    const prev = ch.presence;
    const c = canonicalJson(data);
    if (prev?.canonical === c) return this.reply(ch, ref, 'ok', {}); // unchanged payload: no-op
    if (Buffer.byteLength(c) > payloadLimitBytes(this.quotas)) return this.shutdown(ch, 'Track message size exceeded');
    if (!this.limitPresenceEvent()) return this.shutdown(ch, TOO_MANY_PRESENCE);
    // Presence.track, or Presence.update when already tracked (new phx_ref, phx_ref_prev = old one).
    const meta: JsonObject = { ...data, phx_ref: newPhxRef(), ...(prev ? { phx_ref_prev: prev.meta.phx_ref ?? null } : {}) };
    ch.presence = { meta, canonical: c };
    const wasEnabled = ch.presenceEnabled;
    ch.presenceEnabled = true;
    this.reply(ch, ref, 'ok', {});
    // A track on a channel joined without presence enables it and syncs the state now.
    if (!wasEnabled && this.canReadPresence(ch)) this.push(ch, 'presence_state', j(this.presenceState(ch.room)));
    this.presenceDiff(ch, { [key]: { metas: [meta] } }, prev ? { [key]: { metas: [prev.meta] } } : {});
  }

  /** Public channels always; private ones with presence read (PresenceHandler.can_read_presence?). */
  private canReadPresence(ch: Channel): boolean {
    return !ch.isPrivate || ch.policies?.presence.read === true;
  }

  /** MessageDispatcher: broadcasts reach a private channel only with broadcast read. */
  private canReadBroadcast(ch: Channel): boolean {
    return !ch.isPrivate || ch.policies?.broadcast.read === true;
  }

  /** Phoenix.Presence.list grouped: {key: {metas: [meta, ...]}}. */
  private presenceState(room: string): Record<string, { metas: JsonObject[] }> {
    const state: Record<string, { metas: JsonObject[] }> = {};
    for (const ch of this.rooms.get(room) ?? []) {
      if (ch.presence) (state[ch.presenceKey] ??= { metas: [] }).metas.push(ch.presence.meta);
    }
    return state;
  }

  /**
   * presence_diff goes to every subscriber of the room allowed to read presence, the
   * tracking socket included (it comes from the Presence process).
   */
  private presenceDiff(ch: Channel, joins: Json, leaves: Json): void {
    this.broadcast(ch.room, { type: 'message', joinRef: null, ref: null, topic: ch.topic, event: 'presence_diff', payloadJson: j({ joins, leaves }) });
  }

  private removeChannel(ch: Channel): void {
    ch.closed = true;
    if (ch.confirmTimer) clearTimeout(ch.confirmTimer);
    ch.confirmTimer = undefined;
    if (ch.conn.channels.get(ch.topic) === ch) ch.conn.channels.delete(ch.topic);
    const subs = this.rooms.get(ch.room);
    subs?.delete(ch);
    if (subs?.size === 0) this.rooms.delete(ch.room);
    // The tracker untracks a terminated channel: a leave diff for the others.
    if (ch.presence) {
      const meta = ch.presence.meta;
      ch.presence = undefined;
      this.presenceDiff(ch, {}, { [ch.presenceKey]: { metas: [meta] } });
    }
  }

  /**
   * MessageDispatcher.dispatch: encode once per serializer, send to each
   * subscriber's socket. All channels of a room share the topic "realtime:<name>".
   * On private channels, broadcasts need broadcast read and presence_diff
   * presence read (the fastlane metadata's broadcast_read?/presence_read?).
   */
  private broadcast(room: string, out: Outbound, except?: Channel): void {
    const subs = this.rooms.get(room);
    if (!subs) return;
    const isPresence = out.type === 'message' && out.event === 'presence_diff';
    const cache = new Map<Vsn, string | Buffer | undefined>();
    let presenceDeliveries = 0;
    const overLimit: Channel[] = [];
    for (const ch of subs) {
      if (ch === except) continue;
      if (!(isPresence ? this.canReadPresence(ch) : this.canReadBroadcast(ch))) continue;
      const vsn = ch.conn.vsn;
      if (!cache.has(vsn)) cache.set(vsn, encode(vsn, out));
      const data = cache.get(vsn);
      if (data !== undefined) this.sendRaw(ch.conn, data);
      if (isPresence) {
        presenceDeliveries++;
      } else {
        // :update_rate_counter: each delivery counts; a channel that receives a message
        // while the limit is triggered is shut down (after that message).
        this.events.add();
        if (this.events.triggered) overLimit.push(ch);
        // The month's quota used by this delivery: the tenant is suspended, nothing more goes out.
        if (this.suspended) break;
      }
    }
    // increment_presence_counter: presence_diff deliveries count as presence events.
    if (presenceDeliveries > 0) this.presence.add(presenceDeliveries);
    for (const ch of overLimit) this.shutdown(ch, TOO_MANY_MESSAGES);
  }

  /** A reply from the channel process carries the channel's join_ref. */
  private reply(ch: Channel, ref: Json, status: 'ok' | 'error', response: Json): void {
    this.send(ch.conn, { type: 'reply', joinRef: ch.joinRef, ref, topic: ch.topic, status, response });
  }

  /** Phoenix.Channel.push: join_ref set, ref null unless given (phx_close uses the join_ref). */
  private push(ch: Channel, event: string, payloadJson: string, ref: Json = null): void {
    this.send(ch.conn, { type: 'message', joinRef: ch.joinRef, ref, topic: ch.topic, event, payloadJson });
  }

  private send(conn: Conn, out: Outbound): void {
    const data = encode(conn.vsn, out);
    if (data !== undefined) this.sendRaw(conn, data);
  }

  private sendRaw(conn: Conn, data: string | Buffer): void {
    if (conn.ws.readyState !== WebSocket.OPEN) return;
    this.cork(conn);
    conn.ws.send(data);
  }

  /**
   * The frames a socket gets while the current events are handled (a transaction's `action`
   * and `etat`, the rows of one read from the replication connection) leave in one write:
   * its TCP socket is corked until setImmediate. Same frames, same order.
   */
  private readonly corked = new Set<{ cork(): void; uncork(): void }>();
  private cork(conn: Conn): void {
    const socket = (conn.ws as unknown as { _socket?: { cork(): void; uncork(): void } })._socket;
    if (!socket || this.corked.has(socket)) return;
    if (this.corked.size === 0) setImmediate(() => this.uncorkAll());
    socket.cork();
    this.corked.add(socket);
  }
  private uncorkAll(): void {
    for (const socket of this.corked) socket.uncork();
    this.corked.clear();
  }
}
