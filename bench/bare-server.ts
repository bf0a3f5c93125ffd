// The limit the façade is measured against (bench/facade.ts): a bare node:http server
// making the same SQL call per request as the façade, with the same pool and connection
// settings, and nothing else (no validation, logs, CORS, rate limits). Not a server to use.
// With a process count above 1, that many processes share the port (node:cluster), as
// `manette start` runs MANETTE_WORKERS façade processes.
//   node bin/run-ts.js bench/bare-server.ts <database url> <port> [processes]
import cluster from 'node:cluster';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { callApi, createPool } from '../api/db/pool.js';

const [databaseUrl, port, processes = '1'] = process.argv.slice(2);
if (cluster.isPrimary && Number(processes) > 1) {
  // Each process runs this file again through tsx, with its share of the pool (as workers do).
  cluster.setupPrimary({ exec: fileURLToPath(new URL('../bin/run-ts.js', import.meta.url)), args: [fileURLToPath(import.meta.url), ...process.argv.slice(2)] });
  let listening = 0;
  for (let i = 0; i < Number(processes); i++) {
    cluster.fork().on('listening', () => { if (++listening === Number(processes)) process.send?.('ready'); });
  }
  process.on('SIGTERM', () => { for (const w of Object.values(cluster.workers ?? {})) w?.kill(); process.exit(0); });
} else serve();

function serve() {
const pool = createPool(databaseUrl!, { role: 'manette_api', max: Math.ceil(20 / Number(processes)) });

const send = (res: http.ServerResponse, status: number, body: unknown) => {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
};

http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', async () => {
    const url = new URL(req.url ?? '/', 'http://x');
    const ctx = {
      key: req.headers['x-api-key'] as string | undefined, token: req.headers['x-player-token'] as string | undefined,
      origin: undefined, base_url: `http://${req.headers.host}`,
    };
    try {
      let result: Record<string, unknown>;
      const scores = /^\/api\/public\/v1\/leaderboards\/([^/]+)\/scores$/.exec(url.pathname);
      if (url.pathname === '/api/public/v1/shop/articles') {
        result = await callApi(pool, 'shop_articles', ctx);
      } else if (scores) {
        result = await callApi(pool, 'leaderboards_scores', ctx, { id: decodeURIComponent(scores[1]!), limit: Number(url.searchParams.get('limit') ?? 10) });
      } else if (url.pathname === '/api/public/v1/match/action' && req.method === 'POST') {
        result = await callApi(pool, 'match_action', ctx, JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } else {
        return send(res, 404, { ok: false, error: 'not_found' });
      }
      send(res, 200, { ok: true, ...result });
    } catch (err) {
      send(res, 500, { ok: false, error: String((err as Error).message) });
    }
  });
}).listen(Number(port), '127.0.0.1', () => { if (cluster.isPrimary) process.send?.('ready'); });
}
