// Static files the API serves beside the JSON routes: the browser SDK built in sdk/dist
// (at /sdk/... and under the API base path, so a game may use either URL) and the demo
// web game at /demo/. Anything not found falls through to the JSON 404 envelope.
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import path from 'node:path';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { demoPageFor, demoPageIn } from './config/demo.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SDK_DIST = path.join(ROOT, 'sdk', 'dist');
export const DEMO_DIR = path.join(ROOT, 'examples', 'demo', 'web');

/**
 * supabase-js's browser build (its UMD file, global `supabase`), from the installed package:
 * the demo signs players in with the project's Supabase Auth through it. Undefined where the
 * package is not installed (the Edge Function's bundle): the demo then offers no Supabase sign-in.
 */
export const SUPABASE_JS_UMD = (() => {
  try {
    const file = createRequire(import.meta.url).resolve('@supabase/supabase-js').replace(/dist[\\/](?:main|module|index)[^]*$/, 'dist/umd/supabase.js');
    return existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
})();

/** SDK files are fetched on every page load: 5 minutes of cache, then an ETag revalidation. */
export const SDK_CACHE = 'public, max-age=300';

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8', // .d.ts; Express would call it video/mp2t
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

function headers(cache: string) {
  return (res: Response, file: string) => {
    const type = TYPES[path.extname(file)];
    if (type) res.setHeader('Content-Type', type);
    // Any page may load the SDK (a classic script or a cross-origin module needs CORS).
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Cache-Control', cache);
    res.setHeader('X-Content-Type-Options', 'nosniff');
  };
}

export function mountStaticAssets(app: Express, basePath: string): void {
  const sdk = express.static(SDK_DIST, {
    index: false, redirect: false, dotfiles: 'ignore', etag: true, lastModified: true, fallthrough: true,
    setHeaders: headers(SDK_CACHE),
  });
  app.use('/sdk', sdk);
  app.use(`${basePath}/sdk`, sdk);

  // The browsers' default icon request: the demo's icon rather than a 404 on every page.
  // Where the file is not shipped (the Edge Function's bundle), the JSON 404 as before.
  app.get('/favicon.ico', (_req: Request, res: Response, next: NextFunction) => {
    res.sendFile(path.join(DEMO_DIR, 'favicon.ico'), {
      headers: { 'Content-Type': 'image/x-icon', 'Cache-Control': 'public, max-age=86400', 'X-Content-Type-Options': 'nosniff' },
    }, (err) => { if (err && !res.headersSent) next(); });
  });

  // The game `manette start` serves, for the page's title and modes; only for its key. Its
  // name in the page's language (Accept-Language, as the API: English when it prefers en).
  app.get('/demo/jeu.json', (req: Request, res: Response) => {
    const page = demoPageFor(req.get('x-api-key'));
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Vary', 'Accept-Language, x-api-key');
    if (!page) return res.status(404).json({ ok: false, error: 'not_found', message: 'No description of this game here.' });
    res.json(demoPageIn(page, req.acceptsLanguages('fr', 'en') === 'en' ? 'en' : 'fr'));
  });

  // The page loads supabase-js from here when its game signs players in with Supabase Auth.
  app.get('/demo/vendor/supabase.js', (_req: Request, res: Response, next: NextFunction) => {
    if (!SUPABASE_JS_UMD) return next();
    res.sendFile(SUPABASE_JS_UMD, { headers: { 'Content-Type': TYPES['.js'], 'Cache-Control': SDK_CACHE, 'X-Content-Type-Options': 'nosniff' } },
      (err) => { if (err && !res.headersSent) next(); });
  });

  // `/demo` → `/demo/`, so the page's relative URLs resolve inside it.
  app.use('/demo', (req: Request, res: Response, next: NextFunction) => {
    const [pathname, query] = req.originalUrl.split(/\?(.*)/s);
    if (pathname === '/demo' && (req.method === 'GET' || req.method === 'HEAD')) {
      return res.redirect(301, `/demo/${query ? `?${query}` : ''}`);
    }
    next();
  }, express.static(DEMO_DIR, {
    index: 'index.html', redirect: false, dotfiles: 'ignore', etag: true, lastModified: true, fallthrough: true,
    setHeaders: headers('no-cache'),
  }));
}
