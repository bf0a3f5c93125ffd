// The key games open Supabase Realtime with (the `apikey` of their socket): the project's
// publishable key (`sb_publishable_…`), as Supabase has its API keys now; the legacy `anon`
// JWT key only where no publishable key is given (docs/deploy.md, "Realtime's key").
//
// What Supabase hands an Edge Function (read in Supabase's sources, see docs/deploy.md):
// - SUPABASE_PUBLISHABLE_KEYS: the project's publishable keys by name, a JSON object such as
//   {"default":"sb_publishable_..."} (supabase/supabase apps/docs/content/guides/functions/auth.mdx;
//   supabase/server docs/environment-variables.md; the CLI's local runtime writes exactly
//   {"default": <key>}, supabase/cli apps/cli-go/internal/functions/serve/templates/main.ts);
// - SUPABASE_PUBLISHABLE_KEY: one key, the single-key form of local setups (supabase/server);
// - SUPABASE_ANON_KEY: the legacy `anon` JWT key, refused once a project disables its
//   legacy API keys.

/** Where the realtime key came from, for the start's log line. */
export type RealtimeKeySource = 'MANETTE_REALTIME_KEY' | `SUPABASE_PUBLISHABLE_KEYS.${string}` | 'SUPABASE_PUBLISHABLE_KEY' | 'SUPABASE_ANON_KEY (legacy)';

/**
 * The publishable key named `name` in SUPABASE_PUBLISHABLE_KEYS: that name if given (a
 * project may have several publishable keys), else `default`, else the only key there.
 * Undefined when the variable is unset or empty; an Error (thrown) when it is set but is not
 * such an object, or when it holds several keys none of which is named `default`.
 */
export function publishableKeyFrom(json: string | undefined, name?: string): { name: string; key: string } | undefined {
  if (json === undefined || json.trim() === '') return undefined;
  let keys: unknown;
  try {
    keys = JSON.parse(json);
  } catch {
    throw new Error('SUPABASE_PUBLISHABLE_KEYS is not JSON: expected an object of publishable keys by name, e.g. {"default":"sb_publishable_..."}');
  }
  if (typeof keys !== 'object' || keys === null || Array.isArray(keys)
    || !Object.values(keys).every((k) => typeof k === 'string' && k !== '')) {
    throw new Error('SUPABASE_PUBLISHABLE_KEYS must be a JSON object of publishable keys by name, e.g. {"default":"sb_publishable_..."}');
  }
  const byName = keys as Record<string, string>;
  const names = Object.keys(byName);
  if (name !== undefined) {
    if (!(name in byName)) throw new Error(`SUPABASE_PUBLISHABLE_KEYS has no key named ${JSON.stringify(name)} (MANETTE_REALTIME_KEY_NAME); it has ${names.map((n) => JSON.stringify(n)).join(', ') || 'none'}`);
    return { name, key: byName[name]! };
  }
  if ('default' in byName) return { name: 'default', key: byName.default! };
  if (names.length === 0) return undefined;
  if (names.length === 1) return { name: names[0]!, key: byName[names[0]!]! };
  throw new Error(`SUPABASE_PUBLISHABLE_KEYS holds several publishable keys (${names.map((n) => JSON.stringify(n)).join(', ')}) and none is named "default": `
    + 'name the one games use in MANETTE_REALTIME_KEY_NAME, or set MANETTE_REALTIME_KEY');
}

/**
 * The realtime key of an Edge Function, in this order: MANETTE_REALTIME_KEY (set by the
 * studio), the publishable key of SUPABASE_PUBLISHABLE_KEYS (named MANETTE_REALTIME_KEY_NAME,
 * else `default`), SUPABASE_PUBLISHABLE_KEY, and last the legacy SUPABASE_ANON_KEY.
 */
export function realtimeKeyFromSupabaseEnv(env: Record<string, string | undefined>): { key: string; source: RealtimeKeySource } | undefined {
  const nonEmpty = (v: string | undefined) => (v !== undefined && v.trim() !== '' ? v.trim() : undefined);
  const own = nonEmpty(env.MANETTE_REALTIME_KEY);
  if (own) return { key: own, source: 'MANETTE_REALTIME_KEY' };
  const named = publishableKeyFrom(env.SUPABASE_PUBLISHABLE_KEYS, nonEmpty(env.MANETTE_REALTIME_KEY_NAME));
  if (named) return { key: named.key, source: `SUPABASE_PUBLISHABLE_KEYS.${named.name}` };
  const single = nonEmpty(env.SUPABASE_PUBLISHABLE_KEY);
  if (single) return { key: single, source: 'SUPABASE_PUBLISHABLE_KEY' };
  const anon = nonEmpty(env.SUPABASE_ANON_KEY);
  if (anon) return { key: anon, source: 'SUPABASE_ANON_KEY (legacy)' };
  return undefined;
}

/** A key shaped like Supabase's legacy JWT API keys (`anon`, `service_role`): three dot-separated parts. */
export const isLegacyJwtKey = (key: string): boolean => /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(key.trim());
