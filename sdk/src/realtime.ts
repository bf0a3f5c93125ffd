// Realtime for the SDK: one RealtimeClient per Manette client, opened on the first
// subscription, with the player's token from GET /realtime/config renewed before it
// expires (docs/matches.md). realtime-js is loaded lazily.
import { ManetteError } from './errors.js';
import type { RealtimeConfig } from './types.js';

/** The part of @supabase/realtime-js used here (kept local so the SDK's types do not need it). */
export interface RtChannel {
  on(type: 'broadcast', filter: { event: string }, cb: (msg: { event?: string; payload: unknown }) => void): RtChannel;
  subscribe(cb?: (status: string, err?: Error) => void): RtChannel;
  unsubscribe(): Promise<unknown>;
}
export interface RtClient {
  setAuth(token?: string | null): Promise<void>;
  channel(topic: string, opts: { config: { private: boolean } }): RtChannel;
  removeChannel(ch: RtChannel): Promise<unknown>;
  disconnect(): unknown;
}
export interface RealtimeModule { RealtimeClient: new (url: string, opts: { params: { apikey: string }; transport?: any }) => RtClient }
export type RealtimeLoader = () => Promise<RealtimeModule>;

export interface ChannelHandle { stop(): Promise<void> }
interface Listener { events: Record<string, (payload: unknown) => void>; onJoined: () => void; onFatal?: (err: ManetteError) => void }
interface Shared { listeners: Set<Listener>; joined: boolean; ready: Promise<void>; close: () => Promise<void> }

/** Renew this long before the token's expiry (it lasts ten minutes at most: renewed about every five). */
const RENEW_BEFORE_MS = 60_000;
const JOIN_TIMEOUT_MS = 15_000;
const MAX_JOIN_ERRORS = 5;
/** A channel closed by the server is joined again after 1 s, 2 s, 4 s... at most this. */
const REJOIN_MAX_MS = 10_000;

