// `manette import <jeu> <table> <file>`: rows of a JSON array or of a CSV file into a data
// table of the game, all or nothing, each row checked exactly as POST /tables checks it
// (one call of manette_admin.table_rows_import). The file is read by api/cli/rows-file.ts
// (the console's import parses with it too): CSV cells go as strings, SQL turns them into
// their column's type. The file is bounded (50 MB, 100 000 rows) before any parsing.
import { readFile, stat } from 'node:fs/promises';
import type { Command } from 'commander';
import { CliError } from '../database.js';
import { say, type Lang } from '../locale.js';
import { adminCall, answer, jsonHelp, type CommandContext } from '../output.js';
import { checkRowsSize, IMPORT_SQL, importValues, parseRows, rowsFormat, type ImportInput, type ImportResult } from '../rows-file.js';

export { MAX_IMPORT_BYTES, MAX_IMPORT_ROWS, type ImportInput, type ImportResult } from '../rows-file.js';

export function registerImport(program: Command, ctx: CommandContext): void {
  const fr = ctx.lang === 'fr';
  program.command('import')
    .argument('<jeu>', fr ? 'le jeu (son identifiant, `jeu` du fichier de configuration)' : 'the game (its slug, `jeu` in its config file)')
    .argument('<table>', fr ? 'la table de données' : 'the data table')
    .argument('<file>', fr ? 'un tableau JSON d’objets, ou un CSV avec une ligne d’en-tête' : 'a JSON array of objects, or a CSV file with a header line')
    .option('--format <format>', fr ? 'json ou csv (par défaut : l’extension du fichier)' : 'json or csv (default: the file’s extension)')
    .option('--replace', fr
      ? 'remplace les lignes sans propriétaire de la table par celles du fichier (toutes celles d’une table ecriture: serveur)'
      : 'replace the table’s rows without owner by the file’s (all of them in an ecriture: serveur table)')
    .option('--cle <colonne>', fr
      ? 'met à jour les lignes dont cette colonne a la même valeur qu’une ligne du fichier, ajoute les autres'
      : 'update the rows whose value in this column matches a row of the file, insert the others')
    .option('--json', jsonHelp(ctx.lang))
    .description(fr
      ? 'importe des lignes dans une table du jeu, tout ou rien (vérifiées comme par l’API)'
      : 'import rows into a table of the game, all or nothing (checked as the API checks them)')
    .action(async (jeu: string, table: string, file: string, opts: { format?: string; replace?: boolean; cle?: string; json?: boolean }) => {
      await answer(ctx, !!opts.json, async () => {
        if (opts.replace && opts.cle !== undefined) {
          throw new CliError(say({ fr: '--replace et --cle ne vont pas ensemble : choisis l’un ou l’autre',
            en: '--replace and --cle do not go together: choose one' }, ctx.lang));
        }
        const input = await readImportFile(file, opts.format, ctx.lang);
        return adminCall<ImportResult>(ctx, IMPORT_SQL, importValues(jeu, table, input, !!opts.replace, opts.cle));
      }, (r) => importSummary(r, ctx.lang));
    });
}

/** `n lignes importées dans ...`, then what changed beside the insertions, if anything. */
function importSummary(r: ImportResult, lang: Lang): string {
  const line = say(r.importees === 1
    ? { fr: '1 ligne importée dans la table {table} du jeu {jeu}.', en: '1 row imported into table {table} of game {jeu}.' }
    : { fr: '{n} lignes importées dans la table {table} du jeu {jeu}.', en: '{n} rows imported into table {table} of game {jeu}.' },
  lang, { n: r.importees, table: r.table, jeu: r.jeu });
  const parts: string[] = [];
  if (r.mises_a_jour > 0) {
    parts.push(say({ fr: '{i} ajoutée(s), {u} mise(s) à jour', en: '{i} inserted, {u} updated' }, lang, { i: r.inserees, u: r.mises_a_jour }));
  }
  if (r.supprimees > 0) {
    parts.push(say({ fr: '{d} ancienne(s) ligne(s) remplacée(s)', en: '{d} previous row(s) replaced' }, lang, { d: r.supprimees }));
  }
  return parts.length === 0 ? line : `${line} (${parts.join(' ; ')})`;
}

/** Reads and parses the file; every problem with it is a CliError naming the file. */
export async function readImportFile(file: string, format: string | undefined, lang: Lang): Promise<ImportInput> {
  const kind = rowsFormat(file, format, lang);
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch {
    throw new CliError(say({ fr: 'fichier introuvable ou illisible : {file}', en: 'file not found or unreadable: {file}' }, lang, { file }));
  }
  checkRowsSize(file, size, lang);
  return parseRows(file, kind, await readFile(file, 'utf8'), lang);
}
