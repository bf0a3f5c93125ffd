// `manette supabase-migrations`: writes the Manette SQL that the studio's
// supabase/migrations does not carry yet as ONE file versioned at the time of the copy
// (api/db/manette-copy.ts), so it sorts after everything the studio already has: the
// Supabase CLI then applies every Manette upgrade and every studio change with a plain
// `supabase db push`, in the same order on the project and on a fresh database. The file
// names, in its header, each Manette migration it carries with its checksum; `manette
// start`, `test` and `apply` read the folder the same way (api/db/migrate.ts).
//
// Its version is the current second, or one second after the studio's latest file when
// that is later: never a second a later `supabase migration new` could also take. One
// exception: a folder that carries no Manette SQL yet but has files of its own (made by an
// earlier `manette init`, which relied on Manette's package) gets its first copy one
// second before its earliest file, since those files need Manette's schemas.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { MIGRATIONS_DIR, MigrationRefused, readStudioFolder } from '../../db/migrate.js';
import { renderCopy } from '../../db/manette-copy.js';
import { nextMigrationVersion, shiftVersion } from '../../db/migration-version.js';
import { CliError } from '../database.js';
import { say } from '../locale.js';
import { answer, requireStudio, type CommandContext } from '../output.js';
import { PACKAGE_ROOT } from '../project.js';

export interface WrittenMigrations {
  /** The file written (none when nothing was new). */
  written: string[];
  /** The Manette migrations it carries (`<version>_<name>`). */
  carries: string[];
  /** How many Manette migrations the folder carried already. */
  present: number;
  /** A first copy placed before the studio's own files (see above). */
  before_own: string[];
}

export async function writeSupabaseMigrations(
  targetDir: string, opts: { manetteDir?: string; now?: Date } = {},
): Promise<WrittenMigrations> {
  const now = opts.now ?? new Date();
  await mkdir(targetDir, { recursive: true });
  const folder = await readStudioFolder(opts.manetteDir ?? MIGRATIONS_DIR, targetDir);
  const present = folder.manette.length - folder.notCopied.length;
  const result: WrittenMigrations = { written: [], carries: [], present, before_own: [] };
  if (folder.notCopied.length === 0) return result;

  const versions = new Set([...folder.files, ...folder.manette].map((m) => m.version));
  const own = folder.files.filter((f) => !f.carries);
  let version: string;
  if (present === 0 && own.length > 0) {
    version = shiftVersion(own[0]!.version, -1);
    while (versions.has(version)) version = shiftVersion(version, -1);
    result.before_own = own.map((f) => path.basename(f.file));
  } else {
    version = nextMigrationVersion(folder.files.map((f) => f.version), now);
  }
  const last = folder.notCopied.at(-1)!;
  const { version: pkgVersion } = JSON.parse(await readFile(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string };
  const file = `${version}_manette_to_${last.version}.sql`;
  await writeFile(path.join(targetDir, file), renderCopy(folder.notCopied, `Manette ${pkgVersion}`, now));
  result.written.push(file);
  result.carries = folder.notCopied.map((m) => `${m.version}_${m.name}`);
  return result;
}

export function registerSupabaseMigrations(program: Command, ctx: CommandContext): void {
  const { lang } = ctx;
  program.command('supabase-migrations')
    .description(lang === 'fr'
      ? 'écrit dans supabase/migrations, en un fichier daté de maintenant, le SQL de Manette qui n’y est pas encore'
      : 'write the Manette SQL that supabase/migrations lacks into it, as one file dated now')
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
          if (err instanceof MigrationRefused && err.code === 'edited_copy') {
            throw new CliError(say({
              fr: 'Copie modifiée du SQL de Manette : {files}. Une copie ne change jamais : supprime-la et relance cette commande (là où elle est déjà appliquée, remets-la telle quelle), et mets ton changement dans une nouvelle migration. Rien n’a été écrit.',
              en: 'Edited copy of Manette\'s SQL: {files}. A copy never changes: delete it and run this command again (where it is already applied, restore it as it was), and put your change in a new migration. Nothing was written.',
            }, lang, { files: err.files.join(', ') }));
          }
          throw err;
        }
      }, (r) => [
        r.written.length
          ? say({ fr: '{n} migration(s) de Manette écrite(s) dans supabase/migrations, en un fichier :', en: '{n} Manette migration(s) written into supabase/migrations, as one file:' }, lang, { n: r.carries.length })
          : say({ fr: 'Rien de nouveau : supabase/migrations porte déjà les {n} migrations de Manette.', en: 'Nothing new: supabase/migrations already carries the {n} Manette migrations.' }, lang, { n: r.present }),
        ...r.written.map((f) => `  + ${f}`),
        ...(r.carries.length ? [say({ fr: '    (porte {list})', en: '    (carries {list})' }, lang, {
          list: r.carries.length > 4 ? `${r.carries.slice(0, 2).join(', ')}, …, ${r.carries.at(-1)}` : r.carries.join(', '),
        })] : []),
        ...(r.before_own.length ? ['', say({
          fr: 'Cette première copie passe avant tes fichiers ({files}), qui ont besoin des schémas de Manette. Une base où Manette avait été appliqué par une ancienne version (`manette start` / `apply`) l’adopte sans rien rejouer au prochain `npx manette apply` ; pour la CLI Supabase sur un tel projet : `npx supabase migration repair --status applied {v}`.',
          en: 'This first copy sorts before your files ({files}), which need Manette\'s schemas. A database where an earlier version applied Manette (`manette start` / `apply`) adopts it without running anything again at the next `npx manette apply`; for the Supabase CLI on such a project: `npx supabase migration repair --status applied {v}`.',
        }, lang, { files: r.before_own.join(', '), v: r.written[0]!.slice(0, 14) })] : []),
        ...(r.written.length ? ['', say({ fr: 'Ensuite : npx supabase db push', en: 'Next: npx supabase db push' }, lang)] : []),
      ].join('\n'));
    });
}
