// Supabase Realtime's per-project quotas ("Realtime Limits" in Supabase's docs, the
// tenant's max_* fields in supabase/realtime) and its rate counters, so that what works
// locally works on the plan a game will run on. Defaults: the Free plan.
export type Plan = 'free' | 'pro' | 'pro-no-cap';

export interface Quotas {
  /** max_concurrent_users: sockets that have joined a channel. */
  maxConnections: number;
  /** max_events_per_second: messages in and out (each delivery to each subscriber counts). */
  maxEventsPerSecond: number;
  /** max_joins_per_second */
  maxJoinsPerSecond: number;
  /** max_channels_per_client */
  maxChannelsPerConnection: number;
  /** max_presence_events_per_second */
  maxPresenceEventsPerSecond: number;
  /** max_payload_size_in_kb */
  maxPayloadKb: number;
}

/** Supabase's "Realtime Limits" page, limits by plan (Pro without spend cap = Team). */
export const PLANS: Readonly<Record<Plan, Readonly<Quotas>>> = {
  free: { maxConnections: 200, maxEventsPerSecond: 100, maxJoinsPerSecond: 100, maxChannelsPerConnection: 100, maxPresenceEventsPerSecond: 20, maxPayloadKb: 256 },
  pro: { maxConnections: 500, maxEventsPerSecond: 500, maxJoinsPerSecond: 500, maxChannelsPerConnection: 100, maxPresenceEventsPerSecond: 50, maxPayloadKb: 3000 },
  'pro-no-cap': { maxConnections: 10_000, maxEventsPerSecond: 2500, maxJoinsPerSecond: 2500, maxChannelsPerConnection: 100, maxPresenceEventsPerSecond: 1000, maxPayloadKb: 3000 },
};

/** The settings that choose the quotas (api/config/settings.ts). */
export interface QuotaSettings {
  MANETTE_REALTIME_PLAN: Plan;
  MANETTE_REALTIME_MAX_CONNECTIONS?: number;
  MANETTE_REALTIME_MAX_EVENTS_PER_SECOND?: number;
  MANETTE_REALTIME_MAX_JOINS_PER_SECOND?: number;
  MANETTE_REALTIME_MAX_CHANNELS_PER_CONNECTION?: number;
  MANETTE_REALTIME_MAX_PRESENCE_EVENTS_PER_SECOND?: number;
  MANETTE_REALTIME_MAX_PAYLOAD_KB?: number;
  MANETTE_REALTIME_MONTHLY_QUOTA?: number | 'off';
}

/** The plan's quotas, each replaced by its explicit setting when there is one. */
export function quotasFrom(s: QuotaSettings): Quotas {
  const plan = PLANS[s.MANETTE_REALTIME_PLAN];
  return {
    maxConnections: s.MANETTE_REALTIME_MAX_CONNECTIONS ?? plan.maxConnections,
    maxEventsPerSecond: s.MANETTE_REALTIME_MAX_EVENTS_PER_SECOND ?? plan.maxEventsPerSecond,
    maxJoinsPerSecond: s.MANETTE_REALTIME_MAX_JOINS_PER_SECOND ?? plan.maxJoinsPerSecond,
    maxChannelsPerConnection: s.MANETTE_REALTIME_MAX_CHANNELS_PER_CONNECTION ?? plan.maxChannelsPerConnection,
    maxPresenceEventsPerSecond: s.MANETTE_REALTIME_MAX_PRESENCE_EVENTS_PER_SECOND ?? plan.maxPresenceEventsPerSecond,
    maxPayloadKb: s.MANETTE_REALTIME_MAX_PAYLOAD_KB ?? plan.maxPayloadKb,
  };
}

/** Tenants.validate_payload_size: max_payload_size_in_kb * 1000 plus 500 bytes of padding. */
export const payloadLimitBytes = (q: Quotas): number => q.maxPayloadKb * 1000 + 500;

// Realtime.RateCounter as the tenant counters use it (Tenants.events_per_second_rate and
// the joins and presence ones): every tick (5 s) the count since the last tick goes into a
// bucket, the last 12 buckets (60 s) are kept, `avg` is their sum / buckets / 5 s. The
// limit is `triggered` at a tick where avg >= limit, and released at a tick where it is
// below. A counter starts with one empty bucket (its first tick runs at once) and stops
// after 5 minutes of empty buckets, to start afresh on its next use.
const TICK_MS = 5_000;
const MAX_BUCKETS = 12;
const IDLE_MS = 5 * 60_000;

export class RateCounter {
  private count = 0;
  private buckets: number[] = [];
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private idleSince = 0;
  avg = 0;
  triggered = false;

  /** onAdd: every count also goes there (the month's messages, usage.ts). */
  constructor(readonly limit: number, private readonly onTrigger?: () => void, private readonly onAdd?: (n: number) => void) {}

  /** GenCounter.add, starting the counter if it is not running. */
  add(n = 1): void {
    this.start();
    this.count += n;
    this.onAdd?.(n);
  }

  /** RateCounter.new: started on first use. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.count = 0;
    this.buckets = [0];
    this.avg = 0;
    this.triggered = false;
    this.idleSince = Date.now();
    this.timer = setInterval(() => this.tick(), TICK_MS);
    this.timer.unref();
  }

  private tick(): void {
    this.buckets = [this.count, ...this.buckets].slice(0, MAX_BUCKETS);
    this.count = 0;
    const sum = this.buckets.reduce((a, b) => a + b, 0);
    this.avg = sum / this.buckets.length / (TICK_MS / 1000);
    if (this.triggered) {
      if (this.avg < this.limit) this.triggered = false;
    } else if (this.avg >= this.limit) {
      this.triggered = true;
      this.onTrigger?.();
    }
    if (sum > 0) this.idleSince = Date.now();
    else if (Date.now() - this.idleSince >= IDLE_MS) this.stop();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.running = false;
    this.avg = 0;
    this.triggered = false;
  }
}
