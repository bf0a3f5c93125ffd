// The `manette` command. One file per command under commands/: start and apply; init,
// test, supabase-migrations and supabase-function for a studio's folder; the admin
// commands (import, rows, keys, players, match, economy); console, the studio console; doctor, the checks of a database. Texts follow the user's locale (locale.ts).
import { Command } from 'commander';
import { z } from 'zod';
import { cliLang } from './locale.js';
import { localizeCommander } from './commander-texts.js';
import { commandContext } from './output.js';
import { resolveProject } from './project.js';
import { registerStart } from './commands/start.js';
import { registerApply } from './commands/apply.js';
import { registerImport } from './commands/import.js';
import { registerRows } from './commands/rows.js';
import { registerKeys } from './commands/keys.js';
import { registerPlayers } from './commands/players.js';
import { registerMatch } from './commands/match.js';
import { registerEconomy } from './commands/economy.js';
import { registerInit } from './commands/init.js';
import { registerTest } from './commands/test.js';
import { registerSupabaseMigrations } from './commands/supabase-migrations.js';
import { registerSupabaseFunction } from './commands/supabase-function.js';
import { registerConsole } from './commands/console.js';
import { registerDoctor } from './commands/doctor.js';

const lang = cliLang();
z.config(lang === 'fr' ? z.locales.fr() : z.locales.en());
const ctx = commandContext(lang, resolveProject());

const program = localizeCommander(new Command('manette'), lang)
  .description(lang === 'fr' ? 'Manette, le backend de jeu' : 'Manette game backend')
  .showHelpAfterError()
  // Subcommands inherit these (created after them).
  .helpOption('-h, --help', lang === 'fr' ? 'affiche l’aide de la commande' : 'display help for command')
  .helpCommand('help [command]', lang === 'fr' ? 'affiche l’aide d’une commande' : 'display help for command');

registerStart(program, ctx);
registerApply(program, ctx);
registerImport(program, ctx);
registerRows(program, ctx);
registerKeys(program, ctx);
registerPlayers(program, ctx);
registerMatch(program, ctx);
registerEconomy(program, ctx);
registerInit(program, ctx);
registerTest(program, ctx);
registerSupabaseMigrations(program, ctx);
registerSupabaseFunction(program, ctx);
registerConsole(program, ctx);
registerDoctor(program, ctx);

await program.parseAsync(process.argv);
// A finished command exits now, whatever handles a library left open.
if (!ctx.serving) process.exit(process.exitCode ?? 0);
