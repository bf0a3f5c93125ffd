// Wire format of Supabase Realtime (a Phoenix socket), both serializers it
// negotiates from the `vsn` query parameter (RealtimeWeb.Endpoint):
//   1.0.0 -> Phoenix.Socket.V1.JSONSerializer: JSON objects {topic, event, payload, ref[, join_ref]};
//            join_ref is read from the client but never written back.
//   2.0.0 -> RealtimeWeb.Socket.V2Serializer: JSON arrays [join_ref, ref, topic, event, payload]
//            plus binary frames (first byte = kind) for user broadcasts, the ones
//            @supabase/realtime-js sends (kind 3) and expects (kind 4).

export type Vsn = '1.0.0' | '2.0.0';
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

// Binary frame kinds of RealtimeWeb.Socket.V2Serializer.
const PUSH = 0;
const BROADCAST = 2;
const USER_BROADCAST_PUSH = 3;
const USER_BROADCAST = 4;

/** Phoenix `~> 1.0.0` / `~> 2.0.0` requirements; Phoenix defaults a missing vsn to 1.0.0. */
export function negotiateVsn(vsn: string | null): Vsn | undefined {
  if (vsn === null || /^1\.0\.\d+$/.test(vsn)) return '1.0.0';
  if (/^2\.0\.\d+$/.test(vsn)) return '2.0.0';
  return undefined;
}

export type InboundPayload =
  | { kind: 'json'; value: Json }
  // kind 3 frame: a realtime-js `channel.send({type: 'broadcast', event, payload})`.
  | { kind: 'user_broadcast'; userEvent: string; encoding: 'json' | 'binary'; data: Buffer }
  // kind 0 frame: a push whose whole payload is binary.
  | { kind: 'binary'; data: Buffer };

/** A decoded client frame (Phoenix.Socket.Message). Refs are echoed back as sent (string, number or null). */
export interface Inbound { joinRef: Json; ref: Json; topic: string; event: string; payload: InboundPayload }

export type Outbound =
  // phx_reply to a client push: payload {status, response}.
  | { type: 'reply'; joinRef: Json; ref: Json; topic: string; status: 'ok' | 'error'; response: Json }
  // A server push (presence_state, phx_close, system) or a JSON broadcast
  // (Phoenix.Socket.Broadcast: joinRef and ref null). payloadJson is already
  // serialized so a row's jsonb text can be forwarded verbatim, as Supabase does
  // with a Jason.Fragment.
  | { type: 'message'; joinRef: Json; ref: Json; topic: string; event: string; payloadJson: string }
  // RealtimeWeb.Socket.UserBroadcast: a broadcast that arrived as a kind 3 frame (no
  // metadata), or a realtime.messages row (metadata: the JSON of {id}).
  | { type: 'user_broadcast'; topic: string; userEvent: string; encoding: 'json' | 'binary'; data: Buffer; metadata?: string }
  // Phoenix.Socket.Broadcast with a {:binary, data} payload (from a kind 0 push).
  | { type: 'binary_broadcast'; topic: string; event: string; data: Buffer };

export class InvalidMessageError extends Error {}

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

export function decode(vsn: Vsn, data: Buffer, isBinary: boolean): Inbound {
  if (vsn === '2.0.0' && isBinary) return decodeBinary(data);
  let parsed: unknown;
  try {
    parsed = JSON.parse(data.toString('utf8'));
  } catch (e) {
    throw new InvalidMessageError(`invalid JSON: ${(e as Error).message}`);
  }
  let msg: { joinRef: unknown; ref: unknown; topic: unknown; event: unknown; payload: unknown };
  if (vsn === '2.0.0') {
    // V2Serializer.decode_text: [join_ref, ref, topic, event, payload | _]
    if (!Array.isArray(parsed) || parsed.length < 5) throw new InvalidMessageError('expected V2 array');
    const [joinRef, ref, topic, event, payload] = parsed as unknown[];
    msg = { joinRef, ref, topic, event, payload };
  } else {
    // Phoenix.Socket.Message.from_map!: topic, event, payload and ref are required keys.
    if (!isObject(parsed)) throw new InvalidMessageError('V1 JSON Serializer expected a map');
    for (const key of ['topic', 'event', 'payload', 'ref']) {
      if (!(key in parsed)) throw new InvalidMessageError(`missing key "${key}"`);
    }
    msg = { joinRef: parsed.join_ref ?? null, ref: parsed.ref, topic: parsed.topic, event: parsed.event, payload: parsed.payload };
  }
  if (typeof msg.topic !== 'string' || typeof msg.event !== 'string') throw new InvalidMessageError('topic and event must be strings');
  return {
    joinRef: (msg.joinRef ?? null) as Json, ref: (msg.ref ?? null) as Json,
    topic: msg.topic, event: msg.event, payload: { kind: 'json', value: (msg.payload ?? null) as Json },
  };
}

