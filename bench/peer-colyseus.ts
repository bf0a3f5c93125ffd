// Manette against its peer, Colyseus 0.18 (rooms kept in memory), in the same run: the same
// turn-based game (Manette's `tour_par_tour` rules, bench/peers/colyseus/server.mjs) and the
// same load shape (M matches at once, M × 2 players, MOVES moves each, closed loop).
//
//   node bin/run-ts.js bench/peer-colyseus.ts [--matches 100] [--moves 20] [--skip-durable] [--skip-floor]
//     [--events etat|action_etat|etat_aux_autres]   (Manette's realtime.evenements; etat by default, below)
//
// Colyseus is installed apart from Manette's own dependencies, in bench/peers/colyseus/
// (its own package.json and package-lock.json): `npm ci --prefix bench/peers/colyseus` runs
// here when its node_modules is missing. Then, one after the other (this machine has two
// cores; they do not run at the same time):
//   1. Manette, commits not flushed (as Colyseus, which keeps its rooms in memory):
//      bench/match.ts, whose throwaway Postgres runs with fsync and synchronous_commit off;
//   2. Colyseus: bench/peers/colyseus/server.mjs and client.mjs, each its own process;
//   3. the floor of such a relay on this machine, commits not flushed: the same runs of
//      bench/match.ts with the moves served by a bare node:http + pg server (bench/bare-server.ts,
//      as many processes and connections as the façade, nothing else), first calling
//      api.match_action (`--server bare`: what the façade adds), then making only the writes of
//      a move (`--server bare --sql minimal`: the match row, its history row, the realtime rows;
//      no authentication, rules or answer): what Postgres, Realtime, HTTP and the load
//      generator cost here whatever the code;
//   4. Manette, durable commits: bench/match.ts --durable (every commit flushed).
// Prints each run's output, then one table: actions/s and the latency from sending an
// action to the other player receiving the resulting state (p50, p99), and the ratios
// Manette / Colyseus against their goals (GOALS below: ≥ 0.2× the actions/s, on the way to
// 0.33×; steady p50 ≤ 5×), with where Manette's CPU went and the stages of a steady move.
// Every child process is bounded in time and ended at the end; everything on 127.0.0.1.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, reportRatio } from './support.js';

const { values: opts } = parseArgs({
  options: {
    matches: { type: 'string', default: '100' },
    moves: { type: 'string', default: '20' },
    'skip-durable': { type: 'boolean', default: false },
    'skip-floor': { type: 'boolean', default: false },
    events: { type: 'string', default: 'etat' },
  },
});
const MATCHES = Number(opts.matches);
const MOVES = Number(opts.moves);
if (!(MATCHES >= 1) || !(MOVES >= 1)) throw new Error('--matches and --moves: positive integers');

const ROOT = path.resolve(import.meta.dirname, '..');
const PEER = path.join(ROOT, 'bench', 'peers', 'colyseus');
const INSTALL_TIMEOUT_MS = 300_000;
const MANETTE_TIMEOUT_MS = 900_000;   // bench/match.ts: setup, its own 300 s bound on the run, the join pricing after
const PEER_TIMEOUT_MS = 400_000;      // the Colyseus client: setup and its own 300 s bound

/** The goals of the ratios Manette / Colyseus (commits not flushed, like the peer's rooms in memory). */
const GOALS = { actions: 0.2, actionsNext: 0.33, p50: 5 };

const started: ChildProcess[] = [];
const FLOOR_API = 'Floor: bare server, api.match_action';
const FLOOR_WRITES = 'Floor: bare server, a move\'s writes only';

