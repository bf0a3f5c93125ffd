// What setting the API's identity inside each request costs (api/db/pool.ts): the façade's
// call as it is sent now, one simple-protocol message
// `set local role manette_api; set local statement_timeout = 5000; select api.<fn>(<literals>)`,
// against the same call on a connection whose role and limit were set once at connection
// start (extended protocol, parameters: what the façade sent before poolers were taken into
// account), on one throwaway Postgres 17, for GET /shop/articles, GET /leaderboards/:id/scores
// and POST /match/action. So that a machine shared with other work weighs on both alike:
// latency on one connection each, one call of each in turn (`calls` pairs, medians), then
// throughput with `connections` connections each in a closed loop, in alternating rounds.
// Retries (class 40) included in both.
//   node bin/run-ts.js bench/identity.ts [--calls 2000] [--rounds 8] [--seconds 1] [--connections 8] [--matches 20]
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startEmbeddedPostgres } from '../twin/postgres/embedded.js';
import { migrate } from '../api/db/migrate.js';
import { applyGameFile } from '../api/config/apply.js';
import { callApi, createPool, DATABASE_DEADLINE_MS, type RequestContext } from '../api/db/pool.js';
import { isRetryable } from '../api/http/errors.js';
import { freePort, percentile } from './support.js';

const { values: opts } = parseArgs({
  options: {
    calls: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '8' },
    seconds: { type: 'string', default: '1' },
    connections: { type: 'string', default: '8' },
    matches: { type: 'string', default: '20' },
  },
});
const CALLS = Number(opts.calls);
const ROUNDS = Number(opts.rounds);
const SECONDS = Number(opts.seconds);
const CONNECTIONS = Number(opts.connections);
const MATCHES = Number(opts.matches);

