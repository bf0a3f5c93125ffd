// Rows to import, as `manette import` reads them and the console's import takes them: a
// JSON array of objects, or a CSV text with a header line (cells go as strings: SQL,
// manette_admin.table_rows_import, turns them into their column's type). One parser for
// both; every problem with the text is a CliError naming it (invalid_input).
import path from 'node:path';
import { CsvError, parse } from 'csv-parse/sync';
import { jsonErrorText } from '../config/json-error.js';
import { CliError } from './database.js';
import { say, type Lang } from './locale.js';

export const MAX_IMPORT_BYTES = 50 * 1024 * 1024;
export const MAX_IMPORT_ROWS = 100_000;

export type RowsFormat = 'json' | 'csv';

export interface ImportResult {
  jeu: string; table: string; importees: number; inserees: number; mises_a_jour: number; supprimees: number; ids: string[];
}

/** What the file holds: the rows, and for CSV (cells as strings) the file line of each row. */
export interface ImportInput { rows: unknown[]; cells: boolean; lines?: number[] }

/** The format given (`--format`), else the one of the file name's extension. */
export function rowsFormat(name: string, format: string | undefined, lang: Lang): RowsFormat {
  const kind = (format ?? path.extname(name).slice(1)).toLowerCase();
  if (kind === 'json' || kind === 'csv') return kind;
  throw new CliError(format === undefined
    ? say({ fr: '{file} : format inconnu, précise --format json ou --format csv', en: '{file}: unknown format, give --format json or --format csv' }, lang, { file: name })
    : say({ fr: 'format inconnu « {f} » : json ou csv attendu', en: 'unknown format "{f}": json or csv expected' }, lang, { f: format }));
}

/** Refuses more than 50 MB (before any parsing). */
export function checkRowsSize(name: string, bytes: number, lang: Lang): void {
  if (bytes > MAX_IMPORT_BYTES) {
    throw new CliError(say({ fr: '{file} : fichier de plus de 50 Mo ; découpe-le en plusieurs imports',
      en: '{file}: file larger than 50 MB; split it into several imports' }, lang, { file: name }));
  }
}

/** The rows of a JSON or CSV text (`name`: how errors call it); at least one, 100 000 at most. */
export function parseRows(name: string, kind: RowsFormat, content: string, lang: Lang): ImportInput {
  checkRowsSize(name, Buffer.byteLength(content, 'utf8'), lang);
  const text = content.replace(/^\uFEFF/, '');
  if (text.trim() === '') throw new CliError(say({ fr: '{file} : fichier vide', en: '{file}: empty file' }, lang, { file: name }));
  const input = kind === 'json' ? parseJsonRows(name, text, lang) : parseCsvRows(name, text, lang);
  if (input.rows.length === 0) throw new CliError(say({ fr: '{file} : aucune ligne à importer', en: '{file}: no row to import' }, lang, { file: name }));
  if (input.rows.length > MAX_IMPORT_ROWS) {
    throw new CliError(say({ fr: '{file} : {n} lignes, 100 000 au plus par import', en: '{file}: {n} rows, at most 100,000 per import' },
      lang, { file: name, n: input.rows.length }));
  }
  return input;
}

function parseJsonRows(file: string, text: string, lang: Lang): ImportInput {
  let rows: unknown;
  try {
    rows = JSON.parse(text);
  } catch (err) {
    throw new CliError(jsonErrorText(file, text, (err as Error).message, lang));
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

/** The one call of an import: manette_admin.table_rows_import with the parsed rows and the mode. */
export const IMPORT_SQL = 'select manette_admin.table_rows_import($1, $2, $3::jsonb, $4, $5::integer[], $6, $7) as r';
export function importValues(jeu: string, table: string, input: ImportInput, replace: boolean, cle: string | undefined): unknown[] {
  return [jeu, table, JSON.stringify(input.rows), input.cells, input.lines ?? null, replace, cle ?? null];
}