/** Every process below `pid` (children first found, then theirs), from ps. */
function descendants(pid: number): number[] {
  let rows: string;
  try { rows = execFileSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' }); } catch { return []; }
  const children = new Map<number, number[]>();
  for (const row of rows.trim().split('\n')) {
    const [c, p] = row.trim().split(/\s+/).map(Number) as [number, number];
    children.set(p, [...(children.get(p) ?? []), c]);
  }
  const out: number[] = [];
  const walk = (p: number) => { for (const c of children.get(p) ?? []) { out.push(c); walk(c); } };
  walk(pid);
  return out;
}

/** Ends a child this script started, and every process it started in turn (by their ids). */
async function end(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const tree = [child.pid!, ...descendants(child.pid!)];
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (const pid of tree) { try { process.kill(pid, 'SIGTERM'); } catch { /* gone */ } }
  await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000).unref())]);
  for (const pid of tree) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
}

/** Runs a command to its end (or its time limit), its output shown as it comes, prefixed. */
async function run(label: string, cmd: string, args: string[], timeoutMs: number, env: NodeJS.ProcessEnv = process.env): Promise<{ out: string; code: number | null; timedOut: boolean }> {
  const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env });
  started.push(child);
  let out = '';
  const show = (d: Buffer) => { for (const l of d.toString().split('\n')) if (l) console.log(`[${label}] ${l}`); };
  child.stdout!.on('data', (d: Buffer) => { out += d.toString(); show(d); });
  child.stderr!.on('data', show);
  let timedOut = false;
  const timer = setTimeout(() => { timedOut = true; console.error(`[${label}] not finished after ${timeoutMs / 1000} s: ended`); void end(child); }, timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  clearTimeout(timer);
  await end(child);   // anything it left behind
  return { out, code, timedOut };
}

interface Figures { actions: number; p50: number; p99: number; p50All: number; p99All: number; load: number; failed: number; check: string; cpu?: { all: number; parts: string }; stages?: string }
/** The figures of bench/match.ts's output, or of the peer client's (the same form). */
function parse(out: string): Figures | undefined {
  const actions = /accepted actions: \d+ in [\d.]+ ms = (\d+) actions\/s/.exec(out);
  const lat = (which: string) => new RegExp(`sent → \\S+ at the other player, ${which}:\\s+p50 ([\\d.]+) ms, p99 ([\\d.]+) ms`).exec(out);
  const steady = lat('steady');
  const all = lat('all');
  const head = /^\{.*"load_before".*\}$/m.exec(out);
  if (!actions || !steady || !all || !head) return undefined;
  return {
    actions: Number(actions[1]), p50: Number(steady[1]), p99: Number(steady[2]), p50All: Number(all[1]), p99All: Number(all[2]),
    load: JSON.parse(head[0]).load_before, failed: Number(/failed requests: (\d+)/.exec(out)?.[1] ?? NaN),
    check: /(?:database|state) check: (.*)/.exec(out)?.[1] ?? '',
    cpu: ((m) => (m ? { parts: m[1]!, all: Number(m[2]) } : undefined))(/CPU per action, ms: (.*); in all ([\d.]+)/.exec(out)),
    stages: /stages of a steady move, p50 ms (.*)/.exec(out)?.[1],
  };
}

async function installPeer(): Promise<boolean> {
  if (existsSync(path.join(PEER, 'node_modules', '@colyseus', 'core', 'package.json'))
    && existsSync(path.join(PEER, 'node_modules', '@colyseus', 'sdk', 'package.json'))) return true;
  console.log(`Colyseus is not installed in ${path.relative(ROOT, PEER)}/: npm ci --prefix ${path.relative(ROOT, PEER)} (at most ${INSTALL_TIMEOUT_MS / 1000} s)`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = await run('npm ci', npm, ['ci', '--prefix', PEER, '--no-audit', '--no-fund'], INSTALL_TIMEOUT_MS);
  if (r.code === 0 && existsSync(path.join(PEER, 'node_modules', '@colyseus', 'core', 'package.json'))) return true;
  console.error(`Could not install Colyseus (${r.timedOut ? 'time limit reached' : `npm ci exited ${r.code}`}): the comparison needs the npm `
    + `registry once; run \`npm ci --prefix ${path.relative(ROOT, PEER)}\` by hand to see why.`);
  return false;
}

async function colyseus(): Promise<{ out: string; code: number | null }> {
  const port = await freePort();
  const server = spawn(process.execPath, [path.join(PEER, 'server.mjs'), '--port', String(port)], {
    cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: process.env,
  });
  started.push(server);
  try {
    await new Promise<void>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`the Colyseus server did not start in 30 s:\n${out}`)), 30_000);
      server.stdout!.on('data', (d: Buffer) => { out += d.toString(); if (/colyseus listening/.test(out)) { clearTimeout(timer); resolve(); } });
      server.stderr!.on('data', (d: Buffer) => { out += d.toString(); process.stderr.write(`[colyseus server] ${d}`); });
      server.once('exit', (code) => { clearTimeout(timer); reject(new Error(`the Colyseus server exited ${code}:\n${out}`)); });
    });
    return await run('colyseus', process.execPath, [path.join(PEER, 'client.mjs'), '--url', `ws://127.0.0.1:${port}`,
      '--matches', String(MATCHES), '--moves', String(MOVES), '--server-pid', String(server.pid)], PEER_TIMEOUT_MS);
  } finally {
    await end(server);
  }
}

