// A studio's copy of Manette's SQL: one file in the studio's supabase/migrations that
// carries, byte for byte, the Manette migrations the studio did not have yet, under a
// version of the studio's own time (written by `manette supabase-migrations`). The Supabase
// CLI applies it as any file; Manette's runner reads the lines below to know which Manette
// migrations it carries, whatever its version.
//
//   -- manette-carries: 20261122000100_foundation sha256=<hex>       (one per migration, in order)
//   ...
//   -- manette-migration: 20261122000100_foundation                  (then its bytes)
//
// Copies written by earlier versions of Manette were one file per migration, named
// `<Manette's version>_manette_<name>.sql` with its bytes: they are recognised too.
import { sha256 } from './hash.js';

export interface CarriedMigration { version: string; name: string; sha256: string; sql: string }

const CARRIES = /^-- manette-carries: (\d{14})_(\S+) sha256=([0-9a-f]{64})$/gm;
const SECTION = (version: string, name: string) => `-- manette-migration: ${version}_${name}\n`;

/** The Manette migrations a copy carries (their bytes cut out of it), or null for any other file. */
export function parseCopy(text: string): CarriedMigration[] | null {
  const listed = [...text.matchAll(CARRIES)].map((m) => ({ version: m[1]!, name: m[2]!, sha256: m[3]! }));
  if (listed.length === 0) return null;
  const starts = listed.map((c) => {
    const marker = SECTION(c.version, c.name);
    const at = text.indexOf(marker);
    return at < 0 ? -1 : at + marker.length;
  });
  return listed.map((c, i) => {
    if (starts[i]! < 0) return { ...c, sql: '' }; // its section is gone: the checksum says so
    const end = i + 1 < listed.length && starts[i + 1]! >= 0
      ? starts[i + 1]! - SECTION(listed[i + 1]!.version, listed[i + 1]!.name).length
      : text.length;
    // The section, less the blank line before the next one (and the newline added to a
    // migration that lacked one): the bytes whose checksum the header gives.
    let sql = text.slice(starts[i], end);
    for (let k = 0; k < 2 && sha256(sql) !== c.sha256 && sql.endsWith('\n'); k++) sql = sql.slice(0, -1);
    return { ...c, sql };
  });
}

/** A copy's text: the header (who wrote it, when, what it carries), then each migration's bytes. */
export function renderCopy(carried: Omit<CarriedMigration, 'sha256'>[], writtenBy: string, at: Date): string {
  const header = [
    `-- Manette's SQL for this project, written by \`npx manette supabase-migrations\` (${writtenBy})`,
    `-- on ${at.toISOString().slice(0, 19).replace('T', ' ')} UTC. Never edit it: \`manette start\`, \`manette test\``,
    '-- and the next `manette supabase-migrations` read the lines below and refuse an edited copy.',
    `-- It carries ${carried.length === 1 ? 'this Manette migration' : `these ${carried.length} Manette migrations, in this order`}:`,
    ...carried.map((c) => `-- manette-carries: ${c.version}_${c.name} sha256=${sha256(c.sql)}`),
    '',
  ].join('\n');
  // Each section is the migration's exact bytes; a newline ends the one before when it lacks it.
  return header + carried.map((c, i) => {
    const next = i + 1 < carried.length && !c.sql.endsWith('\n') ? '\n' : '';
    return `\n${SECTION(c.version, c.name)}${c.sql}${next}`;
  }).join('');
}
