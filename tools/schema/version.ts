// Migration versions: YYYYMMDDHHMMSS in UTC, as `supabase migration new` names files. A new
// migration takes the current second, or one second after the latest existing version when
// that is later (a file may carry a stamp ahead of the clock); never a date chosen by hand.
// `npm run migration` uses it; a command writing migrations into a studio's folder can too.

/** The version of a moment: its UTC second as YYYYMMDDHHMMSS. */
export function versionAt(at: Date): string {
  return at.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

/** The moment a version names (UTC), or undefined when it is not a real YYYYMMDDHHMMSS. */
export function versionTime(version: string): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(version);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const t = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  return versionAt(t) === version ? t : undefined;
}

/**
 * The version of a new migration beside `existing` ones (versions, or file names starting
 * with one): `now` as YYYYMMDDHHMMSS, or one second after the latest existing version when
 * that is not earlier than now.
 */
export function nextMigrationVersion(existing: Iterable<string>, now: Date = new Date()): string {
  const versions = [...existing].map((v) => /^\d{14}/.exec(v)?.[0]).filter((v): v is string => !!v).sort();
  const latest = versions.at(-1);
  const current = versionAt(now);
  if (latest === undefined || current > latest) return current;
  const t = versionTime(latest);
  // A latest version that is not a real time (e.g. 20261122000099) moves on as a number.
  return t ? versionAt(new Date(t.getTime() + 1000)) : String(BigInt(latest) + 1n).padStart(14, '0');
}

/** A migration's name: lower-case letters, digits and `_`. */
export const MIGRATION_NAME = /^[a-z0-9_]+$/;