// What Colyseus sends per move, a state change to each player of the room, is Manette's
// realtime.evenements `etat` (one `etat` with the action in it, on the room); the setting's
// default, action_etat, sends two events (`--events action_etat`: docs/performance.md says
// what that costs).
const manette = (durable: boolean, extra: string[] = []) => run(durable ? 'manette durable' : extra.length ? 'floor' : 'manette', process.execPath,
  [path.join(ROOT, 'bin', 'run-ts.js'), path.join(ROOT, 'bench', 'match.ts'), '--matches', String(MATCHES), '--moves', String(MOVES),
    '--events', opts.events!, ...(durable ? ['--durable'] : []), ...extra], MANETTE_TIMEOUT_MS, {
    // bench/match.ts registers its 2 × M players 32 at a time before the run (not measured);
    // with argon2id at OWASP's minimum, the API sheds such a burst with 503 (hashes queued
    // for more than ~2 s), so the setup hashes cheaply unless told otherwise. bench/match.ts
    // passes its environment on to the API process.
    MANETTE_ARGON2_MEMORY_KIB: '1024', MANETTE_ARGON2_ITERATIONS: '1', ...process.env,
  });

const version = (pkg: string) => {
  try { return JSON.parse(readFileSync(path.join(PEER, 'node_modules', ...pkg.split('/'), 'package.json'), 'utf8')).version as string; } catch { return '?'; }
};

