// The façade against its limit, in one run, with the load shape of a game: `manette start`
// as a user runs it (MANETTE_WORKERS' default, one API process per core; logs, CORS, rate
// limits, validation all on) and a bare node:http + pg server making the same SQL call
// (bench/bare-server.ts) with as many processes and the same pool, on the same throwaway
// Postgres 17 behind the session pooler, for the two write paths players hit most:
// POST /shop/acheter (a purchase) and POST /leaderboards/:id/submit (a score).
//
// Method (printed with the figures, and in docs/performance.md, "Façade bench"):
// - 32 keep-alive connections in a closed loop (the next request as soon as the answer is
//   in), 64 players in turn (their key and token in the headers), each server warmed up
//   first (JIT, plans, pool) by a run of its own;
// - two load generators on the same requests: bench/load.ts (a lean client in this process,
//   a few µs of CPU per request) and, when it is installed, wrk (1 thread, 32 connections,
//   a Lua script for the bodies and headers), so the bench's figures are checked against an
//   independent client in the same run;
// - `rounds` rounds, the façade and the bare server taken in turn (their order alternating);
//   the ratio of a round is façade / bare of that round; the medians are printed.
//   node bin/run-ts.js bench/facade.ts [--seconds 3] [--connections 32] [--rounds 5] [--processes N] [--players 64]
//     [--autocannon] [--no-wrk] [--only shop|scores] [--facade-env K=V ...] [--profile DIR]
import { execFile, fork, spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { startEmbeddedPostgres } from '../twin/postgres/embedded.js';
import { migrate } from '../api/db/migrate.js';
import { applyGameFile } from '../api/config/apply.js';
import { freePort, reportRatio, sessionPooler } from './support.js';
import { load } from './load.js';
import { readdirSync } from 'node:fs';
import { statFields } from '../twin/procs.js';

const { values: opts } = parseArgs({
  options: {
    seconds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '32' },
    rounds: { type: 'string', default: '5' },
    processes: { type: 'string', default: String(availableParallelism()) },
    players: { type: 'string', default: '64' },
    only: { type: 'string' },
    // Settings for the façade's processes, K=V (repeatable): e.g. LOG_LEVEL=silent to measure what logging costs.
    'facade-env': { type: 'string', multiple: true, default: [] },
    'no-wrk': { type: 'boolean', default: false },
    // Also measure with autocannon, the client this bench used before (the cause of its
    // disagreement with wrk: docs/performance.md).
    autocannon: { type: 'boolean', default: false },
    // A CPU profile of every façade process into this folder (node --cpu-prof), written when it stops.
    profile: { type: 'string' },
  },
});
const SECONDS = Number(opts.seconds);
const WARMUP = Number(opts.warmup);
const CONNECTIONS = Number(opts.connections);
const ROUNDS = Number(opts.rounds);
const PROCESSES = Number(opts.processes);
const PLAYERS = Number(opts.players);
const ROOT = path.resolve(import.meta.dirname, '..');
const GOAL = 0.8;

const execFileP = promisify(execFile);
async function wrkVersion(): Promise<string | undefined> {
  if (opts['no-wrk']) return undefined;
  try {
    const { stdout, stderr } = await execFileP('wrk', ['-v']).catch((e: { stdout?: string; stderr?: string }) => ({ stdout: e.stdout ?? '', stderr: e.stderr ?? '' }));
    const m = /wrk (\S+)/.exec(stdout + stderr);
    return m ? m[1] : undefined;
  } catch {
    return undefined;
  }
}

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

/** CPU seconds used so far by a process and its children (a server's primary and workers). */
function treeCpu(root: number): { all: number; primary: number } {
  let all = 0;
  let primary = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const f = statFields(Number(entry));
    if (!f || (Number(entry) !== root && Number(f[1]) !== root)) continue;
    const cpu = (Number(f[11]) + Number(f[12])) / 100;
    all += cpu;
    if (Number(entry) === root) primary += cpu;
  }
  return { all, primary };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