const dir = await mkdtemp(path.join(tmpdir(), 'manette-bench-identity-'));
await chmod(dir, 0o755);
const server = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: await freePort(), persistent: false });
try {
  await migrate(server.url);
  const gameFile = path.join(dir, 'bench.json');
  await writeFile(gameFile, JSON.stringify({
    jeu: 'bench', nom: 'Bench',
    boutique: Array.from({ length: 8 }, (_, i) => ({ code: `article-${i}`, nom: `Article ${i}`, prix: 10 * i, devise: 'or', ordre: i })),
    classements: { 'meilleur-score': { ordre: 'desc', operateur: 'meilleur' } },
    modes: { duel: { equipes: 2, joueurs_par_equipe: 1, regles: 'libre', elo_ecart_initial: 10000 } },
  }));
  const key = (await applyGameFile(server.url, gameFile)).api_key;
  const now = createPool(server.url, { max: CONNECTIONS });
  // Before: the role and the limit as startup options of each connection (a direct
  // connection honours them; poolers drop them).
  const before = new pg.Pool({
    connectionString: server.url, max: CONNECTIONS, query_timeout: DATABASE_DEADLINE_MS + 500,
    options: `-c role=manette_api -c statement_timeout=${DATABASE_DEADLINE_MS}`,
  });
  before.on('error', () => {});
  const ctx = (token?: string): RequestContext => ({ key, token, origin: undefined, base_url: 'http://bench' });

  const matches: { id: string; tokens: string[] }[] = [];
  for (let i = 0; i < MATCHES; i++) {
    const tokens = [0, 1].map((k) => `pt_${String(i).padStart(4, '0')}${k}${'f'.repeat(43)}`);
    for (const [k, token] of tokens.entries()) {
      await callApi(now, 'players_register', ctx(), { pseudo: `p${i}_${k}`, email: `p${i}_${k}@bench.test`, password_hash: 'scrypt$bench', token });
      await callApi(now, 'leaderboards_submit', ctx(token), { id: 'meilleur-score', valeur: i * 10 + k });
    }
    await callApi(now, 'matchmaking_join', ctx(tokens[0]), { mode_jeu: 'duel', elo_actuel: 1000 });
    const joined = await callApi<{ partie_id: string }>(now, 'matchmaking_join', ctx(tokens[1]), { mode_jeu: 'duel', elo_actuel: 1000 });
    matches.push({ id: joined.partie_id, tokens });
  }

  const calls: { name: string; call: (n: number) => [fn: string, ctx: RequestContext, body: unknown] }[] = [
    { name: 'GET /shop/articles', call: () => ['shop_articles', ctx(), undefined] },
    { name: 'GET /leaderboards/:id/scores', call: () => ['leaderboards_scores', ctx(), { id: 'meilleur-score', limit: 10 }] },
    {
      name: 'POST /match/action', call: (n) => {
        const m = matches[n % MATCHES]!;
        return ['match_action', ctx(m.tokens[Math.floor(n / MATCHES) % 2]), { partie_id: m.id, action: 'jouer', donnees: { n } }];
      },
    },
  ];

  // The call as sent before: parameters, extended protocol, on a connection already set.
  async function callBefore(fn: string, c: RequestContext, body: unknown) {
    const sql = body === undefined ? `select api.${fn}($1::jsonb) as r` : `select api.${fn}($1::jsonb, $2::jsonb) as r`;
    const values = body === undefined ? [JSON.stringify(c)] : [JSON.stringify(c), JSON.stringify(body)];
    for (let attempt = 1; ; attempt++) {
      try {
        return (await before.query(sql, values)).rows[0].r;
      } catch (err) {
        if (attempt < 5 && isRetryable(err)) continue;
        throw err;
      }
    }
  }

  /** `connections` loops for SECONDS: calls per second. */
  async function round(c: typeof calls[number], how: 'now' | 'before'): Promise<number> {
    let n = 0;
    let done = 0;
    const until = performance.now() + SECONDS * 1000;
    const started = performance.now();
    await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < until) {
        const [fn, cx, body] = c.call(n++);
        if (how === 'now') await callApi(now, fn, cx, body); else await callBefore(fn, cx, body);
        done++;
      }
    }));
    return done / ((performance.now() - started) / 1000);
  }

  const median = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 0.5);
  const header = ['call', 'before p50 ms', 'now p50 ms', 'now - before', 'before calls/s', 'now calls/s', 'now/before'];
  const rows: string[][] = [];
  for (const c of calls) {
    await round(c, 'before'); await round(c, 'now'); // warm-up
    // Latency: one connection each, the two in turn.
    const one = { before: [] as number[], now: [] as number[] };
    for (let n = 0; n < CALLS; n++) {
      for (const how of (n % 2 ? ['now', 'before'] : ['before', 'now']) as ('now' | 'before')[]) {
        const [fn, cx, body] = c.call(n);
        const t0 = performance.now();
        if (how === 'now') await callApi(now, fn, cx, body); else await callBefore(fn, cx, body);
        one[how].push(performance.now() - t0);
      }
    }
    // Throughput: `connections` each, in alternating rounds.
    const rates = { before: [] as number[], now: [] as number[] };
    for (let r = 0; r < ROUNDS; r++) {
      for (const how of (r % 2 ? ['now', 'before'] : ['before', 'now']) as ('now' | 'before')[]) rates[how].push(await round(c, how));
    }
    const [b, w] = [median(rates.before), median(rates.now)];
    const [lb, lw] = [median(one.before), median(one.now)];
    rows.push([c.name, lb.toFixed(3), lw.toFixed(3), `${lw >= lb ? '+' : ''}${(lw - lb).toFixed(3)}`, b.toFixed(0), w.toFixed(0), (w / b).toFixed(2)]);
  }
  const widths = header.map((_, i) => Math.max(...[header, ...rows].map((r) => r[i]!.length)));
  for (const r of [header, ...rows]) console.log(r.map((cell, i) => cell.padEnd(widths[i]!)).join('  '));
  console.log(`latency: ${CALLS} calls each on one connection, in turn; calls/s: ${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${SECONDS} s each (medians)`);
  await now.end();
  await before.end();
} finally {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
}
