// The façade against its limit, in one run: `manette start` (logs,
// CORS, rate limits, validation all on) and a bare node:http + pg server making the same
// SQL call (bench/bare-server.ts), on the same throwaway Postgres 17, under the same load
// (autocannon, keep-alive connections, closed loop), for GET /shop/articles,
// GET /leaderboards/:id/scores and POST /match/action (rules libre, commits not flushed).
// Twice: one process on each side (what one façade process costs per request), then one
// per core on each side (MANETTE_WORKERS' default, the bare server under node:cluster).
// Beside them, "Express alone": the bare server's calls served by an Express 5 app with
// nothing but its router and express.json() (bench/bare-server.ts express), the share of
// the gap that is Express's own before any of the façade's middleware.
//   node bin/run-ts.js bench/facade.ts [--seconds 5] [--connections 16] [--matches 20] [--processes 1,2]
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { startEmbeddedPostgres } from '../twin/postgres/embedded.js';
import { migrate } from '../api/db/migrate.js';
import { applyGameFile } from '../api/config/apply.js';
import { freePort, sessionPooler } from './support.js';

const { values: opts } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '16' },
    matches: { type: 'string', default: '20' },
    processes: { type: 'string', default: `1,${availableParallelism()}` },
  },
});
const SECONDS = Number(opts.seconds);
const CONNECTIONS = Number(opts.connections);
const MATCHES = Number(opts.matches);
const PROCESSES = [...new Set(opts.processes.split(',').map(Number))];
const ROOT = path.resolve(import.meta.dirname, '..');

const dir = await mkdtemp(path.join(tmpdir(), 'manette-bench-facade-'));
await chmod(dir, 0o755);
const children: ChildProcess[] = [];
const server = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: await freePort(), persistent: false });
// Reached as on a project: through the session pooler (PgBouncer playing Supavisor).
const pooler = await sessionPooler(server);
const dbUrl = pooler.url(server.url);

function stopChild(c: ChildProcess): Promise<unknown> | undefined {
  if (c.exitCode !== null || c.signalCode !== null) return undefined;
  c.kill('SIGTERM');
  return new Promise((r) => { c.once('exit', r); setTimeout(r, 10_000).unref(); });
}

async function waitForHttp(url: string, child: ChildProcess) {
  for (const until = Date.now() + 60_000; Date.now() < until;) {
    if (child.exitCode !== null) throw new Error(`${url}: the server exited (${child.exitCode})`);
    try { await fetch(url); return; } catch { await new Promise((r) => setTimeout(r, 200)); }
  }
  throw new Error(`${url}: no answer after 60 s`);
}

