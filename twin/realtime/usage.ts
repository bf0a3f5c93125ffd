// The Realtime messages of a project per calendar month, as Supabase bills them
// ("Manage Realtime Messages usage" in Supabase's docs: each message sent, plus one per
// subscribed client that receives it; database changes, Broadcast and Presence), and the
// plan's monthly quota applied the way a project with a spend cap meets it: once the
// month's quota is used, further use is disallowed until the next cycle ("Control your
// costs", Spend Cap). Supabase Realtime's own mechanism for a disallowed project is the
// tenant's `suspend` flag (supabase/realtime: UserSocket answers 403 "Realtime was disabled
// for this tenant", RealtimeDisabledForTenant; BatchBroadcast "Tenant is suspended"; a change
// of `suspend` disconnects the sockets and stops the database connection), so that is what
// the stand-in does. Hosted Supabase applies it later and less sharply (a billing e-mail,
// a grace period, then the Fair Use Policy's restrictions): the stand-in shows the end of
// that road at once, so a game that fits locally fits on the plan.
//
// Where the count lives: a table of the project database, `_realtime.usage_monthly` (one
// row per tenant and month), as Realtime keeps its own data in a `_realtime` schema on a
// local Supabase stack. The count survives a restart of the stand-in and of the database,
// and the console reads it from there (manette_admin.console_capacity). Counted messages are
// added to the row every 5 s and when the stand-in closes: a crash loses at most 5 s.
import pg from 'pg';
import type { Log } from './log.js';
import type { QuotaSettings } from './quotas.js';

/** Supabase's monthly Realtime messages quota by plan (pricing: 2 M Free, 5 M Pro and Team); without spend cap, overage is billed. */
export const MONTHLY_MESSAGES = { free: 2_000_000, pro: 5_000_000, 'pro-no-cap': 5_000_000 } as const;
/** $2.50 per million messages over the quota (Pro and Team, without spend cap). */
export const OVERAGE_USD_PER_MILLION = 2.5;

/**
 * The monthly quota the stand-in applies: MANETTE_REALTIME_MONTHLY_QUOTA (`off`: none), else
 * the plan's with its spend cap (Free, Pro); Pro without spend cap pays the overage instead.
 */
export function monthlyQuotaFrom(s: QuotaSettings): number | undefined {
  const q = s.MANETTE_REALTIME_MONTHLY_QUOTA;
  if (q === 'off') return undefined;
  if (q !== undefined) return q;
  return s.MANETTE_REALTIME_PLAN === 'pro-no-cap' ? undefined : MONTHLY_MESSAGES[s.MANETTE_REALTIME_PLAN];
}

export const USAGE_TABLE = '_realtime.usage_monthly';
const FLUSH_MS = 5_000;

export interface MonthlyUsageOptions {
  databaseUrl: string;
  /** The row's tenant (several stand-ins may share a database in tests). Default `local`. */
  tenant?: string;
  /** The monthly quota applied (refused past it), or undefined: counted only. */
  quota?: number;
  /** The current rate (messages per second, the events counter's average), written with each flush. */
  rate?: () => number;
  /** The clock (tests move it to the next month). */
  now?: () => Date;
  log: Log;
  /** Called once when the month's quota is used (the hub disconnects everyone). */
  onExhausted: () => void;
}

/** 'YYYY-MM-01' of a date's UTC calendar month, and the start of the next month in ms. */
export function monthOf(d: Date): { month: string; nextMs: number } {
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  return { month: `${y}-${String(m + 1).padStart(2, '0')}-01`, nextMs: Date.UTC(y, m + 1, 1) };
}

export class MonthlyUsage {
  /** The calendar month counted ('YYYY-MM-01', UTC). */
  month: string;
  private nextMs: number;
  /** Already in the table for this month. */
  private stored = 0;
  /** Counted, not yet written: by month (a flush may straddle a month's end). */
  private pending = new Map<string, number>();
  private used = false;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private readonly db: pg.Pool;
  private readonly tenant: string;
  private readonly now: () => Date;

  private constructor(private readonly opts: MonthlyUsageOptions) {
    this.tenant = opts.tenant ?? 'local';
    this.now = opts.now ?? (() => new Date());
    ({ month: this.month, nextMs: this.nextMs } = monthOf(this.now()));
    this.db = new pg.Pool({ connectionString: opts.databaseUrl, max: 1 });
    this.db.on('error', (err) => opts.log('warn', 'realtime: usage connection error', { error: err.message }));
  }

