// The studio console's HTTP server: the page (console/dist) and its JSON endpoints under
// /api, for the one who opened the terminal's one-time link only. Loopback hosts only
// unless --host names another (a Host header naming anything else is refused: DNS
// rebinding); writes need the session's CSRF token and, when the browser says it, the
// console's own Origin. Each endpoint is one manette_admin.* call (routes/).
import express, { type NextFunction, type Request, type Response } from 'express';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { describeFailure } from '../../api/cli/output.js';
import type { Lang } from '../../api/http/messages.js';
import { ConsoleAuth, cookieValue, sameToken, SESSION_COOKIE, type ConsoleSession } from './auth.js';
import { ConsoleError, type ConsoleDeps, type ConsoleRoute } from './route.js';
import { CONSOLE_ROUTES } from './routes/index.js';

export const CONSOLE_DIST = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist');

export { ConsoleError } from './route.js';

const LOOPBACK = ['127.0.0.1', 'localhost', '[::1]'];

export interface ConsoleAppOptions {
  deps: ConsoleDeps;
  auth: ConsoleAuth;
  /** The port the console listens on (Host headers must name it). */
  port: number;
  /** --host: one more host name the console answers to (it listens there). */
  host?: string;
  /** Called with each unexpected error (the terminal prints it; the page gets internal_error). */
  onError?: (err: unknown) => void;
}

