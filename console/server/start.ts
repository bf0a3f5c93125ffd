// Starts the studio console on a database: its admin pool, its one-time link, its HTTP
// server (127.0.0.1 unless `host` says otherwise). `manette console` and the tests call it.
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { createAdminPool, operatorName } from '../../api/db/admin.js';
import type { Settings } from '../../api/config/settings.js';
import type { Lang } from '../../api/http/messages.js';
import { ConsoleAuth } from './auth.js';
import { createConsoleApp } from './app.js';
import type { ConsoleDeps } from './route.js';

export interface ConsoleOptions {
  databaseUrl: string;
  settings: Settings;
  lang: Lang;
  /** 0: any free port. */
  port: number;
  /** Listen there instead of 127.0.0.1 (and answer to that Host). */
  host?: string;
  gameFile?: string;
  realtime?: ConsoleDeps['realtime'];
  /** Told every new one-time link (the first, and a new one each time one is used). */
  onLink(url: string): void;
  onError?(err: unknown): void;
}

export interface RunningConsole {
  /** http://127.0.0.1:<port> (or the --host). */
  origin: string;
  port: number;
  /** Makes the current link unusable and returns a new one. */
  newLink(): string;
  close(): Promise<void>;
}

export async function startConsole(opts: ConsoleOptions): Promise<RunningConsole> {
  const operator = `${operatorName()} (console)`;
  const db = createAdminPool(opts.databaseUrl, { operator });
  const bind = opts.host ?? '127.0.0.1';
  const shown = bind.includes(':') ? `[${bind}]` : bind;
  let origin = '';
  const link = (secret: string) => `${origin}/?secret=${secret}`;
  const pending: string[] = [];
  const auth = new ConsoleAuth((secret) => (origin ? opts.onLink(link(secret)) : pending.push(secret)));
  const deps: ConsoleDeps = { db, settings: opts.settings, lang: opts.lang, operator, gameFile: opts.gameFile, realtime: opts.realtime };
  // The app needs the port for its Host check: made once the server listens.
  let app: ReturnType<typeof createConsoleApp> | undefined;
  const server: Server = createServer((req, res) => (app ? app(req, res) : res.destroy()));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, bind, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  app = createConsoleApp({ deps, auth, port, host: opts.host, onError: opts.onError });
  origin = `http://${shown}:${port}`;
  for (const secret of pending.splice(0)) opts.onLink(link(secret));
  return {
    origin, port,
    newLink: () => link(auth.renewSecret()),
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await db.end();
    },
  };
}
