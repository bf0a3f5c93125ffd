// `manette import <jeu> <table> <file>`: rows of a JSON array or of a CSV file into a data
// table of the game, all or nothing, each row checked exactly as POST /tables checks it
// (one call of manette_admin.table_rows_import). CSV cells go as strings: SQL turns them
// into their column's type. The file is bounded (50 MB, 100 000 rows) before any parsing.
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { CsvError, parse } from 'csv-parse/sync';
import { CliError } from '../database.js';
import { say, type Lang } from '../locale.js';
import { adminCall, answer, jsonHelp, type CommandContext } from '../output.js';

export const MAX_IMPORT_BYTES = 50 * 1024 * 1024;
export const MAX_IMPORT_ROWS = 100_000;

export interface ImportResult {
  jeu: string; table: string; importees: number; inserees: number; mises_a_jour: number; supprimees: number; ids: string[];
}

/** What the file holds: the rows, and for CSV (cells as strings) the file line of each row. */
export interface ImportInput { rows: unknown[]; cells: boolean; lines?: number[] }

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
        return adminCall<ImportResult>(ctx,
          'select manette_admin.table_rows_import($1, $2, $3::jsonb, $4, $5::integer[], $6, $7) as r',
          [jeu, table, JSON.stringify(input.rows), input.cells, input.lines ?? null, !!opts.replace, opts.cle ?? null]);
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
  const kind = (format ?? path.extname(file).slice(1)).toLowerCase();
  if (kind !== 'json' && kind !== 'csv') {
    throw new CliError(format === undefined
      ? say({ fr: '{file} : format inconnu, précise --format json ou --format csv', en: '{file}: unknown format, give --format json or --format csv' }, lang, { file })
      : say({ fr: 'format inconnu « {f} » : json ou csv attendu', en: 'unknown format "{f}": json or csv expected' }, lang, { f: format }));
  }
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch {
    throw new CliError(say({ fr: 'fichier introuvable ou illisible : {file}', en: 'file not found or unreadable: {file}' }, lang, { file }));
  }
  if (size > MAX_IMPORT_BYTES) {
    throw new CliError(say({ fr: '{file} : fichier de plus de 50 Mo ; découpe-le en plusieurs imports',
      en: '{file}: file larger than 50 MB; split it into several imports' }, lang, { file }));
  }
  const text = (await readFile(file, 'utf8')).replace(/^\uFEFF/, '');
  if (text.trim() === '') throw new CliError(say({ fr: '{file} : fichier vide', en: '{file}: empty file' }, lang, { file }));
  const input = kind === 'json' ? parseJsonRows(file, text, lang) : parseCsvRows(file, text, lang);
  if (input.rows.length === 0) throw new CliError(say({ fr: '{file} : aucune ligne à importer', en: '{file}: no row to import' }, lang, { file }));
  if (input.rows.length > MAX_IMPORT_ROWS) {
    throw new CliError(say({ fr: '{file} : {n} lignes, 100 000 au plus par import', en: '{file}: {n} rows, at most 100,000 per import' },
      lang, { file, n: input.rows.length }));
  }
  return input;
}

function parseJsonRows(file: string, text: string, lang: Lang): ImportInput {
  let rows: unknown;
  try {
    rows = JSON.parse(text);
  } catch (err) {
    throw new CliError(say({ fr: '{file} n’est pas du JSON valide : {m}', en: '{file} is not valid JSON: {m}' }, lang, { file, m: (err as Error).message }));
  }
  if (!Array.isArray(rows)) {
    throw new CliError(say({ fr: '{file} : un tableau JSON d’objets est attendu', en: '{file}: a JSON array of objects is expected' }, lang, { file }));
  }
  return { rows, cells: false }; // each row is checked in SQL (lignes[n].donnees : objet attendu)
}

/** A header line, then one row per record; empty lines skipped; rows numbered by the line they start on. */
function parseCsvRows(file: string, text: string, lang: Lang): ImportInput {
  let records: { record: string[]; info: { lines: number; empty_lines: number } }[];
  try {
    records = parse(text, { bom: true, skip_empty_lines: true, info: true }) as unknown as typeof records;
  } catch (err) {
    if (!(err instanceof CsvError)) throw err;
    const line = (err as CsvError & { lines?: number }).lines ?? '?';
    throw new CliError(say({ fr: '{file} : CSV invalide ligne {line} ({m})', en: '{file}: invalid CSV at line {line} ({m})' },
      lang, { file, line, m: err.message }));
  }
  if (records.length === 0) throw new CliError(say({ fr: '{file} : fichier vide', en: '{file}: empty file' }, lang, { file }));
  const header = records[0]!.record.map((h) => h.trim());
  const blank = header.findIndex((h) => h === '');
  if (blank >= 0) {
    throw new CliError(say({ fr: '{file} : la colonne {n} de l’en-tête n’a pas de nom', en: '{file}: column {n} of the header has no name' },
      lang, { file, n: blank + 1 }));
  }
  const twice = header.find((h, i) => header.indexOf(h) !== i);
  if (twice !== undefined) {
    throw new CliError(say({ fr: '{file} : colonne « {c} » en double dans l’en-tête', en: '{file}: column "{c}" appears twice in the header' },
      lang, { file, c: twice }));
  }
  const rows: Record<string, string>[] = [];
  const lines: number[] = [];
  for (let i = 1; i < records.length; i++) {
    const { record, info } = records[i]!;
    const before = records[i - 1]!.info;
    // info.lines is the line a record ends on; it starts after the previous one and the empty lines between.
    lines.push(before.lines + 1 + (info.empty_lines - before.empty_lines));
    rows.push(Object.fromEntries(header.map((h, c) => [h, record[c]!])));
  }
  return { rows, cells: true, lines };
}
