// How every command answers: text for a person, or with --json one JSON document on
// stdout in the API's envelope ({"ok": true, "data": ...} / {"ok": false, "error", "message"}).
// Errors are said in the user's language; exit code 1 on any failure.
import { asAdmin } from '../db/admin.js';
import { MigrationRefused } from '../db/migrate.js';
import { detailMessageFor, messageFor, type Lang } from '../http/messages.js';
import type { Settings } from '../config/settings.js';
import { readSettings } from '../config/settings.js';
import { GameFileError } from '../config/apply.js';
import { CliError, withDatabase } from './database.js';
import { say } from './locale.js';
import { rulesProblemText } from './apply-texts.js';
import type { Project } from './project.js';

export interface CommandContext {
  lang: Lang;
  project: Project;
  /** Read when a command runs (a bad variable is that command's error). */
  settings(): Settings;
  /** Set by a command that keeps serving after its action returns (start). */
  serving: boolean;
}

export function commandContext(lang: Lang, project: Project): CommandContext {
  return { lang, project, settings: () => readSettings(), serving: false };
}

/** Refuses a studio command run inside Manette's own repository; `instead` says what to do. */
export function requireStudio(ctx: CommandContext, instead: { fr: string; en: string }): void {
  if (ctx.project.studio) return;
  throw new CliError(say({ fr: `Ici, c’est Manette elle-même : ${instead.fr}`, en: `This is Manette itself: ${instead.en}` }, ctx.lang));
}

export interface Failure { error: string; message: string; details?: { champ: string; message: string }[] }

interface PgLikeError { code?: string; message?: string; detail?: string }

/** What went wrong, for the person at the terminal and for --json. */
export function describeFailure(err: unknown, lang: Lang): Failure {
  if (err instanceof GameFileError) return { error: err.code, message: err.message };
  if (err instanceof CliError) {
    return { error: 'invalid_input', message: err.message, ...(err.details ? { details: err.details as Failure['details'] } : {}) };
  }
  const e = (err ?? {}) as PgLikeError;
  const code = e.code ?? '';
  if (/^MN\d{3}$/.test(code) && e.message) {
    let detail: Record<string, unknown> = {};
    try { detail = JSON.parse(e.detail ?? '{}') as Record<string, unknown>; } catch { /* none */ }
    const details = Array.isArray(detail.details)
      ? (detail.details as { champ: string; message: string }[]).map((d) => ({ champ: d.champ, message: detailMessageFor(d.message, lang) }))
      : undefined;
    const reason = typeof detail.reason === 'string' ? detail.reason : undefined;
    return { error: e.message, message: messageFor(e.message, lang, reason), ...(details ? { details } : {}) };
  }
  // A database without Manette's functions (or an older version of them).
  if (code === '42883' || code === '3F000' || code === '42P01') {
    return {
      error: 'not_migrated',
      message: say({
        fr: 'Cette base n’a pas (toutes) les migrations de Manette : lance `npx manette start` ou `supabase db push` d’abord.',
        en: 'This database lacks (some of) Manette’s migrations: run `npx manette start` or `supabase db push` first.',
      }, lang),
    };
  }
  if (/ECONNREFUSED|ENOTFOUND|ETIMEDOUT|Connection terminated|password authentication failed/i.test(`${code} ${e.message ?? ''}`)) {
    return { error: 'unavailable', message: say({ fr: 'Base de données injoignable : {m}', en: 'Cannot reach the database: {m}' }, lang, { m: e.message ?? code }) };
  }
  const refused = refusalText(err, lang);
  if (refused) return { error: `migration_${(err as MigrationRefused).code}`, message: refused };
  const migration = migrationFailure((err as Error)?.message ?? '', lang);
  if (migration) return migration;
  const rules = rulesProblemText((err as Error)?.message ?? '', lang);
  if (rules) return { error: 'invalid_game_file', message: rules };
  return { error: 'internal_error', message: say({ fr: 'échec : {m}', en: 'failed: {m}' }, lang, { m: (err as Error)?.message ?? String(err) }) };
}

/** An error's text for a person: the migration runner's refusals translated, else as is. */
export function errorText(err: unknown, lang: Lang): string {
  const message = (err as Error)?.message ?? String(err);
  return refusalText(err, lang) ?? migrationFailure(message, lang)?.message ?? rulesProblemText(message, lang) ?? message;
}

