// What the console lets through from its Realtime socket (docs/console.md#matches, "What the page trusts").
//
// A match room is written by the server and, in a game with `"diffusion_joueurs": true`, by
// its participants too: any event name (`etat` and `action` included), any payload, even a
// forged `meta`, which Realtime forwards as is to every subscriber, the console included.
// So the page never reads a payload: an event only tells it to re-read the server (the
// console's endpoints, manette_admin.* SQL). And this guard, run on every decoded frame
// before realtime-js looks at it, keeps what the library itself trips on away from it (a
// broadcast whose `event` is no string throws in its filter; one with an `ids` key is taken
// for a postgres_changes message and throws in its transform): a broadcast reaches the
// channel as `{type: "broadcast", event, payload: null}` and nothing more, or not at all.

/** The Phoenix messages realtime-js handles for the console: the server's own replies and notices, and broadcasts. */
const PASSED = new Set(['phx_reply', 'phx_error', 'phx_close', 'system']);

export interface PhoenixMessage { join_ref?: unknown; ref?: unknown; topic?: unknown; event?: unknown; payload?: unknown }

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The message realtime-js may see, or null to drop it. Broadcasts lose their payload and
 * anything but their event name; presence (the console tracks none and reads none) and any
 * other event are dropped.
 */
export function guardMessage(msg: unknown): PhoenixMessage | null {
  if (!isObject(msg) || typeof msg.topic !== 'string' || typeof msg.event !== 'string') return null;
  if (msg.event === 'broadcast') {
    const p = msg.payload;
    if (!isObject(p) || p.type !== 'broadcast' || typeof p.event !== 'string' || p.event.length > 255) return null;
    return { join_ref: null, ref: null, topic: msg.topic, event: 'broadcast', payload: { type: 'broadcast', event: p.event, payload: null } };
  }
  if (!PASSED.has(msg.event)) return null;
  return msg;
}

type Decode = (raw: any, callback: (msg: any) => void) => void;

/**
 * A `decode` for RealtimeClient: the library's own (set once the client exists, through
 * `setInner`), then guardMessage. A frame the library cannot decode is dropped too.
 */
export function guardedDecode(): { decode: Decode; setInner(inner: Decode): void } {
  let inner: Decode | undefined;
  return {
    setInner(d) { inner = d; },
    decode(raw, callback) {
      let decoded: unknown;
      try {
        inner!(raw, (m) => { decoded = m; });
      } catch {
        return;
      }
      const safe = guardMessage(decoded);
      if (safe) callback(safe);
    },
  };
}
