// `manette console [--port <n>] [--host <h>] [--jeu <game.json>]`: the studio console, a
// web page over the database of DATABASE_URL or the embedded one (the running `manette
// start`'s, or started for the console). Opened with a one-time link printed here; every
// read and write is a manette_admin.* call, as the admin commands make (console/).
import path from 'node:path';
import type { Command } from 'commander';
import { createRealtimeSigner } from '../../security/realtime-token.js';
import { localRealtimeSigning } from '../../../twin/realtime/project-secret.js';
import { runningInstance } from '../../../twin/instance.js';
import { buildConsole } from '../../../console/build.mjs';
import type { ConsoleDeps } from '../../../console/server/route.js';
import type { Settings } from '../../config/settings.js';
import { withDatabase } from '../database.js';
import { say } from '../locale.js';
import { reportFailure, type CommandContext } from '../output.js';

export const CONSOLE_PORT = 54331;

/** Realtime for the live pages: the project's (MANETTE_REALTIME_URL) or the running `manette start`'s stand-in. */
async function consoleRealtime(settings: Settings): Promise<ConsoleDeps['realtime']> {
  if (settings.MANETTE_REALTIME_URL) {
    const { supabaseSigningKey } = await import('../../app-factory.js');
    const signer = await createRealtimeSigner(supabaseSigningKey(settings), settings.MANETTE_REALTIME_TOKEN_TTL_S);
    return { url: settings.MANETTE_REALTIME_URL, key: settings.MANETTE_REALTIME_KEY ?? '', signer };
  }
  const running = await runningInstance(settings.MANETTE_DATA_DIR);
  if (!running?.realtimeUrl) return undefined;
  return { url: running.realtimeUrl, key: '', signer: (await localRealtimeSigning(settings)).signer };
}

export function registerConsole(program: Command, ctx: CommandContext): void {
  const fr = ctx.lang === 'fr';
  program.command('console')
    .option('--port <port>', fr ? `le port (${CONSOLE_PORT} par défaut ; 0 : un port libre)` : `the port (default ${CONSOLE_PORT}; 0: any free port)`)
    .option('--host <host>', fr
      ? 'écoute sur cet hôte au lieu de 127.0.0.1 (0.0.0.0 : toutes les interfaces ; à éviter hors d’un réseau de confiance)'
      : 'listen on this host instead of 127.0.0.1 (0.0.0.0: every interface; avoid outside a trusted network)')
    .option('--jeu <fichier>', fr
      ? 'le fichier du jeu que l’éditeur de panneaux écrit (par défaut game.json du projet)'
      : 'the game file the panel editor writes (default: the project’s game.json)')
    .description(fr
      ? 'ouvre la console du studio : joueurs, tables, classements, parties en direct, clés, panneaux, journal d’audit'
      : 'open the studio console: players, tables, leaderboards, live matches, keys, panels, audit trail')
    .action(async (opts: { port?: string; host?: string; jeu?: string }) => {
      try {
        const settings = ctx.settings();
        const port = opts.port === undefined ? CONSOLE_PORT : Number(opts.port);
        if (!Number.isInteger(port) || port < 0 || port > 65535) {
          throw new Error(say({ fr: 'port invalide : {p}', en: 'invalid port: {p}' }, ctx.lang, { p: opts.port ?? '' }));
        }
        // The console's server and what it serves: loaded here, so that the other commands start without it.
        const [{ DEMO_GAME_FILE }, { startConsole }] = await Promise.all([import('../../server.js'), import('../../../console/server/start.js')]);
        const gameFile = opts.jeu ? path.resolve(opts.jeu) : ctx.project.gameFile ?? (ctx.project.studio ? undefined : DEMO_GAME_FILE);
        await buildConsole({ quiet: true });
        await withDatabase(settings, ctx.project, ctx.lang, { migrateDatabaseUrl: false }, async (databaseUrl) => {
          const realtime = await consoleRealtime(settings);
          const running = await startConsole({
            databaseUrl, settings, lang: ctx.lang, port, host: opts.host, gameFile, realtime,
            onLink: (url) => console.log(say({
              fr: '  Ouvrir     {url}\n             (lien à usage unique ; un nouveau lien s’affiche ici dès qu’il a servi)',
              en: '  Open       {url}\n             (a one-time link; a new one is printed here once it is used)',
            }, ctx.lang, { url })),
            onError: (err) => console.error(err),
          });
          ctx.serving = true;
          console.log([
            '',
            say({ fr: '  La console Manette est prête : {o}', en: '  The Manette console is ready: {o}' }, ctx.lang, { o: running.origin }),
            `  ${(fr ? 'Base' : 'Database').padEnd(10)} ${settings.DATABASE_URL ? 'DATABASE_URL' : (fr ? 'Postgres embarqué' : 'embedded Postgres')}`,
            `  ${(fr ? 'Fichier' : 'Game file').padEnd(10)} ${gameFile ?? (fr ? '(aucun : l’éditeur de panneaux affiche le JSON à coller)' : '(none: the panel editor shows the JSON to paste)')}`,
            `  Realtime   ${realtime?.url ?? (fr ? '(aucun : les pages se rafraîchissent seules ; lance `npm start` pour le direct)' : '(none: pages refresh themselves; run `npm start` for live updates)')}`,
            '',
          ].join('\n'));
          await new Promise<void>((resolve) => {
            const stop = () => resolve();
            process.once('SIGINT', stop);
            process.once('SIGTERM', stop);
          });
          await running.close();
        });
        process.exit(0);
      } catch (err) {
        reportFailure(err, ctx.lang, false);
        process.exit(1);
      }
    });
}
