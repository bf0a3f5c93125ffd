// `manette apply <file>`: create or update a game from its config file. Prints the game's
// key; its last line is JSON ({"ok": true, "jeu", "api_key"}, or the envelope of every
// command's errors: {"ok": false, "error": <code>, "message"}). --json: that line only.
import type { Command } from 'commander';
import { applyGameFile, GameFileError, readGameFile } from '../../config/apply.js';
import { withDatabase } from '../database.js';
import { reportFailure } from '../output.js';
import type { CommandContext } from '../output.js';

export function registerApply(program: Command, ctx: CommandContext): void {
  program.command('apply')
    .argument('[file]', ctx.lang === 'fr'
      ? 'fichier de configuration du jeu (JSON ; game.json dans le dossier d’un studio)'
      : 'game config file (JSON; game.json in a studio\'s folder)')
    .description(ctx.lang === 'fr'
      ? 'crée ou met à jour un jeu depuis son fichier ; affiche sa clé d’API'
      : 'create or update a game from its config file; prints its API key')
    .option('--json', ctx.lang === 'fr'
      ? 'répond par un seul document JSON : {"ok": true, "jeu", "api_key"}, ou {"ok": false, "error", "message"}'
      : 'answer with one JSON document: {"ok": true, "jeu", "api_key"}, or {"ok": false, "error", "message"}')
    .option('--include-all', ctx.lang === 'fr'
      ? 'applique aussi les migrations plus anciennes que la dernière appliquée (comme supabase db push --include-all)'
      : 'also apply migrations older than the latest applied one (as supabase db push --include-all)')
    .action(async (given: string | undefined, opts: { includeAll?: boolean }) => {
      const file = given ?? ctx.project.gameFile ?? '';
      try {
        if (!file) throw new GameFileError(ctx.lang === 'fr' ? 'quel fichier ? npx manette apply <fichier>' : 'which file? npx manette apply <file>', 'file_missing');
        await readGameFile(file, ctx.lang); // a bad file is reported before any database work
        const result = await withDatabase(ctx.settings(), ctx.project, ctx.lang, { migrateDatabaseUrl: true, includeAll: !!opts.includeAll },
          (url) => applyGameFile(url, file, ctx.lang));
        console.log(JSON.stringify(result));
      } catch (err) {
        // The message on stderr; the envelope as the last line of stdout, --json or not.
        reportFailure(err, ctx.lang, true);
      }
    });
}
