// The limit the façade is measured against (bench/facade.ts): a bare node:http server
// making the same SQL call per request as the façade (callApi, or passApi where the façade
// passes the database's text on), with the same pool and connection
// settings, and nothing else (no validation, logs, CORS, rate limits). Not a server to use.
// With a process count above 1, that many processes share the port (node:cluster), as
// `manette start` runs MANETTE_WORKERS façade processes. `express`: the same calls served
// by a bare Express 5 app (its router and express.json() only), to show Express's own share.
// `minimal` (bench/match.ts --server bare --sql minimal): POST /match/action makes only the
// writes of a move (bench/match-action.ts's minimal transaction: the match row, the history
// row, the realtime rows) as the URL's user, no authentication, rules or answer;
// `minimal-etat` sends one `etat` instead of `action` and `etat` (realtime.evenements etat).
//   node bin/run-ts.js bench/bare-server.ts <database url> <port> [processes] [node|express] [api|minimal|minimal-etat]
import cluster from 'node:cluster';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import express from 'express';
import pg from 'pg';
import { callApi, createPool, passApi, type ApiJson } from '../api/db/pool.js';

const [databaseUrl, port, processes = '1', kind = 'node', sql = 'api'] = process.argv.slice(2);

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
  const writer = sql.startsWith('minimal') ? new pg.Pool({ connectionString: databaseUrl, max: Math.ceil(20 / Number(processes)) }) : undefined;
  const MINIMAL_MOVE = minimalMove(sql === 'minimal-etat');

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
      } else if (pathname === '/api/public/v1/match/action' && method === 'POST' && writer) {
        const { partie_id: id, action, donnees } = body() as { partie_id: string; action: string; donnees: unknown };
        const moved = await writer.query(MINIMAL_MOVE, [id, action, JSON.stringify(donnees ?? {})]);
        result = { partie: { numero_tour: moved.rows[0]?.numero_tour } };
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

/** The writes of one move and nothing else: the match row, its history row, and its events
 *  as the game's realtime.evenements sends them on the room (`minimal`, action_etat:
 *  `action` then `etat`; `minimal-etat`, etat: the `etat` with the action in it), each a
 *  `realtime.send`. */
function minimalMove(oneEvent: boolean): string {
  return `
  with moved as (
    update manette.matches set board = board || $3::jsonb, turn_number = turn_number + 1, updated_at = clock_timestamp(),
      last_action_seq = last_action_seq + 1
    where id = $1::uuid returning id, game_id, turn_number, board, last_action_seq),
  logged as (
    insert into manette.match_actions (match_id, seq, game_id, player_id, action, data, turn_number)
    select id, last_action_seq, game_id, null, $2, $3::jsonb, turn_number - 1 from moved)
  select turn_number as numero_tour,${oneEvent ? '' : `
         realtime.send(jsonb_build_object('action', $2, 'donnees', $3::jsonb), 'action', 'manette_partie_' || id, true),`}
         realtime.send(jsonb_build_object('etat_plateau', board, 'numero_tour', turn_number${oneEvent
           ? ", 'action', jsonb_build_object('action', $2, 'donnees', $3::jsonb)" : ''}), 'etat', 'manette_partie_' || id, true)
  from moved`;
}
