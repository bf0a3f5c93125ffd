// `manette supabase-migrations`: writes Manette's migrations into the studio's
// supabase/migrations, so that the Supabase CLI (`supabase db push`, `migration up`,
// `test db`) sees one folder. Each file keeps its version and its bytes: the Supabase CLI
// and `manette start` then record the same versions with the same checksums, whichever
// applies them first. Versions are Manette's release timestamps, so they sort before the
// migrations a studio writes after installing that release; after an upgrade, running it
// again adds only the new files (an edited copy is refused, never overwritten).
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { listMigrations, MIGRATIONS_DIR, sha256 } from '../../db/migrate.js';
import { CliError } from '../database.js';
import { say } from '../locale.js';
import { answer, requireStudio, type CommandContext } from '../output.js';

/** The name a Manette migration gets in a studio's folder: its version, `manette_`, its name. */
export const studioFileName = (version: string, name: string) => `${version}_manette_${name}.sql`;

export interface WrittenMigrations {
  written: string[];
  present: string[];
  /** Studio migrations that sort after a newly written one (`--include-all` needed where they are applied). */
  later_own: string[];
}

export async function writeSupabaseMigrations(targetDir: string): Promise<WrittenMigrations> {
  await mkdir(targetDir, { recursive: true });
  const existing = await listMigrations(targetDir);
  const byVersion = new Map(existing.map((m) => [m.version, m]));
  const manette = await listMigrations(MIGRATIONS_DIR);
  const result: WrittenMigrations = { written: [], present: [], later_own: [] };
  const changed: string[] = [];
  for (const m of manette) {
    const bytes = await readFile(m.file);
    const there = byVersion.get(m.version);
    if (there) {
      if (sha256(await readFile(there.file)) !== sha256(bytes)) changed.push(path.basename(there.file));
      else result.present.push(path.basename(there.file));
    }
  }
  if (changed.length) {
    throw new CliError(`${changed.join(', ')}: not Manette's migration of the same version`, { changed });
  }
  for (const m of manette) {
    if (byVersion.has(m.version)) continue;
    const file = path.join(targetDir, studioFileName(m.version, m.name));
    await writeFile(file, await readFile(m.file)); // the same bytes: the same checksum
    result.written.push(path.basename(file));
  }
  const manetteVersions = new Set(manette.map((m) => m.version));
  // Only after an upgrade (some were written before): on the first run nothing is applied yet.
  const firstWritten = result.written.map((f) => f.slice(0, 14)).sort()[0];
  if (firstWritten && result.present.length > 0) {
    result.later_own = existing.filter((m) => !manetteVersions.has(m.version) && m.version > firstWritten)
      .map((m) => path.basename(m.file));
  }
  return result;
}

export function registerSupabaseMigrations(program: Command, ctx: CommandContext): void {
  const { lang } = ctx;
  program.command('supabase-migrations')
    .description(lang === 'fr'
      ? 'écrit les migrations de Manette dans supabase/migrations pour la CLI Supabase (seulement les nouvelles)'
      : 'write Manette\'s migrations into supabase/migrations for the Supabase CLI (only the new ones)')
    .option('--json', lang === 'fr' ? 'sortie JSON' : 'JSON output')
    .action(async (opts: { json?: boolean }) => {
      await answer(ctx, !!opts.json, async () => {
        requireStudio(ctx, {
          fr: 'ses migrations sont déjà dans supabase/migrations. Lance cette commande dans le dossier de ton jeu.',
          en: 'its migrations already are in supabase/migrations. Run this in your game\'s folder.',
        });
        try {
          return await writeSupabaseMigrations(ctx.project.ownMigrationsDir);
        } catch (err) {
          if (err instanceof CliError && (err.details as { changed?: string[] })?.changed) {
            throw new CliError(say({
              fr: 'Copie modifiée d’une migration de Manette : {files}. Les migrations ne changent jamais une fois appliquées : remets le fichier tel quel (supprime-le et relance cette commande) et mets ton changement dans une nouvelle migration. Rien n’a été écrit.',
              en: 'Edited copy of a Manette migration: {files}. Migrations never change once applied: restore the file (delete it and run this command again) and put your change in a new migration. Nothing was written.',
            }, lang, { files: (err.details as { changed: string[] }).changed.join(', ') }));
          }
          throw err;
        }
      }, (r) => [
        r.written.length
          ? say({ fr: '{n} migration(s) de Manette écrite(s) dans supabase/migrations :', en: '{n} Manette migration(s) written into supabase/migrations:' }, lang, { n: r.written.length })
          : say({ fr: 'Rien de nouveau : les {n} migrations de Manette sont déjà là.', en: 'Nothing new: the {n} Manette migrations are already there.' }, lang, { n: r.present.length }),
        ...r.written.map((f) => `  + ${f}`),
        ...(r.later_own.length ? ['', say({
          fr: 'Ces nouvelles migrations passent avant les tiennes ({files}) : là où celles-ci sont déjà appliquées, `supabase db push --include-all` (ou `supabase migration up --include-all`) les applique.',
          en: 'These new migrations sort before yours ({files}): where those are already applied, `supabase db push --include-all` (or `supabase migration up --include-all`) applies them.',
        }, lang, { files: r.later_own.join(', ') })] : []),
        ...(r.written.length ? ['', say({ fr: 'Ensuite : npx supabase db push', en: 'Next: npx supabase db push' }, lang)] : []),
      ].join('\n'));
    });
}