let exitCode = 0;
const onSignal = () => { void Promise.all(started.map(end)).then(() => process.exit(130)); };
process.once('SIGINT', onSignal);
process.once('SIGTERM', onSignal);
try {
  if (!(await installPeer())) { exitCode = 1; } else {
    const runs: { name: string; out: string; code: number | null; figures?: Figures; loadAtStart: number }[] = [];
    const step = async (name: string, go: () => Promise<{ out: string; code: number | null }>) => {
      const loadAtStart = loadavg()[0]!;
      console.log(`\n== ${name}: ${MATCHES} matches × ${MOVES} moves (load average ${loadAtStart.toFixed(2)}, ${cpus().length} cores)`);
      const r = await go();
      runs.push({ name, ...r, figures: parse(r.out), loadAtStart });
    };
    await step('Manette, commits not flushed', () => manette(false));
    await step(`Colyseus ${version('@colyseus/core')} (rooms in memory)`, colyseus);
    // The floor's writes send on the room: not with etat_aux_autres (each player's own channel).
    if (!opts['skip-floor'] && opts.events === 'etat_aux_autres') console.log('\n(no floor with --events etat_aux_autres: its writes send on the room)');
    else if (!opts['skip-floor']) {
      await step(FLOOR_API, () => manette(false, ['--server', 'bare']));
      await step(FLOOR_WRITES, () => manette(false, ['--server', 'bare', '--sql', 'minimal']));
    }
    if (!opts['skip-durable']) await step('Manette, durable commits', () => manette(true));

    const ms = (x: number) => `${x.toFixed(1)} ms`;
    const cell = (s: string, w: number) => s.padEnd(w);
    console.log(`\n== Manette vs Colyseus: same game (tour_par_tour), ${MATCHES} matches × ${MOVES} moves, closed loop; Manette's realtime.evenements: ${opts.events}`);
    console.log('   latency: action sent → resulting state at the other player; steady = actions sent after the first fifth of the run');
    console.log(`   Colyseus: @colyseus/core ${version('@colyseus/core')}, ws-transport ${version('@colyseus/ws-transport')}, `
      + `schema ${version('@colyseus/schema')}, sdk ${version('@colyseus/sdk')}; Node ${process.version}`);
    const W = [40, 11, 12, 12, 12, 12, 8, 7];
    const row = (xs: string[]) => console.log(`| ${xs.map((x, i) => cell(x, W[i]!)).join(' | ')} |`);
    row(['run', 'actions/s', 'p50 steady', 'p99 steady', 'p50 all', 'p99 all', 'load', 'failed']);
    row(W.map((w) => '-'.repeat(w)));
    for (const r of runs) {
      const f = r.figures;
      if (!f) { row([r.name, `no figures (exit ${r.code})`, '', '', '', '', r.loadAtStart.toFixed(2), '']); exitCode = 1; continue; }
      row([r.name, String(f.actions), ms(f.p50), ms(f.p99), ms(f.p50All), ms(f.p99All), f.load.toFixed(2), String(f.failed)]);
      if (r.code !== 0) exitCode = 1;
    }
    console.log('   (load: the 1-minute load average as each run started its moves; checks: '
      + runs.map((r) => `${r.name.split(' (')[0]}: ${r.figures?.check ?? '-'}`).join('; ') + ')');
    const peer = runs.find((r) => r.name.startsWith('Colyseus'))?.figures;
    const H = [`actions/s (goal ≥ ${GOALS.actions}×, then ${GOALS.actionsNext}×)`, `steady p50 (goal ≤ ${GOALS.p50}×)`];
    console.log(`\n| Manette / Colyseus ${' '.repeat(12)} | ${cell(H[0]!, 36)} | ${cell(H[1]!, 24)} |`);
    console.log(`| ${'-'.repeat(31)} | ${'-'.repeat(36)} | ${'-'.repeat(24)} |`);
    for (const r of runs.filter((x) => x.name.startsWith('Manette') || x.name.startsWith('Floor'))) {
      const f = r.figures;
      if (!f || !peer) { console.log(`| ${cell(r.name, 31)} | ${cell('-', 36)} | ${cell('-', 24)} |`); continue; }
      const a = f.actions / peer.actions;
      const l = f.p50 / peer.p50;
      const goal = r.name.includes('durable') || r.name.startsWith('Floor') ? ['', '']
        : [a >= GOALS.actionsNext ? ' ✓ (both)' : a >= GOALS.actions ? ` ✓ (${GOALS.actionsNext}× not yet)` : ' ✗ below goal', l <= GOALS.p50 ? ' ✓' : ' ✗ above goal'];
      console.log(`| ${cell(r.name, 31)} | ${cell(`${a.toFixed(3)}×${goal[0]}`, 36)} | ${cell(`${l.toFixed(1)}×${goal[1]}`, 24)} |`);
      if (r.name === 'Manette, commits not flushed') {
        reportRatio('relay / Colyseus, actions/s (100 matches, commits not flushed)', a, { atLeast: GOALS.actions });
        reportRatio('relay / Colyseus, steady p50 latency', l, { atMost: GOALS.p50 });
      }
    }
    console.log('(the goals are read on commits not flushed, like the peer; the durable row is beside them for the record;\n'
      + ' the runs follow one another, so a machine shared with other work moves the ratios: compare the load column)');
    // The budget the goal leaves, against where Manette's CPU went (bench/match.ts, /proc).
    const mine = runs.find((x) => x.name === 'Manette, commits not flushed')?.figures;
    if (peer && mine?.cpu) {
      for (const ratio of [GOALS.actions, GOALS.actionsNext]) {
        const target = ratio * peer.actions;
        console.log(`${ratio === GOALS.actions ? '\n' : ''}CPU budget: ${ratio} × ${peer.actions} = ${target.toFixed(0)} actions/s on ${cpus().length} cores leaves `
          + `${((cpus().length * 1000) / target).toFixed(2)} ms of CPU per action for everything on this machine (database, API, `
          + `Realtime, load generator).`);
      }
      console.log(`Manette used ${mine.cpu.all.toFixed(2)} ms: ${mine.cpu.parts}.`);
    }
    if (mine?.stages) console.log(`Stages of a steady move (Manette, commits not flushed), p50 ms ${mine.stages}.`);
    // Both loops are CPU-bound on a quiet machine, so the actions/s ratio there is the ratio of
    // the CPU each spends per action (all its processes, load generator included). That ratio
    // holds when other work shares the machine; the rates and latencies do not.
    if (peer?.cpu && mine?.cpu) {
      const r = peer.cpu.all / mine.cpu.all;
      console.log(`\nCPU per action: Colyseus ${peer.cpu.all.toFixed(2)} ms (${peer.cpu.parts}), Manette ${mine.cpu.all.toFixed(2)} ms: `
        + `Colyseus / Manette = ${r.toFixed(3)} (goal ≥ ${GOALS.actions}${r >= GOALS.actions ? ' ✓' : ' ✗'}): the actions/s ratio of a machine `
        + 'that runs nothing else, read on CPU time, which other work on the machine does not move.');
      reportRatio('relay / Colyseus, CPU per action (Colyseus / Manette)', r, { atLeast: GOALS.actions });
    }
    // The floor: the same relay with nothing of Manette's code but a move's writes. Its CPU
    // per action against Colyseus's is the most any relay through HTTP, Postgres and Realtime
    // gets on this machine; Manette's against the floor's is what Manette's code costs.
    const floor = runs.find((x) => x.name === FLOOR_WRITES)?.figures;
    const floorApi = runs.find((x) => x.name === FLOOR_API)?.figures;
    if (floor?.cpu && mine?.cpu) {
      console.log(`\nThe floor (${FLOOR_WRITES}): ${floor.cpu.all.toFixed(2)} ms of CPU per action (${floor.cpu.parts}).`);
      if (floorApi?.cpu) console.log(`With api.match_action (${FLOOR_API}): ${floorApi.cpu.all.toFixed(2)} ms (${floorApi.cpu.parts}).`);
      if (peer?.cpu) {
        const f = peer.cpu.all / floor.cpu.all;
        console.log(`Colyseus / the floor, CPU per action = ${f.toFixed(3)}: no relay through HTTP, Postgres and Realtime `
          + `sharing this machine with its load generator reaches more than that fraction of Colyseus's actions/s `
          + `(goal ${GOALS.actions}${f >= GOALS.actions ? ', within reach' : ', out of reach here'}).`);
        reportRatio('relay floor (bare server, a move\'s writes only) / Colyseus, CPU per action (what no code can pass here)', f, { atLeast: GOALS.actions });
      }
      console.log(`Manette's CPU per action is ${(mine.cpu.all / floor.cpu.all).toFixed(2)} × the floor's `
        + `(${(mine.cpu.all - floor.cpu.all).toFixed(2)} ms more: authentication, the rules, the checks, the answer, the façade).`);
    }
    const busiest = Math.max(...runs.map((r) => r.figures?.load ?? r.loadAtStart));
    if (busiest > cpus().length) {
      console.log(`\nThe machine was shared during these runs (load average up to ${busiest.toFixed(2)} on ${cpus().length} cores): `
        + 'the rates, latencies and their ratios above are not the programs\' own; the CPU per action is.');
    }
  }
} catch (e) {
  console.error(e);
  exitCode = 1;
} finally {
  await Promise.all(started.map(end));
}
process.exit(exitCode);