  /** Creates the table if needed, reads this month's count (a quota already used stays so). */
  static async start(opts: MonthlyUsageOptions): Promise<MonthlyUsage> {
    const u = new MonthlyUsage(opts);
    try {
      // Two stand-ins starting at once on one database: the loser of the race tries again.
      for (let attempt = 1; ; attempt++) {
        try {
          await u.db.query(`create schema if not exists _realtime;
            create table if not exists ${USAGE_TABLE} (
              tenant text not null,
              month date not null,
              messages bigint not null default 0,
              per_second double precision not null default 0,
              quota bigint,
              updated_at timestamptz not null default now(),
              primary key (tenant, month));
            grant usage on schema _realtime to public;
            grant select on ${USAGE_TABLE} to public;`);
          break;
        } catch (err) {
          const code = (err as { code?: string }).code;
          if (attempt >= 3 || (code !== '23505' && code !== '42P07' && code !== '40P01' && code !== 'XX000')) throw err;
        }
      }
      const r = await u.db.query<{ messages: string }>(
        `select messages from ${USAGE_TABLE} where tenant = $1 and month = $2`, [u.tenant, u.month]);
      u.stored = Number(r.rows[0]?.messages ?? 0);
      if (opts.quota !== undefined && u.stored >= opts.quota) u.exhaust();
    } catch (err) {
      await u.db.end().catch(() => {});
      throw err;
    }
    u.timer = setInterval(() => { u.roll(); void u.flush(); }, FLUSH_MS);
    u.timer.unref();
    return u;
  }

  /** This month's messages, counted and stored. */
  get total(): number {
    return this.stored + (this.pending.get(this.month) ?? 0);
  }

  /** The month's quota is used: Realtime is refused until the next month. */
  get exhausted(): boolean {
    this.roll();
    return this.used;
  }

  get quota(): number | undefined {
    return this.opts.quota;
  }

  /** n messages now. */
  add(n = 1): void {
    this.roll();
    this.pending.set(this.month, (this.pending.get(this.month) ?? 0) + n);
    if (this.opts.quota !== undefined && !this.used && this.total >= this.opts.quota) this.exhaust();
  }

  /** A new month: a new count, and the quota is available again. */
  private roll(): void {
    if (this.now().getTime() < this.nextMs) return;
    ({ month: this.month, nextMs: this.nextMs } = monthOf(this.now()));
    this.stored = 0;
    if (this.used) {
      this.used = false;
      this.opts.log('info', 'realtime: a new month: Realtime is enabled again');
    }
  }

  private exhaust(): void {
    this.used = true;
    this.opts.log('error', `realtime: RealtimeDisabledForTenant: this month's Realtime messages quota (${this.opts.quota}) is used; `
      + 'Realtime refuses connections until the next month (MANETTE_REALTIME_MONTHLY_QUOTA=off counts without refusing)');
    this.opts.onExhausted();
  }

  /** Adds what was counted to the table (one statement per month counted), with the current rate. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      const batch = [...this.pending];
      if (batch.length === 0) batch.push([this.month, 0]);
      for (const [month, n] of batch) {
        try {
          await this.db.query(
            `insert into ${USAGE_TABLE} as u (tenant, month, messages, per_second, quota, updated_at)
             values ($1, $2, $3, $4, $5, now())
             on conflict (tenant, month) do update set messages = u.messages + excluded.messages,
               per_second = excluded.per_second, quota = excluded.quota, updated_at = now()`,
            [this.tenant, month, n, month === this.month ? (this.opts.rate?.() ?? 0) : 0, this.opts.quota ?? null]);
          // Stored: moved from pending to stored (unless the month ended meanwhile).
          const left = (this.pending.get(month) ?? 0) - n;
          if (left > 0) this.pending.set(month, left);
          else this.pending.delete(month);
          if (month === this.month) this.stored += n;
        } catch (err) {
          this.opts.log('warn', 'realtime: could not store the month\'s message count (kept for the next try)', { error: (err as Error).message });
        }
      }
    });
    return this.flushing;
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
    await this.db.end();
  }
}