/** The runner's refusals about a studio's folder and the order of files, with their fix. */
function refusalText(err: unknown, lang: Lang): string | undefined {
  if (!(err instanceof MigrationRefused)) return undefined;
  const files = err.files.length > 4 ? `${err.files.slice(0, 2).join(', ')}, …, ${err.files.at(-1)}` : err.files.join(', ');
  if (err.code === 'out_of_order') {
    return say({
      fr: 'Des migrations passeraient avant la dernière déjà appliquée à cette base : {files}. Comme `supabase db push`, Manette ne les applique pas en silence : relance la commande avec --include-all pour les appliquer quand même (`npx manette start --include-all`, `npx manette apply --include-all`), comme `supabase db push --include-all`, ou donne-leur une version plus récente. Rien n’a été appliqué.',
      en: 'Found migrations to be inserted before the last one applied to this database: {files}. As `supabase db push`, Manette does not apply them silently: rerun the command with --include-all to apply them anyway (`npx manette start --include-all`, `npx manette apply --include-all`), as `supabase db push --include-all`, or give them a later version. Nothing was applied.',
    }, lang, { files });
  }
  if (err.code === 'not_copied') {
    return say({
      fr: 'Le paquet Manette a {n} migration(s) que supabase/migrations ne porte pas encore ({files}) : lance `npx manette supabase-migrations` (elle les écrit en un fichier daté de maintenant), puis recommence. Rien n’a été appliqué.',
      en: 'Manette\'s package has {n} migration(s) that supabase/migrations does not carry yet ({files}): run `npx manette supabase-migrations` (it writes them as one file dated now), then try again. Nothing was applied.',
    }, lang, { n: err.files.length, files });
  }
  if (err.code === 'edited_copy') {
    return say({
      fr: 'Copie modifiée du SQL de Manette : {files}. Une copie ne change jamais : supprime-la et relance `npx manette supabase-migrations` (là où elle est déjà appliquée, remets-la telle quelle), et mets ton changement dans une nouvelle migration. Rien n’a été appliqué.',
      en: 'Edited copy of Manette\'s SQL: {files}. A copy never changes: delete it and run `npx manette supabase-migrations` again (where it is already applied, restore it as it was), and put your change in a new migration. Nothing was applied.',
    }, lang, { files });
  }
  return undefined;
}

/** The migration runner's refusals (api/db/migrate.ts, in English), in the user's language. */
function migrationFailure(message: string, lang: Lang): Failure | undefined {
  let m = /^applied migration changed: (.+?) \(sha256 differs/.exec(message);
  if (m) {
    return {
      error: 'migration_changed',
      message: say({
        fr: 'Migration déjà appliquée puis modifiée : {files}. Les migrations ne font que s’ajouter : remets le fichier appliqué tel qu’il était et mets le changement dans une nouvelle migration. Rien n’a été appliqué.',
        en: 'Applied migration changed: {files}. Migrations are append-only: restore the applied file and put the change in a new migration. Nothing was applied.',
      }, lang, { files: m[1]! }),
    };
  }
  m = /^two different migrations have version (\d+): (.+) and (.+)\. Nothing was applied\.$/s.exec(message);
  if (m) {
    return {
      error: 'migration_conflict',
      message: say({
        fr: 'deux migrations différentes ont la version {v} : {a} et {b}. Rien n’a été appliqué.',
        en: 'two different migrations have version {v}: {a} and {b}. Nothing was applied.',
      }, lang, { v: m[1]!, a: m[2]!, b: m[3]! }),
    };
  }
  m = /^migration (\S+) failed: (.*)$/s.exec(message);
  if (m) {
    return { error: 'migration_failed', message: say({ fr: 'la migration {f} a échoué : {m}', en: 'migration {f} failed: {m}' }, lang, { f: m[1]!, m: m[2]! }) };
  }
  return undefined;
}

/** Prints a failure (stderr for a person; stdout too with --json) and sets exit code 1. */
export function reportFailure(err: unknown, lang: Lang, json: boolean): void {
  const f = describeFailure(err, lang);
  console.error([f.message, ...(f.details ?? []).map((d) => `  ${d.champ} : ${d.message}`)].join('\n'));
  if (json) console.log(JSON.stringify({ ok: false, ...f }));
  process.exitCode = 1;
}

/**
 * Runs a command's work and prints its result: `render` for a person, or the envelope
 * with --json. Failures are reported the same way for every command.
 */
export async function answer<T>(ctx: CommandContext, json: boolean, work: () => Promise<T>, render: (result: T) => string): Promise<void> {
  try {
    const result = await work();
    console.log(json ? JSON.stringify({ ok: true, data: result }) : render(result));
  } catch (err) {
    reportFailure(err, ctx.lang, json);
  }
}

/** A plain text table: one line per row, columns padded to their widest cell. */
export function textTable(header: string[], rows: (string | number | null | undefined)[][]): string {
  const cells = [header, ...rows.map((r) => r.map((c) => (c === null || c === undefined ? '—' : String(c))))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => [...(r[i] ?? '')].length)));
  return cells.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c + ' '.repeat(widths[i]! - [...c].length))).join('  ')).join('\n');
}

/** `label : value` lines, labels padded to the widest; null or undefined shows as —. */
export function textFields(fields: [label: string, value: string | number | null | undefined][]): string {
  const width = Math.max(...fields.map(([label]) => [...label].length));
  return fields.map(([label, v]) => `${label}${' '.repeat(width - [...label].length)} : ${v === null || v === undefined ? '—' : v}`).join('\n');
}

/**
 * An admin command's one call: `select manette_admin.<fn>(...) as r` on the command's
 * database (never migrated behind a studio's back), as the manette_admin role; returns r.
 */
export async function adminCall<T>(ctx: CommandContext, text: string, values: unknown[]): Promise<T> {
  return withDatabase(ctx.settings(), ctx.project, ctx.lang, { migrateDatabaseUrl: false },
    (url) => asAdmin(url, async (client) => (await client.query(text, values)).rows[0].r as T));
}

/** The help of the admin commands' --json option. */
export function jsonHelp(lang: Lang): string {
  return say({ fr: 'répond par un seul document JSON : {"ok": true, "data": ...}', en: 'answer with one JSON document: {"ok": true, "data": ...}' }, lang);
}
