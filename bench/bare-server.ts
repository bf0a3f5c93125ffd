// The limit the façade is measured against (bench/facade.ts): a bare node:http server
// making the same SQL call per request as the façade (callApi, or passApi where the façade
// passes the database's text on), with the same pool and connection
// settings, and nothing else (no validation, logs, CORS, rate limits). Not a server to use.
// With a process count above 1, that many processes share the port (node:cluster), as
// `manette start` runs MANETTE_WORKERS façade processes. `express`: the same calls served
// by a bare Express 5 app (its router and express.json() only), to show Express's own share.
//   node bin/run-ts.js bench/bare-server.ts <database url> <port> [processes] [node|express]
import cluster from 'node:cluster';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { callApi, createPool, passApi, type ApiJson } from '../api/db/pool.js';

const [databaseUrl, port, processes = '1', kind = 'node'] = process.argv.slice(2);

if (cluster.isPrimary && Number(processes) > 1) {
  // Each process runs this file again through tsx, with its share of the pool (as workers do).
  cluster.setupPrimary({ exec: fileURLToPath(new URL('../bin/run-ts.js', import.meta.url)), args: [fileURLToPath(import.meta.url), ...process.argv.slice(2)] });
  let listening = 0;
  for (let i = 0; i < Number(processes); i++) {
    cluster.fork().on('listening', () => { if (++listening === Number(processes)) process.send?.('ready'); });
  }
  process.on('SIGTERM', () => { for (const w of Object.values(cluster.workers ?? {})) w?.kill(); process.exit(0); });
} else {
  serve();
}

function serve() {
  const pool = createPool(databaseUrl!, { role: 'manette_api', max: Math.ceil(20 / Number(processes)) });

  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };

  // The three calls, from a request's method, path, query, headers and body.
  const handle = async (method: string, pathname: string, query: URLSearchParams, headers: http.IncomingHttpHeaders,
    body: () => unknown, res: http.ServerResponse) => {
    const ctx = {
      key: headers['x-api-key'] as string | undefined, token: headers['x-player-token'] as string | undefined,
      origin: undefined, base_url: `http://${headers.host}`, client_ip: '127.0.0.1', lang: 'fr' as const,
    };
    try {
      let result: Record<string, unknown>;
      const scores = /^\/api\/public\/v1\/leaderboards\/([^/]+)\/scores$/.exec(pathname);
      const submit = /^\/api\/public\/v1\/leaderboards\/([^/]+)\/submit$/.exec(pathname);
      // The façade's two write paths, as it calls them (passApi: the result's text passed on).
      let text: ApiJson | undefined;
      if (pathname === '/api/public/v1/shop/acheter' && method === 'POST') {
        text = (await passApi(pool, 'shop_acheter', ctx, body())).asData();
      } else if (submit && method === 'POST') {
        text = await passApi(pool, 'leaderboards_submit', ctx, { id: decodeURIComponent(submit[1]!), valeur: (body() as { valeur: number }).valeur });
      }
      if (text) {
        const out = `{"ok":true,${text.text.slice(1)}`;
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(out) });
        res.end(out);
        return;
      }
      if (pathname === '/api/public/v1/shop/articles') {
        result = await callApi(pool, 'shop_articles', ctx);
      } else if (scores) {
        result = await callApi(pool, 'leaderboards_scores', ctx, { id: decodeURIComponent(scores[1]!), limit: Number(query.get('limit') ?? 10) });
      } else if (pathname === '/api/public/v1/match/action' && method === 'POST') {
        result = await callApi(pool, 'match_action', ctx, body());
      } else {
        return send(res, 404, { ok: false, error: 'not_found' });
      }
      send(res, 200, { ok: true, ...result });
    } catch (err) {
      send(res, 500, { ok: false, error: String((err as Error).message) });
    }
  };

  let server: http.Server;
  if (kind === 'express') {
    const app = express();
    app.use(express.json());
    const route = (req: express.Request, res: express.Response) =>
      handle(req.method, req.path, new URLSearchParams(req.url.split('?')[1] ?? ''), req.headers, () => req.body, res);
    app.get('/api/public/v1/shop/articles', route);
    app.get('/api/public/v1/leaderboards/:id/scores', route);
    app.post('/api/public/v1/match/action', route);
    app.post('/api/public/v1/shop/acheter', route);
    app.post('/api/public/v1/leaderboards/:id/submit', route);
    app.use((_req, res) => send(res, 404, { ok: false, error: 'not_found' }));
    server = http.createServer(app);
  } else {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://x');
        void handle(req.method ?? 'GET', url.pathname, url.searchParams, req.headers,
          () => JSON.parse(Buffer.concat(chunks).toString('utf8')), res);
      });
    });
  }
  server.listen(Number(port), '127.0.0.1', () => { if (cluster.isPrimary) process.send?.('ready'); });
}
