// `manette doctor [--db-url URL] [--api-url URL] [--json]`: checks a database Manette runs
// on (a project's, or the embedded one of this folder): Manette's roles and grants, the
// API's role through its own URL (the pooler's), realtime.messages' partitions and
// Manette's policies on it, the sweep of expired turns when modes have timers, pg_cron's
// log, key settings, sizes against the plan. Each problem is printed with its fix; exit
// code 1 when there is one. Reads only (api/cli/doctor-checks.ts); docs/deploy.md.
import type { Command } from 'commander';
import { readSettings } from '../../config/settings.js';
import { withDatabase } from '../database.js';
import { runDoctor, FREE_PLAN_DB_MB, type DoctorReport } from '../doctor-checks.js';
import { say } from '../locale.js';
import { reportFailure, type CommandContext } from '../output.js';

export function registerDoctor(program: Command, ctx: CommandContext): void {
  const fr = ctx.lang === 'fr';
  program.command('doctor')
    .description(fr
      ? 'vérifie une base de Manette (rôles, droits, Realtime, balayage des tours, tailles) et dit comment corriger'
      : 'check a Manette database (roles, grants, Realtime, the sweep of expired turns, sizes) and say how to fix it')
    .option('--db-url <url>', fr
      ? 'la base à vérifier, en `postgres` (défaut : DATABASE_URL, sinon la base embarquée de ce dossier)'
      : 'the database to check, as `postgres` (default: DATABASE_URL, else this folder’s embedded database)')
    .option('--api-url <url>', fr
      ? 'l’URL par laquelle l’API se connecte (ex. le pooler de transactions) : vérifie son rôle par ce chemin'
      : 'the URL the API connects with (e.g. the transaction pooler): checks its role along that path')
    .option('--size-limit-mb <mb>', fr ? `taille de base du forfait, en Mo (défaut : ${FREE_PLAN_DB_MB}, Free)` : `the plan’s database size, in MB (default: ${FREE_PLAN_DB_MB}, Free)`)
    .option('--json', say({ fr: 'répond par un seul document JSON : {"ok": true, "data": {"healthy": ..., "checks": [...]}}', en: 'answer with one JSON document: {"ok": true, "data": {"healthy": ..., "checks": [...]}}' }, ctx.lang))
    .action(async (opts: { dbUrl?: string; apiUrl?: string; sizeLimitMb?: string; json?: boolean }) => {
      const json = !!opts.json;
      try {
        const limit = opts.sizeLimitMb === undefined ? FREE_PLAN_DB_MB : Number(opts.sizeLimitMb);
        const settings = opts.dbUrl ? readSettings({ ...process.env, DATABASE_URL: opts.dbUrl }) : ctx.settings();
        const r = await withDatabase(settings, ctx.project, ctx.lang, { migrateDatabaseUrl: false },
          (url) => runDoctor(url, { lang: ctx.lang, apiUrl: opts.apiUrl, apiRole: settings.MANETTE_DB_ROLE, sizeLimitMb: Number.isFinite(limit) && limit > 0 ? limit : FREE_PLAN_DB_MB }));
        console.log(json ? JSON.stringify({ ok: true, data: r }) : render(r, ctx.lang));
        if (!r.healthy) process.exitCode = 1;
      } catch (err) {
        reportFailure(err, ctx.lang, json);
      }
    });
}

function render(r: DoctorReport, lang: CommandContext['lang']): string {
  const lines: string[] = [];
  for (const c of r.checks) {
    lines.push(`${c.ok ? '✓' : '✗'} ${c.summary}`);
    for (const p of c.problems) {
      const sep = lang === 'fr' ? ' : ' : ': ';
      lines.push(`  ${say({ fr: 'problème', en: 'problem' }, lang)}${sep}${p.problem}`);
      lines.push(`  ${say({ fr: 'correction', en: 'fix' }, lang)}${sep}${p.fix}`);
    }
  }
  lines.push('');
  lines.push(r.healthy
    ? say({ fr: 'Aucun problème.', en: 'No problem found.' }, lang)
    : say({ fr: '{n} problème(s).', en: '{n} problem(s) found.' }, lang, { n: r.problems }));
  return lines.join('\n');
}
