// `manette start` (what `npm start` runs here, and `npx manette start` in a studio's
// folder): the embedded Postgres unless DATABASE_URL is set, the migrations (Manette's,
// then the studio's), the game (the demo here, the studio's game.json there), the local
// Realtime, the API, the SDK and the web demo.
import path from 'node:path';
import type { Command } from 'commander';
import { createLogger } from '../../logger.js';
import { claimInstance } from '../../../twin/instance.js';
import { portInUse } from '../../../twin/net.js';
import type { CaughtMail, MailCatcher } from '../../../twin/mail/catcher.js';
import type { SteamStandIn } from '../../../twin/steam/server.js';
import type { SupabaseAuthStandIn } from '../../../twin/supabase-auth/server.js';
import { say } from '../locale.js';
import { errorText, type CommandContext } from '../output.js';

export function registerStart(program: Command, ctx: CommandContext): void {
  const { lang } = ctx;
  program.command('start')
    .description(lang === 'fr'
      ? 'démarre le service (Postgres embarqué, sauf si DATABASE_URL est défini)'
      : 'start the service (embedded Postgres unless DATABASE_URL is set)')
    .option('--include-all', lang === 'fr'
      ? 'applique aussi les migrations plus anciennes que la dernière appliquée (comme supabase db push --include-all)'
      : 'also apply migrations older than the latest applied one (as supabase db push --include-all)')
    .action(async (opts: { includeAll?: boolean }) => {
      // What serving needs (the API, Express, the twin): loaded here, so that the other
      // commands start without it.
      const [{ reportEmbeddedPostgresTo }, { startMailCatcher }, { startService }] = await Promise.all([
        import('../../../twin/postgres/embedded.js'), import('../../../twin/mail/catcher.js'), import('../../server.js'),
      ]);
      let settings = ctx.settings();
      // Request lines would scroll the banner away in a terminal: there they go to a file.
      const requestLog = settings.MANETTE_REQUEST_LOG === 'stdout' ? undefined
        : settings.MANETTE_REQUEST_LOG ?? (process.stdout.isTTY ? path.join(settings.MANETTE_DATA_DIR, 'requests.log') : undefined);
      const logger = createLogger(settings.LOG_LEVEL);
      const lock = await claimInstance(settings.MANETTE_DATA_DIR);
      if (!('release' in lock)) {
        console.error(say({
          fr: 'Manette tourne déjà (pid {pid}) sur {where}.\nArrête-la d’abord (Ctrl-C dans son terminal), ou lance une autre copie avec MANETTE_DATA_DIR et PORT différents.',
          en: 'Manette is already running (pid {pid}) on {where}.\nStop it first (Ctrl-C in its terminal), or start another copy with other MANETTE_DATA_DIR and PORT.',
        }, lang, { pid: lock.pid, where: lock.baseUrl || (lang === 'fr' ? 'ce dossier' : 'this folder') }));
        process.exit(1);
      }
      // The ports it listens on after migrating and creating the demo, checked before anything
      // starts (found busy only then, they cost a newcomer many seconds for one line). The
      // embedded Postgres' port needs no check: it is the first thing started.
      const ports: [number, string, string][] = [
        [settings.PORT, settings.HOST, 'PORT'],
        ...(settings.MANETTE_REALTIME_URL ? [] : [[settings.MANETTE_REALTIME_PORT, settings.HOST, 'MANETTE_REALTIME_PORT'] as [number, string, string]]),
        ...(playsSupabaseAuth(settings) ? [[settings.MANETTE_SUPABASE_AUTH_PORT, '127.0.0.1', 'MANETTE_SUPABASE_AUTH_PORT'] as [number, string, string]] : []),
      ];
      const busy = [];
      for (const [port, host, name] of ports) if (port !== 0 && await portInUse(port, host)) busy.push({ port, name });
      if (busy.length) {
        await lock.release();
        console.error(say({
          fr: 'Port déjà utilisé : {list}. Arrête ce qui l’occupe, ou choisis-en un autre (ex. PORT=3001 npm start). Rien n’a été démarré.',
          en: 'Port already in use: {list}. Stop what uses it, or choose another (e.g. PORT=3001 npm start). Nothing was started.',
        }, lang, { list: busy.map((b) => `${b.port} (${b.name})`).join(', ') }));
        process.exit(1);
      }
      // The embedded Postgres' supervisor reports crashes and restarts through our logger.
      reportEmbeddedPostgresTo(logger);
      let service;
      let mailCatcher: MailCatcher | undefined;
      let steamStandIn: SteamStandIn | undefined;
      let supabaseAuth: SupabaseAuthStandIn | undefined;
      try {
        // The twin's Steam stand-in, with its test tickets (docs/accounts.md, "Signing in to npm
        // start's demo with a test Steam ticket"): asked for (MANETTE_STEAM_API_URL=twin), or on
        // the embedded default when nothing of Steam is set (the demo declares Steam).
        const steamUnset = !process.env.MANETTE_STEAM_API_URL && !settings.MANETTE_STEAM_PUBLISHER_KEY && !process.env.MANETTE_STEAM_PUBLISHER_KEYS;
        if (settings.MANETTE_STEAM_API_URL === 'twin' || (!settings.DATABASE_URL && steamUnset)) {
          const { startSteamStandIn } = await import('../../../twin/steam/server.js');
          steamStandIn = await startSteamStandIn({ publisherKey: settings.MANETTE_STEAM_PUBLISHER_KEY, testTickets: true });
          process.env.MANETTE_STEAM_API_URL = steamStandIn.url;
          process.env.MANETTE_STEAM_PUBLISHER_KEY = steamStandIn.publisherKey;
          settings = { ...settings, MANETTE_STEAM_API_URL: steamStandIn.url, MANETTE_STEAM_PUBLISHER_KEY: steamStandIn.publisherKey };
        }
        // The twin's Supabase Auth, on the embedded default when no Supabase Auth URL is set
        // (the demo declares {"supabase": true}): accounts and its signing key are kept in the
        // data folder, and its port is fixed, so its issuer and players survive a restart.
        if (playsSupabaseAuth(settings)) {
          const { startSupabaseAuthStandIn } = await import('../../../twin/supabase-auth/server.js');
          supabaseAuth = await startSupabaseAuthStandIn({
            port: settings.MANETTE_SUPABASE_AUTH_PORT, file: path.join(settings.MANETTE_DATA_DIR, 'supabase-auth.json'),
          });
          process.env.MANETTE_SUPABASE_AUTH_URL = supabaseAuth.authUrl;
          settings = { ...settings, MANETTE_SUPABASE_AUTH_URL: supabaseAuth.authUrl };
        }
        // Without an SMTP server, the twin's catcher takes the mails and prints them here
        // (the workers read MANETTE_SMTP_URL from the environment they inherit).
        if (!settings.MANETTE_SMTP_URL) {
          mailCatcher = await startMailCatcher({ onMail: (mail) => console.log(printedMail(mail, lang)) });
          process.env.MANETTE_SMTP_URL = mailCatcher.url;
          settings = { ...settings, MANETTE_SMTP_URL: mailCatcher.url };
        }
        service = await startService(settings, logger, {
          migrations: ctx.project.migrations, includeAll: !!opts.includeAll, gameFile: ctx.project.gameFile, lang, requestLog,
        });
      } catch (err) {
        await steamStandIn?.close();
        await supabaseAuth?.close();
        await mailCatcher?.stop();
        await lock.release();
        console.error(say({ fr: 'Manette n’a pas pu démarrer : {m}', en: 'Manette could not start: {m}' }, lang, { m: errorText(err, lang) }));
        process.exit(1);
      }
      ctx.serving = true;
      await lock.publish({
        baseUrl: service.baseUrl, databaseUrl: service.databaseUrl, embedded: !settings.DATABASE_URL,
        realtimeUrl: settings.MANETTE_REALTIME_URL ? undefined : service.realtimeUrl,
      });
      const game = service.game;
      const origin = new URL(service.baseUrl).origin;
      const fr = lang === 'fr';
      // The names are the README's: API, API docs, Realtime, the web demo, the SDK.
      console.log([
        '',
        `  ${fr ? 'Manette est prête.' : 'Manette is ready.'}`,
        `  API       ${service.baseUrl}${service.workers > 1 ? `  (${service.workers} ${fr ? 'processus' : 'processes'})` : ''}`,
        `  ${(fr ? 'Docs API' : 'API docs').padEnd(9)} ${service.baseUrl}/docs/`,
        `  Realtime  ${service.realtimeUrl}`,
        ...(service.realtimeServiceKey
          ? [`  Service   ${service.realtimeServiceKey}  (${fr ? 'clé de service du Realtime local : POST' : 'service key of the local Realtime: POST'} /realtime/v1/api/broadcast)`]
          : []),
        game
          ? `  ${(fr ? 'Jeu' : 'Game').padEnd(9)} ${game.jeu}  x-api-key: ${game.api_key}`
          : `  ${(fr ? 'Jeu' : 'Game').padEnd(9)} ${fr ? '(aucun : npx manette apply <fichier>)' : '(none: npx manette apply <file>)'}`,
        ...(game ? [`  ${(fr ? 'Démo web' : 'Web demo').padEnd(9)} ${origin}/demo/?key=${game.api_key}`] : []),
        `  SDK       ${origin}/sdk/manette.js`,
        `  ${(fr ? 'Courriels' : 'Mail').padEnd(9)} ${mailCatcher
          ? `${mailCatcher.url}  (${fr ? 'capteur local : les courriels s’affichent ici ; MANETTE_SMTP_URL pour un vrai serveur' : 'local catcher: mails are printed here; MANETTE_SMTP_URL for a real server'})`
          : 'MANETTE_SMTP_URL'}`,
        ...(steamStandIn ? [`  Steam     ${steamStandIn.url}  (${fr
          ? 'Steam local : un ticket de test sur /test-ticket?steamid=76561197960287930'
          : 'local Steam: a test ticket at /test-ticket?steamid=76561197960287930'})`] : []),
        ...(supabaseAuth ? [`  ${'Auth'.padEnd(9)} ${supabaseAuth.authUrl}  (${fr
          ? 'Supabase Auth local : comptes par courriel et mot de passe, pour supabase-js'
          : 'local Supabase Auth: e-mail and password accounts, for supabase-js'})`] : []),
        ...(requestLog ? [`  ${(fr ? 'Requêtes' : 'Requests').padEnd(9)} ${requestLog}  (${fr
          ? 'le journal des requêtes : tail -f pour le suivre ; MANETTE_REQUEST_LOG=stdout pour l’avoir ici'
          : 'the request log: tail -f to follow it; MANETTE_REQUEST_LOG=stdout to get it here'})`] : []),
        `  ${(fr ? 'Base' : 'Database').padEnd(9)} ${settings.DATABASE_URL ? 'DATABASE_URL' : `${fr ? 'Postgres embarqué' : 'embedded Postgres'} (${path.join(settings.MANETTE_DATA_DIR, 'postgres')})`}`,
        '',
      ].join('\n'));

      let stopping = false;
      const stop = async (signal: string) => {
        if (stopping) return;
        stopping = true;
        logger.info({ signal }, 'stopping');
        await service.close();
        await steamStandIn?.close();
        await supabaseAuth?.close();
        await mailCatcher?.stop();
        await lock.release();
        process.exit(0);
      };
      process.on('SIGINT', () => void stop('SIGINT'));
      process.on('SIGTERM', () => void stop('SIGTERM'));
    });
}

/** A mail the local catcher received, as the terminal shows it (like Supabase's local Inbucket). */
function printedMail(mail: CaughtMail, lang: 'fr' | 'en'): string {
  const fr = lang === 'fr';
  return [
    '',
    `  ${fr ? 'Courriel pour' : 'Mail to'} ${mail.to || mail.envelopeTo.join(', ')}`,
    `  ${fr ? 'Objet :' : 'Subject:'} ${mail.subject}`,
    ...mail.text.trimEnd().split('\n').map((line) => `  | ${line}`),
    '',
  ].join('\n');
}

/** Whether `manette start` runs the twin's Supabase Auth: the embedded default, no Auth URL given. */
function playsSupabaseAuth(settings: { DATABASE_URL?: string; MANETTE_SUPABASE_AUTH_URL?: string }): boolean {
  return !settings.DATABASE_URL && !settings.MANETTE_SUPABASE_AUTH_URL;
}
