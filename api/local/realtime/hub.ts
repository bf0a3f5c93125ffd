// Channel semantics of Supabase Realtime for broadcast and presence: what
// Phoenix.Socket, RealtimeWeb.RealtimeChannel (+ BroadcastHandler,
// PresenceHandler) and MessageDispatcher do with each client message.
import { randomBytes, randomUUID } from 'node:crypto';
import { WebSocket } from 'ws';
import { decode, encode, type Inbound, type Json, type JsonObject, type Outbound, type Vsn } from './protocol.js';
import type { Log } from './listener.js';

export interface Conn { ws: WebSocket; vsn: Vsn; channels: Map<string, Channel>; lastSeen: number }

interface Channel {
  conn: Conn; topic: string; joinRef: Json; room: string;
  self: boolean; ack: boolean;
  presenceKey: string; presenceEnabled: boolean;
  /** Tracked presence: meta = the track payload + phx_ref (Phoenix.Presence). */
  presence?: { meta: JsonObject; canonical: string };
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
const canonical = (v: Json): string => JSON.stringify(v, (_k, val: unknown) =>
  isObject(val) ? Object.fromEntries(Object.entries(val).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : val);
// Phoenix.Tracker refs: 8 random bytes, base64.
const newPhxRef = (): string => randomBytes(8).toString('base64');
const j = JSON.stringify;

export class Hub {
  readonly conns = new Set<Conn>();
  private readonly rooms = new Map<string, Set<Channel>>();

  constructor(private readonly log: Log) {}

  open(ws: WebSocket, vsn: Vsn): Conn {
    const conn: Conn = { ws, vsn, channels: new Map(), lastSeen: Date.now() };
    this.conns.add(conn);
    return conn;
  }

  /** Socket closed: its channels terminate, tracked presences leave (presence_diff to the others). */
  close(conn: Conn): void {
    for (const ch of [...conn.channels.values()]) this.removeChannel(ch);
    this.conns.delete(conn);
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
    try {
      this.route(conn, msg);
    } catch (err) {
      this.log('error', 'realtime: UnknownErrorOnWebSocketMessage', { error: (err as Error).message, topic: msg.topic, event: msg.event });
    }
  }

  /**
   * A broadcast from the database (realtime.send, via BatchBroadcast) or the
   * REST API: a Phoenix.Socket.Broadcast with payload
   * {event, meta: {id}, payload, type: "broadcast"} sent as JSON (text frame) to
   * every subscriber, V1 and V2 alike. payloadJson is the user payload, verbatim.
   */
  deliver(m: { topic: string; isPrivate: boolean; event: string; payloadJson: string; id?: string }): void {
    const meta = m.id === undefined ? '' : `"meta":{"id":${j(m.id)}},`;
    this.broadcast(roomOf(m.topic, m.isPrivate), {
      type: 'message', joinRef: null, ref: null, topic: `realtime:${m.topic}`, event: 'broadcast',
      payloadJson: `{"event":${j(m.event)},${meta}"payload":${m.payloadJson},"type":"broadcast"}`,
    });
  }

  private route(conn: Conn, msg: Inbound): void {
    // Phoenix.Socket answers heartbeats itself.
    if (msg.topic === 'phoenix' && msg.event === 'heartbeat') {
      return this.send(conn, { type: 'reply', joinRef: null, ref: msg.ref, topic: 'phoenix', status: 'ok', response: {} });
    }
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
        return; // accepted without reply; JWTs are not verified locally
      default:
        // RealtimeChannel.handle_in fallback: ignored, no reply.
        return this.log('info', `realtime: unexpected message from client of type \`${msg.event}\``, { topic: ch.topic });
    }
  }

  private join(conn: Conn, msg: Inbound): void {
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
    if (subTopic === '') {
      return this.send(conn, { type: 'reply', joinRef, ref, topic, status: 'error', response: { reason: 'TopicNameRequired: You must provide a topic name' } });
    }
    // RealtimeWeb.Channels.Payloads.Join, parsed leniently like Supabase (invalid fields fall back to defaults).
    const params = msg.payload.kind === 'json' && isObject(msg.payload.value) ? msg.payload.value : {};
    const config = isObject(params.config) ? params.config : undefined;
    const broadcast = config && isObject(config.broadcast) ? config.broadcast : {};
    const presence = config && isObject(config.presence) ? config.presence : undefined;
    const key = presence?.key;
    const ch: Channel = {
      conn, topic, joinRef, room: roomOf(subTopic, flag(config?.private)),
      self: flag(broadcast.self), ack: flag(broadcast.ack),
      // Join.presence_key: a generated UUID when the key is "" or absent.
      presenceKey: (typeof key === 'string' && key !== '') || typeof key === 'number' || typeof key === 'boolean' ? String(key) : randomUUID(),
      // Join.presence_enabled?: config.presence.enabled, or true when the join carries no presence config.
      presenceEnabled: presence ? flag(presence.enabled) : true,
    };
    if (Array.isArray(config?.postgres_changes) && config.postgres_changes.length > 0) {
      this.log('warn', 'realtime: postgres_changes is not supported by the local Realtime (join replies with an empty list)', { topic });
    }
    conn.channels.set(topic, ch);
    let subs = this.rooms.get(ch.room);
    if (!subs) this.rooms.set(ch.room, (subs = new Set()));
    subs.add(ch);
    // RealtimeChannel.join returns {:ok, %{postgres_changes: [...]}, socket}; realtime-js
    // matches that list against its postgres_changes bindings.
    this.send(conn, { type: 'reply', joinRef, ref, topic, status: 'ok', response: { postgres_changes: [] } });
    // :sync_presence right after the join when presence is enabled.
    if (ch.presenceEnabled) this.push(ch, 'presence_state', j(this.presenceState(ch.room)));
  }

  private clientBroadcast(ch: Channel, msg: Inbound): void {
    const p = msg.payload;
    let out: Outbound;
    if (p.kind === 'user_broadcast') {
      // BroadcastHandler.build_broadcast -> %UserBroadcast{} (metadata dropped).
      out = { type: 'user_broadcast', topic: ch.topic, userEvent: p.userEvent, encoding: p.encoding, data: p.data };
    } else if (p.kind === 'binary') {
      out = { type: 'binary_broadcast', topic: ch.topic, event: 'broadcast', data: p.data };
    } else if (isObject(p.value)) {
      // JSON broadcast: the client's payload ({type, event, payload}) is forwarded as is.
      out = { type: 'message', joinRef: null, ref: null, topic: ch.topic, event: 'broadcast', payloadJson: j(p.value) };
    } else {
      return this.log('warn', 'realtime: broadcast payload must be an object, message dropped', { topic: ch.topic });
    }
    // broadcast.self -> pubsub_broadcast (sender included), else broadcast_from (sender excluded).
    this.broadcast(ch.room, out, ch.self ? undefined : ch);
    if (ch.ack) this.reply(ch, msg.ref, 'ok', {});
  }

  private clientPresence(ch: Channel, msg: Inbound): void {
    const p = msg.payload.kind === 'json' ? msg.payload.value : null;
    // PresenceHandler.handle without an "event" is a no-op that still replies ok.
    if (!isObject(p) || typeof p.event !== 'string') return this.reply(ch, msg.ref, 'ok', {});
    const key = ch.presenceKey;
    switch (p.event.toLowerCase()) {
      case 'track': {
        const data = p.payload === undefined ? {} : p.payload;
        if (!isObject(data)) return this.reply(ch, msg.ref, 'error', { reason: 'Presence track payload must be a map' });
        const prev = ch.presence;
        const c = canonical(data);
        if (prev?.canonical === c) return this.reply(ch, msg.ref, 'ok', {}); // unchanged payload: no-op
        // Presence.track, or Presence.update when already tracked (new phx_ref, phx_ref_prev = old one).
        const meta: JsonObject = { ...data, phx_ref: newPhxRef(), ...(prev ? { phx_ref_prev: prev.meta.phx_ref ?? null } : {}) };
        ch.presence = { meta, canonical: c };
        const wasEnabled = ch.presenceEnabled;
        ch.presenceEnabled = true;
        this.reply(ch, msg.ref, 'ok', {});
        // A track on a channel joined without presence enables it and syncs the state now.
        if (!wasEnabled) this.push(ch, 'presence_state', j(this.presenceState(ch.room)));
        return this.presenceDiff(ch, { [key]: { metas: [meta] } }, prev ? { [key]: { metas: [prev.meta] } } : {});
      }
      case 'untrack': {
        const prev = ch.presence;
        ch.presence = undefined;
        this.reply(ch, msg.ref, 'ok', {});
        if (prev) this.presenceDiff(ch, {}, { [key]: { metas: [prev.meta] } });
        return;
      }
      default:
        this.log('warn', `realtime: UnknownPresenceEvent ${p.event}`, { topic: ch.topic });
        return this.reply(ch, msg.ref, 'error', {});
    }
  }

  /** Phoenix.Presence.list grouped: {key: {metas: [meta, ...]}}. */
  private presenceState(room: string): Record<string, { metas: JsonObject[] }> {
    const state: Record<string, { metas: JsonObject[] }> = {};
    for (const ch of this.rooms.get(room) ?? []) {
      if (ch.presence) (state[ch.presenceKey] ??= { metas: [] }).metas.push(ch.presence.meta);
    }
    return state;
  }

  /** presence_diff goes to every subscriber of the room, the tracking socket included (it comes from the Presence process). */
  private presenceDiff(ch: Channel, joins: Json, leaves: Json): void {
    this.broadcast(ch.room, { type: 'message', joinRef: null, ref: null, topic: ch.topic, event: 'presence_diff', payloadJson: j({ joins, leaves }) });
  }

  private removeChannel(ch: Channel): void {
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
   */
  private broadcast(room: string, out: Outbound, except?: Channel): void {
    const subs = this.rooms.get(room);
    if (!subs) return;
    const cache = new Map<Vsn, string | Buffer | undefined>();
    for (const ch of subs) {
      if (ch === except) continue;
      const vsn = ch.conn.vsn;
      if (!cache.has(vsn)) cache.set(vsn, encode(vsn, out));
      const data = cache.get(vsn);
      if (data !== undefined) this.sendRaw(ch.conn, data);
    }
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
    if (conn.ws.readyState === WebSocket.OPEN) conn.ws.send(data);
  }
}