function decodeBinary(buf: Buffer): Inbound {
  const kind = buf[0];
  // Header layouts of V2Serializer.decode_binary; sizes are byte counts.
  const headerLen = kind === PUSH ? 5 : kind === USER_BROADCAST_PUSH ? 7 : -1;
  if (headerLen < 0 || buf.length < headerLen) throw new InvalidMessageError(`unknown binary frame kind ${String(kind)}`);
  const sizes = [...buf.subarray(1, kind === PUSH ? 5 : 6)];
  let offset = headerLen;
  const fields = sizes.map((size) => {
    if (offset + size > buf.length) throw new InvalidMessageError('truncated binary frame');
    const s = buf.toString('utf8', offset, offset + size);
    offset += size;
    return s;
  });
  const [joinRef = '', ref = '', topic = '', event = '', metadata = ''] = fields;
  const data = buf.subarray(offset);
  if (kind === PUSH) return { joinRef, ref, topic, event, payload: { kind: 'binary', data } };
  if (metadata !== '') {
    // Parsed (and rejected if invalid) like Supabase does, then unused: BroadcastHandler drops it.
    try { JSON.parse(metadata); } catch { throw new InvalidMessageError('invalid metadata JSON'); }
  }
  return {
    joinRef, ref, topic, event: 'broadcast',
    payload: { kind: 'user_broadcast', userEvent: event, encoding: buf[6] === 0 ? 'binary' : 'json', data },
  };
}

const j = (v: Json): string => JSON.stringify(v);

/**
 * Encodes one outbound message for a connection's serializer. Returns undefined
 * when the serializer cannot represent it (Supabase then drops it for that
 * subscriber: binary broadcasts to V1 sockets, oversized binary headers).
 */
export function encode(vsn: Vsn, out: Outbound): string | Buffer | undefined {
  if (vsn === '1.0.0') {
    // Phoenix V1 encode_v1_fields_only: {event, payload, ref, topic} (Jason key order), no join_ref.
    switch (out.type) {
      case 'reply':
        return `{"event":"phx_reply","payload":{"response":${j(out.response)},"status":${j(out.status)}},"ref":${j(out.ref)},"topic":${j(out.topic)}}`;
      case 'message':
        return `{"event":${j(out.event)},"payload":${out.payloadJson},"ref":${j(out.ref)},"topic":${j(out.topic)}}`;
      case 'user_broadcast': {
        // MessageDispatcher converts a UserBroadcast for V1 sockets with
        // UserBroadcast.convert_to_json_broadcast: JSON user payloads only.
        if (out.encoding !== 'json') return undefined;
        const raw = out.data.toString('utf8');
        try { JSON.parse(raw); } catch { return undefined; }
        // The map's keys in Jason's order: event, meta (when there is metadata), payload, type.
        const meta = out.metadata === undefined ? '' : `"meta":${out.metadata},`;
        const payloadJson = `{"event":${j(out.userEvent)},${meta}"payload":${raw},"type":"broadcast"}`;
        return encode(vsn, { type: 'message', joinRef: null, ref: null, topic: out.topic, event: 'broadcast', payloadJson });
      }
      case 'binary_broadcast':
        return undefined;
    }
  }
  switch (out.type) {
    case 'reply':
      return `[${j(out.joinRef)},${j(out.ref)},${j(out.topic)},"phx_reply",{"response":${j(out.response)},"status":${j(out.status)}}]`;
    case 'message':
      return `[${j(out.joinRef)},${j(out.ref)},${j(out.topic)},${j(out.event)},${out.payloadJson}]`;
    case 'user_broadcast': {
      // V2Serializer.fastlane!(%UserBroadcast{}): kind 4, topic/event/metadata sizes,
      // payload encoding (1 = JSON, 0 = binary), then the strings and the raw payload.
      // realtime-js decodes it to {type: 'broadcast', event, payload[, meta]}.
      const topic = Buffer.from(out.topic), event = Buffer.from(out.userEvent), meta = Buffer.from(out.metadata ?? '');
      if (topic.length > 255 || event.length > 255 || meta.length > 255) return undefined;
      const header = Buffer.from([USER_BROADCAST, topic.length, event.length, meta.length, out.encoding === 'json' ? 1 : 0]);
      return Buffer.concat([header, topic, event, meta, out.data]);
    }
    case 'binary_broadcast': {
      // V2Serializer.fastlane!(%Broadcast{payload: {:binary, data}}): kind 2.
      const topic = Buffer.from(out.topic), event = Buffer.from(out.event);
      if (topic.length > 255 || event.length > 255) return undefined;
      return Buffer.concat([Buffer.from([BROADCAST, topic.length, event.length]), topic, event, out.data]);
    }
  }
}
