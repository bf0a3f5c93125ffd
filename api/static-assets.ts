// Static files the API serves beside the JSON routes: the browser SDK built in sdk/dist
// (at /sdk/... and under the API base path, so a game may use either URL) and the demo
// web game at /demo/. Anything not found falls through to the JSON 404 envelope.
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SDK_DIST = path.join(ROOT, 'sdk', 'dist');
export const DEMO_DIR = path.join(ROOT, 'examples', 'demo', 'web');

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