export class RealtimeHub {
  private rt: Promise<{ client: RtClient; cfg: RealtimeConfig }> | undefined;
  private users = 0;
  private renewTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly config: () => Promise<RealtimeConfig>,
    private readonly load: RealtimeLoader,
    private readonly lang: string,
    private readonly transport?: unknown,
  ) {}

  private open() {
    this.rt ??= (async () => {
      const [cfg, mod] = await Promise.all([this.config(), this.load()]);
      const client = new mod.RealtimeClient(cfg.url, { params: { apikey: cfg.key }, ...(this.transport ? { transport: this.transport } : {}) });
      if (cfg.token) await client.setAuth(cfg.token);
      this.scheduleRenew(cfg);
      return { client, cfg };
    })();
    this.rt.catch(() => { this.rt = undefined; });
    return this.rt;
  }

  private scheduleRenew(cfg: RealtimeConfig): void {
    if (this.renewTimer) clearTimeout(this.renewTimer);
    if (!cfg.token_expire_le) return;
    const left = Date.parse(cfg.token_expire_le) - Date.now();
    const delay = Math.max(1000, Math.min(left - RENEW_BEFORE_MS, left / 2));
    this.renewTimer = setTimeout(() => { void this.renew(); }, delay);
  }

  /** A fresh token for the open client (and its joined channels); retried on failure. */
  async renew(): Promise<void> {
    const rt = this.rt;
    if (!rt) return;
    try {
      const { client } = await rt;
      const cfg = await this.config();
      if (cfg.token) await client.setAuth(cfg.token);
      this.scheduleRenew(cfg);
    } catch (err) {
      if (err instanceof ManetteError && (err.code === 'invalid_token' || err.code === 'missing_player')) return;
      this.renewTimer = setTimeout(() => { void this.renew(); }, 5000);
    }
  }

  /**
   * Joins the topic `topicOf` names (private like the game's rooms unless `isPrivate` says; a
   * player's own channel `manette_joueur_<id>` always private), calls `onJoined` on every
   * (re)join. Resolves once joined the first time; rejects when refused or not joined in time.
   * A topic joined twice by this client (a player's own channel, heard by matchmaking and by
   * the matches of realtime.evenements etat_aux_autres) is one channel, its events told to
   * each. A channel the server closes (a `system` error then `phx_close`: an expired token, a
   * quota of the project) is not rejoined by realtime-js: it is joined again here, after a
   * pause and with a fresh token.
   */
  async join(topicOf: (cfg: RealtimeConfig) => string | Promise<string>, events: Record<string, (payload: unknown) => void>,
    onJoined: () => void, onFatal?: (err: ManetteError) => void, isPrivate?: boolean): Promise<ChannelHandle> {
    const { client, cfg } = await this.open();
    const topic = await topicOf(cfg);
    const listener: Listener = { events, onJoined, onFatal };
    this.users += 1;
    let shared = this.topics.get(topic);
    if (!shared) {
      shared = this.channel(client, cfg, topic, isPrivate ?? (topic.startsWith('manette_joueur_') ? true : cfg.private));
      this.topics.set(topic, shared);
    } else if (shared.joined) {
      // Joined already: this listener starts now (what came before is re-read by onJoined).
      queueMicrotask(() => { if (shared!.listeners.has(listener)) onJoined(); });
    }
    const s = shared;
    s.listeners.add(listener);
    let left = false;
    const stop = async () => {
      if (left) return;
      left = true;
      s.listeners.delete(listener);
      this.release();
      if (s.listeners.size === 0) await s.close();
    };
    try {
      await s.ready;
    } catch (err) {
      await stop();
      throw err;
    }
    return { stop };
  }

  private readonly topics = new Map<string, Shared>();
  /** Channels being left, by topic: realtime-js keeps one channel per topic, so a new one waits for the old one to go. */
  private readonly leaving = new Map<string, Promise<unknown>>();

  /** One realtime-js channel on `topic`, its events and (re)joins told to every listener. */
  private channel(client: RtClient, cfg: RealtimeConfig, topic: string, isPrivate: boolean): Shared {
    let stopped = false;
    let channel: RtChannel | undefined;
    let retry: ReturnType<typeof setTimeout> | undefined;
    const listeners = new Set<Listener>();
    const close = async () => {
      if (stopped) return;
      stopped = true;
      if (this.topics.get(topic) === shared) this.topics.delete(topic);
      if (retry) clearTimeout(retry);
      const ch = channel;
      channel = undefined;
      if (!ch) return;
      const left = client.removeChannel(ch).catch(() => undefined);
      this.leaving.set(topic, left);
      await left;
      if (this.leaving.get(topic) === left) this.leaving.delete(topic);
    };
    const shared: Shared = { listeners, joined: false, close, ready: Promise.resolve() };
    shared.ready = new Promise<void>((resolve, reject) => {
      let first = true;
      let errors = 0;
      let closes = 0;
      const timeout = setTimeout(() => fail(new ManetteError({ code: 'realtime_unavailable', status: 0, message: this.text('join') })), JOIN_TIMEOUT_MS);
      const fail = (e: ManetteError) => {
        clearTimeout(timeout);
        const told = [...listeners];
        void close();
        if (first) { first = false; reject(e); } else for (const l of told) l.onFatal?.(e);
      };
      const subscribe = () => {
        const ch = client.channel(topic, { config: { private: isPrivate } });
        channel = ch;
        // Every event, told to the listeners that asked for it (whenever they joined).
        ch.on('broadcast', { event: '*' }, (msg) => {
          const event = msg.event;
          if (event) for (const l of [...listeners]) l.events[event]?.(msg.payload);
        });
        ch.subscribe((status, err) => {
          if (stopped || channel !== ch) return;
          if (status === 'SUBSCRIBED') {
            errors = 0;
            closes = 0;
            shared.joined = true;
            if (first) { first = false; clearTimeout(timeout); resolve(); }
            for (const l of [...listeners]) l.onJoined();
          } else if (status === 'CHANNEL_ERROR') {
            // Refused (expired token, not a participant) or the socket failed: realtime-js
            // retries the join by itself; a fresh token may be what it needs.
            errors += 1;
            if (errors >= (first ? 2 : MAX_JOIN_ERRORS)) {
              fail(new ManetteError({ code: 'realtime_refused', status: 0, message: err?.message ?? this.text('refused') }));
            } else void this.renew();
          } else if (status === 'CLOSED') {
            if (first) return; // a refusal, counted above
            channel = undefined;
            shared.joined = false;
            void client.removeChannel(ch).catch(() => undefined);
            const delay = Math.min(REJOIN_MAX_MS, 1000 * 2 ** closes++);
            retry = setTimeout(() => {
              retry = undefined;
              if (!stopped) void this.renew().finally(() => { if (!stopped && !channel) subscribe(); });
            }, delay);
          }
        });
      };
      // The first listener is added right after this returns: subscribe once it is there (and
      // once a channel of the same topic this client was leaving is gone).
      void (this.leaving.get(topic) ?? Promise.resolve()).then(() => { if (!stopped) subscribe(); });
    });
    return shared;
  }

  private release(): void {
    this.users -= 1;
    if (this.users > 0 || !this.rt) return;
    const rt = this.rt;
    this.rt = undefined;
    if (this.renewTimer) clearTimeout(this.renewTimer);
    void rt.then(({ client }) => client.disconnect()).catch(() => undefined);
  }

  private text(what: 'join' | 'refused'): string {
    if (this.lang === 'en') return what === 'join' ? 'Realtime could not be joined.' : 'Realtime refused the subscription.';
    return what === 'join' ? 'Le temps réel est injoignable.' : 'Le temps réel a refusé l’abonnement.';
  }
}

/** Where the lazily loaded realtime bundle is: beside the SDK script, else on the API server. */
export function defaultRealtimeLoader(sdkUrl: string | undefined, apiBase: string): RealtimeLoader {
  const url = sdkUrl ? new URL('manette-realtime.mjs', sdkUrl).href : `${apiBase}/sdk/manette-realtime.mjs`;
  return () => import(/* webpackIgnore: true */ /* @vite-ignore */ url) as Promise<RealtimeModule>;
}