const SECURITY_HEADERS: Record<string, string> = {
  // Realtime is another origin (ws: / wss:); panel logos may be anywhere.
  'Content-Security-Policy': "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    + "img-src 'self' data: http: https:; connect-src 'self' ws: wss: http: https:; font-src 'self' data:; "
    + "frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  // The one-time link's secret must not leave in a Referer.
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

function page(status: number, title: string, text: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">`
    + `<title>${title}</title><style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#2d3436}`
    + `h1{font-size:1.4rem}</style></head><body><h1>${title}</h1><p>${text}</p><p><small>HTTP ${status}</small></p></body></html>`;
}

export function createConsoleApp(opts: ConsoleAppOptions): express.Express {
  const { deps, auth } = opts;
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  const hosts = new Set([...LOOPBACK, ...(opts.host ? [opts.host.includes(':') && !opts.host.startsWith('[') ? `[${opts.host}]` : opts.host] : [])]
    .map((h) => `${h}:${opts.port}`.toLowerCase()));
  // --host 0.0.0.0 or ::: reached by any of the machine's names (the session still decides).
  const anyHost = opts.host === '0.0.0.0' || opts.host === '::';
  const fr = (req: Request) => langOf(req, deps.lang) === 'fr';

  app.use((req: Request, res: Response, next: NextFunction) => {
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.setHeader(k, v);
    // DNS rebinding: a page of another site resolving its name to 127.0.0.1 sends its own Host.
    if (!anyHost && !hosts.has((req.get('host') ?? '').toLowerCase())) {
      res.status(421).type('html').send(page(421, fr(req) ? 'Hôte refusé' : 'Host refused',
        fr(req) ? 'La console ne répond qu’à 127.0.0.1 et localhost (ou à l’hôte donné par --host).'
          : 'The console answers 127.0.0.1 and localhost only (or the host given with --host).'));
      return;
    }
    next();
  });

  // The one-time link: /?secret=... becomes a session cookie, then the page without the secret.
  app.get('/', (req: Request, res: Response, next: NextFunction) => {
    const secret = req.query.secret;
    if (secret === undefined) return next();
    const id = typeof secret === 'string' ? auth.open(secret) : undefined;
    if (!id) {
      res.status(401).type('html').send(page(401, fr(req) ? 'Lien expiré' : 'Link expired',
        fr(req) ? 'Ce lien a déjà servi ou n’est pas le bon : ouvre le dernier lien affiché dans le terminal de <code>manette console</code>.'
          : 'This link was already used or is wrong: open the latest link printed in the terminal of <code>manette console</code>.'));
      return;
    }
    res.cookie(SESSION_COOKIE, id, { httpOnly: true, sameSite: 'strict', path: '/', secure: req.secure });
    res.redirect(303, '/');
  });

  // Nothing answers without a session: not the page, not its assets, not the API.
  app.use((req: Request, res: Response, next: NextFunction) => {
    const session = auth.session(cookieValue(req.get('cookie'), SESSION_COOKIE));
    if (session) {
      res.locals.session = session;
      return next();
    }
    if (req.path.startsWith('/api/')) {
      res.status(401).json({ ok: false, error: 'console_session_required',
        message: fr(req) ? 'Session requise : ouvre le lien affiché dans le terminal.' : 'Session required: open the link printed in the terminal.' });
      return;
    }
    res.status(401).type('html').send(page(401, fr(req) ? 'Console Manette' : 'Manette console',
      fr(req) ? 'Ouvre la console avec le lien à usage unique affiché dans le terminal de <code>manette console</code>.'
        : 'Open the console with the one-time link printed in the terminal of <code>manette console</code>.'));
  });

  const api = express.Router();
  api.get('/session', (req: Request, res: Response) => {
    const session = res.locals.session as ConsoleSession;
    res.json({ ok: true, data: {
      csrf: session.csrf, lang: deps.lang, operator: deps.operator,
      fichier_jeu: deps.gameFile ?? null,
      realtime: deps.realtime ? { url: deps.realtime.url } : null,
    } });
  });
  api.post('/logout', (req: Request, res: Response) => {
    if (!writeAllowed(req, res)) return;
    auth.close(cookieValue(req.get('cookie'), SESSION_COOKIE));
    res.clearCookie(SESSION_COOKIE, { path: '/' });
    res.json({ ok: true, data: {} });
  });
  for (const route of CONSOLE_ROUTES) mount(api, route as ConsoleRoute, deps, opts.onError);
  api.use((req: Request, res: Response) => {
    res.status(404).json({ ok: false, error: 'not_found', message: fr(req) ? 'Rien ici.' : 'Nothing here.' });
  });
  app.use('/api', api);

  if (existsSync(CONSOLE_DIST)) {
    app.use(express.static(CONSOLE_DIST, { index: 'index.html', dotfiles: 'ignore', etag: true, redirect: false }));
  }
  app.use((req: Request, res: Response) => {
    res.status(404).type('html').send(page(404, fr(req) ? 'Introuvable' : 'Not found', req.path.replace(/[<>&"]/g, '')));
  });
  return app;
}

/** The page's language (x-console-lang), else the terminal's. */
function langOf(req: Request, fallback: Lang): Lang {
  const l = req.get('x-console-lang');
  return l === 'fr' || l === 'en' ? l : fallback;
}

/** A write needs the session's CSRF token and, when the browser sends one, our own Origin. */
function writeAllowed(req: Request, res: Response): boolean {
  const session = res.locals.session as ConsoleSession;
  const origin = req.get('origin');
  const fr = req.get('x-console-lang') === 'fr';
  if (!sameToken(req.get('x-csrf-token'), session.csrf) || (origin !== undefined && origin !== `${req.protocol}://${req.get('host')}`)) {
    res.status(403).json({ ok: false, error: 'csrf_refused',
      message: fr ? 'Requête refusée : recharge la page de la console.' : 'Request refused: reload the console page.' });
    return false;
  }
  return true;
}

function fieldIssues(error: z.ZodError): { champ: string; message: string }[] {
  return error.issues.map((i) => ({ champ: i.path.map(String).join('.') || '(body)', message: i.message }));
}

function mount(router: express.Router, route: ConsoleRoute, deps: ConsoleDeps, onError?: (err: unknown) => void): void {
  const write = route.method !== 'get';
  const parse = express.json({ limit: route.bodyLimit ?? '1mb', strict: false });
  router[route.method](route.path, async (req: Request, res: Response) => {
    const lang = langOf(req, deps.lang);
    const fail = (status: number, body: Record<string, unknown>) => { res.status(status).json({ ok: false, ...body }); };
    try {
      if (write && !writeAllowed(req, res)) return;
      if (write) {
        if (req.get('content-length') !== '0' && req.get('content-type') && !req.is('application/json')) {
          return fail(415, { error: 'unsupported_media_type', message: lang === 'fr' ? 'JSON attendu.' : 'JSON expected.' });
        }
        await new Promise<void>((resolve, reject) => parse(req, res, (err?: unknown) => (err ? reject(err) : resolve())));
      }
      const input = { params: req.params, query: req.query, body: write ? (req.body ?? {}) : undefined };
      const parsed: Record<string, unknown> = {};
      for (const part of ['params', 'query', 'body'] as const) {
        const schema = route[part];
        if (!schema) { parsed[part] = input[part]; continue; }
        const r = schema.safeParse(input[part]);
        if (!r.success) {
          return fail(400, { error: part === 'body' ? 'validation_failed' : 'invalid_input',
            message: lang === 'fr' ? 'Données invalides.' : 'Invalid input.', details: fieldIssues(r.error) });
        }
        parsed[part] = r.data;
      }
      const data = await route.handler({ body: parsed.body, query: parsed.query, params: parsed.params, deps, lang });
      res.json({ ok: true, data });
    } catch (err) {
      if (err instanceof ConsoleError) {
        return fail(err.status, { error: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) });
      }
      const e = err as { type?: string; status?: number; code?: string };
      if (e?.type === 'entity.too.large') return fail(413, { error: 'payload_too_large', message: lang === 'fr' ? 'Trop gros.' : 'Too large.' });
      if (e?.type === 'entity.parse.failed') return fail(400, { error: 'invalid_json', message: lang === 'fr' ? 'JSON invalide.' : 'Invalid JSON.' });
      const f = describeFailure(err, lang);
      const status = /^MN(\d{3})$/.exec(e?.code ?? '')?.[1];
      if (status) return fail(Number(status), { ...f });
      if (f.error === 'invalid_input' || f.error === 'invalid_game_file' || f.error === 'invalid_json' || f.error === 'file_unreadable') return fail(400, { ...f });
      if (f.error === 'unavailable') return fail(503, { ...f });
      onError?.(err);
      fail(500, { error: 'internal_error', message: lang === 'fr' ? 'Erreur interne (voir le terminal de la console).' : 'Internal error (see the console’s terminal).' });
    }
  });
}
