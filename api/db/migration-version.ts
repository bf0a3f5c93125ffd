// Migration versions: YYYYMMDDHHMMSS in UTC, as `supabase migration new` names files. A new
// file takes the current second, or one second after the latest existing version when
// that is later (files written before may carry a later stamp); never a chosen date.

/** The version of a moment: its UTC second as YYYYMMDDHHMMSS. */
export function versionAt(at: Date): string {
  return at.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

/** The moment a version names (UTC); undefined when it is not a valid YYYYMMDDHHMMSS. */
export function versionTime(version: string): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(version);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s] = m.map(Number) as number[];
  const t = new Date(Date.UTC(y!, mo! - 1, d!, h!, mi!, s!));
  return versionAt(t) === version ? t : undefined;
}

/** `version` moved by `seconds` (a version that is not a valid time moves as a number). */
export function shiftVersion(version: string, seconds: number): string {
  const t = versionTime(version);
  if (!t) return String(BigInt(version) + BigInt(seconds)).padStart(14, '0');
  return versionAt(new Date(t.getTime() + seconds * 1000));
}

/**
 * The version of a new migration beside `existing` ones (versions, or file names starting
 * with one): now, or one second after the latest when that is not earlier than now.
 */
export function nextMigrationVersion(existing: Iterable<string>, now: Date = new Date()): string {
  const latest = [...existing].map((v) => /^\d{14}/.exec(v)?.[0]).filter((v): v is string => !!v).sort().at(-1);
  const current = versionAt(now);
  if (!latest || current > latest) return current;
  return shiftVersion(latest, 1);
}

/** A migration's name: lower-case letters, digits and `_`. */
export const MIGRATION_NAME = /^[a-z0-9_]+$/;
