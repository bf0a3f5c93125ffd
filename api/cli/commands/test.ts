// `manette test`: the studio's pgTAP files (supabase/tests, as `supabase test db` runs
// them) against a throwaway embedded Postgres with Manette's migrations and the studio's
// applied. Each file runs in its own copy of that database, so files cannot see each other.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import pg from 'pg';
import { migrate } from '../../db/migrate.js';
import { startEmbeddedPostgres } from '../../../twin/postgres/embedded.js';
import { freePort } from '../../../twin/net.js';
import { installTestHelpers, runTapFile } from '../../../twin/postgres/pgtap.js';
import { createProvisionedDatabase, databaseUrl } from '../../../twin/postgres/provision.js';
import { CliError } from '../database.js';
import { say } from '../locale.js';
import { reportFailure, type CommandContext } from '../output.js';

const TEMPLATE_DB = 'manette_test_template';

/** Every .sql file under the folder, in path order. */
async function sqlFiles(dir: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith('.sql'))
    .map((e) => path.join(e.parentPath, e.name)).sort();
}

export function registerTest(program: Command, ctx: CommandContext): void {
  const { lang } = ctx;
  program.command('test')
    .description(lang === 'fr'
      ? 'lance les tests pgTAP de supabase/tests sur une base jetable, tout migré'
      : 'run the pgTAP tests of supabase/tests on a throwaway database with everything migrated')
    .argument('[files...]', lang === 'fr' ? 'seulement ces fichiers' : 'only these files')
    .action(async (only: string[]) => {
      const testsRoot = path.join(ctx.project.root, 'supabase', 'tests');
      let dir: string | undefined;
      let server: Awaited<ReturnType<typeof startEmbeddedPostgres>> | undefined;
      try {
        const files = only.length ? only.map((f) => path.resolve(f)) : await sqlFiles(testsRoot);
        if (files.length === 0) {
          throw new CliError(say({ fr: 'Aucun fichier de test (.sql) dans {dir}.', en: 'No test file (.sql) in {dir}.' }, lang, { dir: path.relative(process.cwd(), testsRoot) || '.' }));
        }
        dir = await mkdtemp(path.join(tmpdir(), 'manette-test-'));
        await chmod(dir, 0o755); // as root, Postgres runs as the `postgres` user and must reach it
        server = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: await freePort(), persistent: false });
        // A database as a hosted project's (provisioned by the twin), migrated as `postgres`;
        // each file gets a copy, made by `postgres` (it owns the template).
        await createProvisionedDatabase(server.adminUrl, TEMPLATE_DB);
        await migrate(databaseUrl(server.url, TEMPLATE_DB), ctx.project.migrations);
        // The shared pgTAP helpers (schema manette_test), as `postgres`, into the template.
        const helpers = new pg.Client({ connectionString: databaseUrl(server.url, TEMPLATE_DB) });
        await helpers.connect();
        try { await installTestHelpers(helpers); } finally { await helpers.end(); }
        const admin = new pg.Client({ connectionString: server.url });
        await admin.connect();

        let passed = 0;
        let failed = 0;
        let brokenFiles = 0;
        for (const file of files) {
          const name = path.relative(process.cwd(), file);
          const db = `t_${randomBytes(6).toString('hex')}`;
          await admin.query(`create database ${db} template ${TEMPLATE_DB}`);
          const client = new pg.Client({ connectionString: databaseUrl(server.url, db) });
          await client.connect();
          try {
            const result = await runTapFile(client, await readFile(file, 'utf8'));
            const planOk = result.planned !== null && result.planned === result.passed + result.failed.length;
            passed += result.passed;
            failed += result.failed.length;
            if (result.failed.length === 0 && planOk) {
              console.log(`${name} .. ok (${result.passed})`);
            } else {
              brokenFiles++;
              console.log(`${name} .. ${lang === 'fr' ? 'ÉCHEC' : 'FAILED'}`);
              // The failing lines with pgTAP's diagnostics (# ...) after them.
              console.log(result.output.split('\n').filter((l) => /^not ok|^#/.test(l)).map((l) => `  ${l}`).join('\n'));
              if (!planOk) {
                console.log(`  ${say({ fr: 'plan : {p} prévus, {r} passés', en: 'plan: {p} planned, {r} run' }, lang, { p: result.planned ?? '?', r: result.passed + result.failed.length })}`);
              }
            }
          } catch (err) {
            brokenFiles++;
            console.log(`${name} .. ${lang === 'fr' ? 'ERREUR' : 'ERROR'}\n  ${(err as Error).message}`);
          } finally {
            await client.end().catch(() => {});
            await admin.query(`drop database if exists ${db}`).catch(() => {});
          }
        }
        await admin.end();
        console.log(say({ fr: 'Fichiers : {f}, en échec : {b}', en: 'Files: {f}, failing: {b}' }, lang, { f: files.length, b: brokenFiles }));
        // The line CI reads (any language).
        console.log(`${passed} passed, ${failed} failed`);
        if (brokenFiles > 0) process.exitCode = 1;
      } catch (err) {
        reportFailure(err, lang, false);
      } finally {
        await server?.stop().catch(() => {});
        if (dir) await rm(dir, { recursive: true, force: true }).catch(() => {});
      }
    });
}