try {
  await migrate(dbUrl);
  const gameFile = path.join(dir, 'bench.json');
  await writeFile(gameFile, JSON.stringify({
    jeu: 'bench', nom: 'Bench',
    boutique: Array.from({ length: 8 }, (_, i) => ({ code: `article-${i}`, nom: `Article ${i}`, prix: 10 * i, devise: 'or', ordre: i })),
    classements: { 'meilleur-score': { ordre: 'desc', operateur: 'meilleur' } },
    modes: { duel: { equipes: 2, joueurs_par_equipe: 1, regles: 'libre', elo_ecart_initial: 10000 } },
  }));
  const key = (await applyGameFile(dbUrl, gameFile)).api_key;

  // Players, scores and matches through the api functions, as the façade calls them.
  // A direct connection of its own: a session-level role is safe here (no pooler).
  const api = new pg.Client({ connectionString: dbUrl });
  await api.connect();
  await api.query('set role manette_api');
  const call = async (fn: string, ctx: object, body: object) =>
    (await api.query(`select api.${fn}($1::jsonb, $2::jsonb) as r`, [JSON.stringify(ctx), JSON.stringify(body)])).rows[0].r;
  const matches: { id: string; tokens: string[] }[] = [];
  for (let i = 0; i < MATCHES; i++) {
    const tokens = [0, 1].map((k) => `pt_${String(i).padStart(4, '0')}${k}${'f'.repeat(43)}`);
    for (const [k, token] of tokens.entries()) {
      await call('players_register', { key }, { pseudo: `p${i}_${k}`, email: `p${i}_${k}@bench.test`, password_hash: 'scrypt$bench', token });
      await call('leaderboards_submit', { key, token }, { id: 'meilleur-score', valeur: i * 10 + k });
    }
    await call('matchmaking_join', { key, token: tokens[0] }, { mode_jeu: 'duel', elo_actuel: 1000 });
    const joined = await call('matchmaking_join', { key, token: tokens[1] }, { mode_jeu: 'duel', elo_actuel: 1000 });
    matches.push({ id: joined.partie_id, tokens });
  }
  await api.end();

  // The façade as `npm start` runs it on DATABASE_URL, with `processes` API processes
  // (MANETTE_WORKERS; logs to a file), and the bare server with as many processes.
  async function startServers(processes: number) {
    const facadePort = await freePort();
    const log = await open(path.join(dir, `facade-${processes}.log`), 'w');
    const facade = spawn(process.execPath, [path.join(ROOT, 'bin', 'manette.js'), 'start'], {
      cwd: ROOT, stdio: ['ignore', log.fd, log.fd],
      env: {
        ...process.env, DATABASE_URL: dbUrl, PORT: String(facadePort), HOST: '127.0.0.1', MANETTE_WORKERS: String(processes),
        MANETTE_DATA_DIR: path.join(dir, `data-${processes}`), MANETTE_RATE_LIMIT_RPS: '1000000', MANETTE_RATE_LIMIT_BURST: '1000000',
        // Supabase Realtime's settings: no local stand-in in this process (the bare server has none either).
        MANETTE_REALTIME_URL: 'ws://127.0.0.1:1/realtime/v1', MANETTE_REALTIME_JWT_SECRET: 'b'.repeat(40), LOG_LEVEL: 'info',
      },
    });
    children.push(facade);
    const bareServer = async (kind: 'node' | 'express') => {
      const barePort = await freePort();
      const child = fork(path.join(ROOT, 'bin', 'run-ts.js'), [path.join(ROOT, 'bench', 'bare-server.ts'), dbUrl, String(barePort), String(processes), kind], { stdio: 'ignore' });
      children.push(child);
      return { port: barePort, child };
    };
    const [bare, expressOnly] = [await bareServer('node'), await bareServer('express')];
    await waitForHttp(`http://127.0.0.1:${facadePort}/health`, facade);
    await waitForHttp(`http://127.0.0.1:${bare.port}/nothing`, bare.child);
    await waitForHttp(`http://127.0.0.1:${expressOnly.port}/nothing`, expressOnly.child);
    return {
      facadePort, barePort: bare.port, expressPort: expressOnly.port,
      async stop() {
        await Promise.all([facade, bare.child, expressOnly.child].map(stopChild));
        await log.close();
      },
    };
  }

  const paths: { name: string; request: (n: number) => autocannon.Request }[] = [
    { name: 'GET /shop/articles', request: () => ({ method: 'GET', path: '/api/public/v1/shop/articles', headers: { 'x-api-key': key } }) },
    { name: 'GET /leaderboards/:id/scores', request: () => ({ method: 'GET', path: '/api/public/v1/leaderboards/meilleur-score/scores?limit=10', headers: { 'x-api-key': key } }) },
    {
      name: 'POST /match/action', request: (n) => {
        const m = matches[n % MATCHES]!;
        return {
          method: 'POST', path: '/api/public/v1/match/action',
          headers: { 'x-api-key': key, 'x-player-token': m.tokens[Math.floor(n / MATCHES) % 2]!, 'content-type': 'application/json' },
          body: JSON.stringify({ partie_id: m.id, action: 'jouer', donnees: { n } }),
        };
      },
    },
  ];

  async function measure(port: number, p: typeof paths[number]) {
    let n = 0;
    const result = await autocannon({
      url: `http://127.0.0.1:${port}`, connections: CONNECTIONS, duration: SECONDS,
      requests: [{ setupRequest: () => p.request(n++) }],
    });
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${p.name} on ${port}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
  }

  const header = ['path', 'processes', 'façade req/s', 'bare req/s', 'ratio', 'Express alone req/s', 'its ratio', 'façade p50/p99 ms', 'bare p50/p99 ms'];
  const rows: string[][] = [];
  for (const processes of PROCESSES) {
    const { facadePort, barePort, expressPort, stop } = await startServers(processes);
    for (const p of paths) {
      for (const port of [facadePort, barePort, expressPort]) await measure(port, p); // warm-up (JIT, plans, pool)
      const f = await measure(facadePort, p);
      const b = await measure(barePort, p);
      const e = await measure(expressPort, p);
      rows.push([p.name, String(processes), f.rps.toFixed(0), b.rps.toFixed(0), (f.rps / b.rps).toFixed(2),
        e.rps.toFixed(0), (e.rps / b.rps).toFixed(2), `${f.p50}/${f.p99}`, `${b.p50}/${b.p99}`]);
    }
    await stop();
  }
  const widths = header.map((_, i) => Math.max(...[header, ...rows].map((r) => r[i]!.length)));
  for (const r of [header, ...rows]) console.log(r.map((c, i) => c.padEnd(widths[i]!)).join('  '));
  console.log(`${CONNECTIONS} connections, ${SECONDS} s per measure; load average: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
} finally {
  await Promise.all(children.map(stopChild));
  await pooler.stop();
  await server.stop();
  await rm(dir, { recursive: true, force: true });
}