try {
  const wrk = await wrkVersion();
  await migrate(dbUrl);
  const gameFile = path.join(dir, 'bench.json');
  // Gold for every purchase of the run, a potion without cap; a board that keeps the
  // latest score, so that every submission writes, whichever client's counter sends it.
  await writeFile(gameFile, JSON.stringify({
    jeu: 'bench', nom: 'Bench',
    monnaies: { or: { nom: 'Or', depart: 1_000_000_000_000 } },
    objets: { potion: { nom: 'Potion', empilable: true } },
    boutique: [{ code: 'potion', nom: 'Potion', prix: 1, devise: 'or', contenu: { objets: { potion: 1 } } }],
    classements: { score: { ordre: 'desc', operateur: 'dernier' } },
  }));
  const key = (await applyGameFile(dbUrl, gameFile)).api_key;

  // Players through the api functions, as the façade calls them, each with a first purchase
  // and a first score (their rows exist before any measure).
  // A direct connection of its own: a session-level role is safe here (no pooler).
  const api = new pg.Client({ connectionString: dbUrl });
  api.on('error', (e) => console.error('api client:', e.message));
  await api.connect();
  await api.query('set role manette_api');
  const call = async (fn: string, ctx: object, body: object) =>
    (await api.query(`select api.${fn}($1::jsonb, $2::jsonb) as r`, [JSON.stringify(ctx), JSON.stringify(body)])).rows[0].r;
  const tokens: string[] = [];
  for (let i = 0; i < PLAYERS; i++) {
    const token = `pt_${String(i).padStart(5, '0')}${'f'.repeat(43)}`;
    await call('players_register', { key }, { pseudo: `joueur${i}`, email: `joueur${i}@bench.test`, password_hash: 'scrypt$bench', token });
    await call('shop_acheter', { key, token }, { code: 'potion' });
    await call('leaderboards_submit', { key, token }, { id: 'score', valeur: i });
    tokens.push(token);
  }
  await api.end();

  // The façade as `npm start` runs it on DATABASE_URL (MANETTE_WORKERS API processes, logs
  // to a file), and the bare server with as many processes.
  async function startServers() {
    const facadePort = await freePort();
    const log = await open(path.join(dir, 'facade.log'), 'w');
    // --cpu-prof is refused in NODE_OPTIONS; node:cluster gives the workers the primary's execArgv.
    const profile = opts.profile ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(opts.profile)}`] : [];
    const facade = spawn(process.execPath, [...profile, path.join(ROOT, 'bin', 'manette.js'), 'start'], {
      cwd: ROOT, stdio: ['ignore', log.fd, log.fd],
      env: {
        ...process.env, DATABASE_URL: dbUrl, PORT: String(facadePort), HOST: '127.0.0.1', MANETTE_WORKERS: String(PROCESSES),
        MANETTE_DATA_DIR: path.join(dir, 'data'), MANETTE_RATE_LIMIT_RPS: '1000000', MANETTE_RATE_LIMIT_BURST: '1000000',
        // Supabase Realtime's settings: no local stand-in in this process (the bare server has none either).
        MANETTE_REALTIME_URL: 'ws://127.0.0.1:1/realtime/v1', MANETTE_REALTIME_JWT_SECRET: 'b'.repeat(40), LOG_LEVEL: 'info',
        ...Object.fromEntries(opts['facade-env'].map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)])),
      },
    });
    children.push(facade);
    const barePort = await freePort();
    const bare = fork(path.join(ROOT, 'bin', 'run-ts.js'), [path.join(ROOT, 'bench', 'bare-server.ts'), dbUrl, String(barePort), String(PROCESSES), 'node'], { stdio: 'ignore' });
    children.push(bare);
    await waitForHttp(`http://127.0.0.1:${facadePort}/health`, facade);
    await waitForHttp(`http://127.0.0.1:${barePort}/nothing`, bare);
    return {
      facadePort, barePort, facadePid: facade.pid!, barePid: bare.pid!,
      async stop() {
        await Promise.all([facade, bare].map(stopChild));
        await log.close();
      },
    };
  }

  // Each path as the n-th request's text, for bench/load.ts, and as the same in wrk's Lua.
  interface Path { name: string; short: string; path: string; bodyJs: (n: number) => string; bodyLua: string }
  const paths: Path[] = [
    { name: 'POST /shop/acheter', short: 'shop', path: '/api/public/v1/shop/acheter', bodyJs: () => '{"code":"potion"}', bodyLua: '\'{"code":"potion"}\'' },
    {
      name: 'POST /leaderboards/:id/submit', short: 'scores', path: '/api/public/v1/leaderboards/score/submit',
      bodyJs: (n) => `{"valeur":${n}}`, bodyLua: '\'{"valeur":\' .. n .. \'}\'',
    },
  ];
  if (opts.only) paths.splice(0, paths.length, ...paths.filter((p) => p.short === opts.only));
  const requestText = (p: Path, port: number) => (n: number) => {
    const body = p.bodyJs(n);
    return `POST ${p.path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nx-api-key: ${key}\r\nx-player-token: ${tokens[n % PLAYERS]}\r\n`
      + `content-type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  };
  const luaFile = async (p: Path) => {
    const file = path.join(dir, `${p.short}.lua`);
    await writeFile(file, [
      `local tokens = { ${tokens.map((t) => `"${t}"`).join(', ')} }`,
      'local n = 0',
      'request = function()',
      `  local body = ${p.bodyLua}`,
      `  local headers = { ["x-api-key"] = "${key}", ["x-player-token"] = tokens[n % ${PLAYERS} + 1], ["content-type"] = "application/json" }`,
      '  n = n + 1',
      `  return wrk.format("POST", "${p.path}", headers, body)`,
      'end',
      'done = function(summary, latency, requests)',
      '  io.write(string.format("non2xx %d\\n", summary.errors.status))',
      'end',
      '',
    ].join('\n'));
    return file;
  };

  interface Measure { rps: number; p50: number; p99: number; cpuMsPerRequest?: number; serverCpuMsPerRequest?: number; primaryCpuMsPerRequest?: number }
  async function measureLoad(port: number, p: Path, seconds: number): Promise<Measure> {
    const r = await load(port, { connections: CONNECTIONS, seconds }, requestText(p, port));
    if (r.non2xx > 0) throw new Error(`${p.name} on ${port}: ${r.non2xx} non-2xx answers, the first: ${r.firstNon2xx}`);
    return { rps: r.rps, p50: r.p50, p99: r.p99, cpuMsPerRequest: r.cpuMsPerRequest };
  }
  async function measureAutocannon(port: number, p: Path, seconds: number): Promise<Measure> {
    let n = 0;
    const cpuBefore = process.cpuUsage();
    const result = await autocannon({
      url: `http://127.0.0.1:${port}`, connections: CONNECTIONS, duration: seconds,
      requests: [{
        setupRequest: () => {
          const i = n++;
          return { method: 'POST', path: p.path, body: p.bodyJs(i), headers: { 'x-api-key': key, 'x-player-token': tokens[i % PLAYERS]!, 'content-type': 'application/json' } };
        },
      }],
    });
    const cpu = process.cpuUsage(cpuBefore);
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`autocannon on ${p.name} (${port}): ${result.non2xx} non-2xx, ${result.errors} errors`);
    return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, cpuMsPerRequest: (cpu.user + cpu.system) / 1000 / Math.max(result.requests.total, 1) };
  }
  const ms = (v: string, unit: string) => Number(v) * ({ us: 0.001, ms: 1, s: 1000 }[unit] ?? NaN);
  async function measureWrk(port: number, p: Path, script: string): Promise<Measure> {
    // wrk's own CPU, read from /proc while it runs (its last reading before it exits).
    const child = spawn('wrk', ['-t1', `-c${CONNECTIONS}`, `-d${SECONDS}s`, '--latency', '-s', script, `http://127.0.0.1:${port}`], { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    let cpu = 0;
    child.stdout!.on('data', (d: Buffer) => { stdout += d.toString(); });
    const poll = setInterval(() => {
      const f = statFields(child.pid!);
      if (f) cpu = (Number(f[11]) + Number(f[12])) / 100;
    }, 250);
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    clearInterval(poll);
    if (code !== 0) throw new Error(`wrk exited ${code}:\n${stdout}`);
    const rps = /Requests\/sec:\s*([\d.]+)/.exec(stdout);
    const non2xx = /non2xx (\d+)/.exec(stdout);
    const socketErrors = /Socket errors: (.*)/.exec(stdout);
    if (!rps || !non2xx || Number(non2xx[1]) > 0 || socketErrors) throw new Error(`wrk on ${p.name} (${port}):\n${stdout}`);
    const p50 = /\s50%\s+([\d.]+)(us|ms|s)/.exec(stdout);
    const p99 = /\s99%\s+([\d.]+)(us|ms|s)/.exec(stdout);
    return {
      rps: Number(rps[1]), p50: p50 ? ms(p50[1]!, p50[2]!) : NaN, p99: p99 ? ms(p99[1]!, p99[2]!) : NaN,
      cpuMsPerRequest: (cpu * 1000) / (Number(rps[1]) * SECONDS),
    };
  }

  type Gen = 'bench' | 'wrk' | 'autocannon';
  const generators: Gen[] = ['bench', ...(wrk ? ['wrk' as const] : []), ...(opts.autocannon ? ['autocannon' as const] : [])];
  // per path, generator: the rounds' measures of each server
  const results = new Map<string, { facade: Measure[]; bare: Measure[] }>();
  const slot = (p: Path, g: Gen) => {
    const k = `${p.short}|${g}`;
    if (!results.has(k)) results.set(k, { facade: [], bare: [] });
    return results.get(k)!;
  };
  const loads: number[] = [];

  const { facadePort, barePort, facadePid, barePid, stop } = await startServers();
  // A measure, with the CPU its server (all its processes) spent per answer.
  const withServerCpu = async (pid: number, seconds: number, run: () => Promise<Measure>): Promise<Measure> => {
    const before = treeCpu(pid);
    const m = await run();
    const after = treeCpu(pid);
    return { ...m, serverCpuMsPerRequest: ((after.all - before.all) * 1000) / (m.rps * seconds), primaryCpuMsPerRequest: ((after.primary - before.primary) * 1000) / (m.rps * seconds) };
  };
  try {
    for (const p of paths) {
      const script = wrk ? await luaFile(p) : '';
      for (const port of [facadePort, barePort]) await measureLoad(port, p, WARMUP); // warm-up
      for (let round = 0; round < ROUNDS; round++) {
        for (const g of generators) {
          const order = round % 2 === 0 ? ['facade', 'bare'] as const : ['bare', 'facade'] as const;
          for (const side of order) {
            const port = side === 'facade' ? facadePort : barePort;
            slot(p, g)[side].push(await withServerCpu(side === 'facade' ? facadePid : barePid, SECONDS, () => (g === 'wrk' ? measureWrk(port, p, script)
              : g === 'autocannon' ? measureAutocannon(port, p, SECONDS) : measureLoad(port, p, SECONDS))));
            loads.push(loadavg()[0]!);
          }
        }
      }
    }
  } finally {
    await stop();
  }

  console.log(`Method: ${CONNECTIONS} keep-alive connections in a closed loop, ${PLAYERS} players in turn; `
    + `the façade (\`manette start\`, MANETTE_WORKERS=${PROCESSES}, logs, CORS, rate limits on) and the bare node:http + pg server `
    + `(${PROCESSES} process${PROCESSES > 1 ? 'es' : ''}, node:cluster), both with a pool of ${Math.max(2, Math.ceil(20 / PROCESSES))} per process; `
    + `${WARMUP} s warm-up per server and path, then ${ROUNDS} rounds of ${SECONDS} s per server and client, alternating; medians. `
    + `Clients: bench/load.ts (in this process)${wrk ? ` and wrk ${wrk} (-t1 -c${CONNECTIONS}, Lua script)` : '; wrk not run (not installed, or --no-wrk): the comparison with wrk is skipped'}.`);
  const header = ['path', 'client', 'façade req/s', 'bare req/s', 'ratio (rounds)', 'façade p50/p99 ms', 'bare p50/p99 ms', 'server CPU ms/req façade (its primary)/bare', 'client CPU ms/req'];
  const rows: string[][] = [];
  const ratios = new Map<string, number>();
  for (const p of paths) {
    for (const g of generators) {
      const r = slot(p, g);
      const perRound = r.facade.map((f, i) => f.rps / r.bare[i]!.rps);
      const ratio = median(perRound);
      ratios.set(`${p.short}|${g}`, ratio);
      const f = (m: Measure[]) => `${median(m.map((x) => x.p50)).toFixed(1)}/${median(m.map((x) => x.p99)).toFixed(1)}`;
      const cpu = r.facade.concat(r.bare).map((x) => x.cpuMsPerRequest).filter((x): x is number => x !== undefined);
      rows.push([p.name, g === 'bench' ? 'bench/load.ts' : g, median(r.facade.map((x) => x.rps)).toFixed(0), median(r.bare.map((x) => x.rps)).toFixed(0),
        `${ratio.toFixed(2)} (${Math.min(...perRound).toFixed(2)}–${Math.max(...perRound).toFixed(2)})`, f(r.facade), f(r.bare),
        `${median(r.facade.map((x) => x.serverCpuMsPerRequest!)).toFixed(3)} (${median(r.facade.map((x) => x.primaryCpuMsPerRequest!)).toFixed(3)})/${median(r.bare.map((x) => x.serverCpuMsPerRequest!)).toFixed(3)}`, cpu.length ? median(cpu).toFixed(3) : '-']);
    }
  }
  const widths = header.map((_, i) => Math.max(...[header, ...rows].map((r) => r[i]!.length)));
  for (const r of [header, ...rows]) console.log(r.map((c, i) => c.padEnd(widths[i]!)).join('  '));
  const agreement: [string, number][] = [];
  if (wrk) {
    for (const p of paths) {
      const b = slot(p, 'bench');
      const w = slot(p, 'wrk');
      const diff = (x: number, y: number) => `${((x / y - 1) * 100).toFixed(1)} %`;
      const rb = ratios.get(`${p.short}|bench`)!;
      const rw = ratios.get(`${p.short}|wrk`)!;
      const agree = Math.abs(rb / rw - 1) <= 0.1;
      // The same, round by round (the two clients' pairs of a round are seconds apart).
      const perRound = median(b.facade.map((f, i) => (f.rps / b.bare[i]!.rps) / (w.facade[i]!.rps / w.bare[i]!.rps)));
      agreement.push([p.short, rb / rw]);
      console.log(`${p.short}: bench vs wrk, ratio ${rb.toFixed(2)} vs ${rw.toFixed(2)} (${diff(rb, rw)}; round by round, median ${diff(perRound, 1)}), `
        + `façade ${diff(median(b.facade.map((x) => x.rps)), median(w.facade.map((x) => x.rps)))}, `
        + `bare ${diff(median(b.bare.map((x) => x.rps)), median(w.bare.map((x) => x.rps)))}: ${agree ? 'agree within 10 %' : 'DISAGREE by more than 10 %'}`);
    }
  }
  console.log(`load average (1 min) during the measures: median ${median(loads).toFixed(2)}, ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)}; now ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  for (const p of paths) {
    for (const g of generators.filter((x) => x !== 'autocannon')) {
      reportRatio(`façade / bare server, ${p.short} (${g === 'wrk' ? 'wrk' : 'bench'})`, ratios.get(`${p.short}|${g}`)!, { atLeast: GOAL });
    }
  }
  for (const [short, value] of agreement) reportRatio(`façade bench / wrk, ${short} (its ratio by either client)`, value, { atLeast: 0.9, atMost: 1.1 });
  if (!wrk) console.log(opts['no-wrk'] ? 'wrk: not run (--no-wrk)' : 'wrk: not installed, its comparison skipped (apt-get install wrk)');
} catch (err) {
  console.error(err);
  process.exitCode = 1;
} finally {
  await Promise.all(children.map(stopChild));
  await pooler.stop();
  await server.stop();
  await rm(dir, { recursive: true, force: true });
}
