// The `manette` command: `start` (what `npm start` runs) and `apply <file>`.
import path from 'node:path';
import { Command } from 'commander';
import { z } from 'zod';
import { pino } from 'pino';
import { readSettings } from '../config/settings.js';
import { applyGameFile, GameFileError, readGameFile } from '../config/apply.js';
import { migrate } from '../db/migrate.js';
import { reportEmbeddedPostgresTo, startEmbeddedPostgres } from '../local/embedded.js';
import { claimInstance, runningInstance } from '../local/instance.js';
import { startService } from '../server.js';

z.config(z.locales.fr());

const program = new Command('manette').description('Manette game backend');

program.command('start')
  .description('start the service (embedded Postgres unless DATABASE_URL is set)')
  .action(async () => {
    const settings = readSettings();
    const logger = pino({ level: settings.LOG_LEVEL });
    const lock = await claimInstance(settings.MANETTE_DATA_DIR);
    if (!('release' in lock)) {
      console.error(`Manette tourne déjà (pid ${lock.pid}) sur ${lock.baseUrl || 'ce dossier'}.\n`
        + `Arrête-la d’abord (Ctrl-C dans son terminal), ou lance une autre copie avec MANETTE_DATA_DIR et PORT différents.`);
      process.exit(1);
    }
    // The embedded Postgres' supervisor reports crashes and restarts through our logger.
    reportEmbeddedPostgresTo(logger);
    let service;
    try {
      service = await startService(settings, logger);
    } catch (err) {
      await lock.release();
      console.error(`Manette n’a pas pu démarrer : ${(err as Error).message}`);
      process.exit(1);
    }
    await lock.publish({ baseUrl: service.baseUrl, databaseUrl: service.databaseUrl, embedded: !settings.DATABASE_URL });
    // Created on a fresh embedded database only, else read (never applied again): see startService.
    const demoKey = service.demo?.api_key;
    console.log([
      '',
      `  Manette est prête.`,
      `  API       ${service.baseUrl}`,
      `  Docs      ${service.baseUrl}/docs/`,
      `  Realtime  ${service.realtimeUrl}`,
      ...(service.realtimeServiceKey ? [`  Service   ${service.realtimeServiceKey}  (clé de service du Realtime local : POST /realtime/v1/api/broadcast)`] : []),
      `  Démo      x-api-key: ${demoKey ?? '(pas de jeu demo)'}`,
      ...(demoKey ? [`  Jeu web   ${new URL(service.baseUrl).origin}/demo/?key=${demoKey}`] : []),
      `  SDK       ${new URL(service.baseUrl).origin}/sdk/manette.js`,
      `  Base      ${settings.DATABASE_URL ? 'DATABASE_URL' : `Postgres embarqué (${path.join(settings.MANETTE_DATA_DIR, 'postgres')})`}`,
      '',
    ].join('\n'));

    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal }, 'stopping');
      await service.close();
      await lock.release();
      process.exit(0);
    };
    process.on('SIGINT', () => void stop('SIGINT'));
    process.on('SIGTERM', () => void stop('SIGTERM'));
  });

program.command('apply')
  .argument('<file>', 'game config file (JSON)')
  .description('create or update a game from its config file; prints its API key')
  .action(async (file: string) => {
    const settings = readSettings();
    try {
      await readGameFile(file); // a bad file is reported before any database work
      let result;
      const running = settings.DATABASE_URL ? null : await runningInstance(settings.MANETTE_DATA_DIR);
      if (settings.DATABASE_URL || running?.databaseUrl) {
        const url = settings.DATABASE_URL ?? running!.databaseUrl;
        await migrate(url);
        result = await applyGameFile(url, file);
      } else {
        const lock = await claimInstance(settings.MANETTE_DATA_DIR);
        if (!('release' in lock)) throw new Error('Manette est en train de démarrer, réessaie dans un instant.');
        const pg = await startEmbeddedPostgres({
          dataDir: path.join(settings.MANETTE_DATA_DIR, 'postgres'), port: settings.MANETTE_PG_PORT,
        });
        try {
          await migrate(pg.url);
          result = await applyGameFile(pg.url, file);
        } finally {
          await pg.stop();
          await lock.release();
        }
      }
      console.log(JSON.stringify(result));
      process.exit(0);
    } catch (err) {
      const message = err instanceof GameFileError ? err.message : `échec : ${(err as Error).message}`;
      console.error(message);
      console.log(JSON.stringify({ ok: false, error: message }));
      process.exit(1);
    }
  });

await program.parseAsync(process.argv);
