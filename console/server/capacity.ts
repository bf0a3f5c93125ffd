// The overview's capacity (docs/capacity.md): the project's Realtime messages this month
// against its plan's monthly quota, the rate now against the plan's per-second limit, the
// date the month's quota runs out at that rate, and the sizes of realtime.messages and of
// the database against the Free plan's 0.5 GB. The figures come from
// manette_admin.console_capacity: counted by the local Realtime (exact) or, on a hosted
// project whose usage only Supabase's dashboard has, estimated from the match history.
// The plan is MANETTE_REALTIME_PLAN (the console's settings): the project's plan.
import { PLANS, quotasFrom, type Plan } from '../../twin/realtime/quotas.js';
import { MONTHLY_MESSAGES, OVERAGE_USD_PER_MILLION } from '../../twin/realtime/usage.js';
import type { Settings } from '../../api/config/settings.js';

/** Supabase's database quota: Free 500 MB of database size (read-only past it); Pro and Team 8 GB of disk included (auto-scaling without spend cap). */
export const DATABASE_BYTES: Record<Plan, number> = { free: 500 * 1024 ** 2, pro: 8 * 1024 ** 3, 'pro-no-cap': 8 * 1024 ** 3 };

export interface CapacityRaw {
  mois: string;
  maintenant: string;
  source: 'realtime_local' | 'estimation';
  compte: { messages_mois: number; messages_par_seconde: number | null; quota_mois: number | null; mis_a_jour_le: string | null } | null;
  estimation: { actions_mois: number; parties_mois: number; messages_mois: number; messages_par_seconde: number };
  taille_realtime_messages: number;
  /** null when the console's role may not read it (CONNECT on the database). */
  taille_base: number | null;
}

export interface Capacity {
  plan: Plan;
  source: 'realtime_local' | 'estimation';
  mois: string;
  fin_mois: string;
  messages_mois: number;
  /** The month's included messages: the local quota when one is applied, else the plan's. */
  quota_mois: number;
  /** Past the quota: refused (Free, Pro with spend cap, a local quota) or billed ($2.50 per million). */
  plafond: boolean;
  messages_par_seconde: number | null;
  limite_par_seconde: number;
  /** When the month's quota runs out at the current rate; null when not this month (or no rate). */
  epuisement: string | null;
  epuise: boolean;
  /** Messages by the end of the month at the current rate, and what is over the quota would cost without cap. */
  projection_fin_mois: number | null;
  depassement_usd: number | null;
  estimation: CapacityRaw['estimation'];
  mis_a_jour_le: string | null;
  taille_realtime_messages: number;
  taille_base: number | null;
  quota_base: number;
}

export function capacityOf(raw: CapacityRaw, settings: Settings): Capacity {
  const plan = settings.MANETTE_REALTIME_PLAN;
  const local = raw.source === 'realtime_local' && raw.compte !== null;
  const used = local ? raw.compte!.messages_mois : raw.estimation.messages_mois;
  const rate = local ? raw.compte!.messages_par_seconde : raw.estimation.messages_par_seconde;
  const localQuota = local ? raw.compte!.quota_mois : null;
  const quota = localQuota ?? MONTHLY_MESSAGES[plan];
  const plafond = localQuota !== null || plan !== 'pro-no-cap';
  const now = Date.parse(raw.maintenant);
  const start = new Date(`${raw.mois}T00:00:00Z`);
  const end = Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1);
  let epuisement: string | null = null;
  let projection: number | null = null;
  if (rate !== null) {
    projection = Math.round(used + rate * Math.max(0, end - now) / 1000);
    if (used < quota && rate > 0) {
      const at = now + ((quota - used) / rate) * 1000;
      if (at < end) epuisement = new Date(at).toISOString();
    }
  }
  const over = projection !== null ? Math.max(0, projection - quota) : null;
  return {
    plan, source: local ? 'realtime_local' : 'estimation', mois: raw.mois, fin_mois: new Date(end).toISOString(),
    messages_mois: used, quota_mois: quota, plafond,
    messages_par_seconde: rate, limite_par_seconde: quotasFrom(settings).maxEventsPerSecond ?? PLANS[plan].maxEventsPerSecond,
    epuisement, epuise: used >= quota,
    projection_fin_mois: projection,
    depassement_usd: over === null || plafond ? null : Math.ceil(over / 1e6) * OVERAGE_USD_PER_MILLION,
    estimation: raw.estimation,
    mis_a_jour_le: local ? raw.compte!.mis_a_jour_le : null,
    taille_realtime_messages: raw.taille_realtime_messages, taille_base: raw.taille_base, quota_base: DATABASE_BYTES[plan],
  };
}
