// The load of bench/peer-colyseus.ts against server.mjs, the same shape as bench/match.ts:
// M matches (default 100) played at once, M × 2 clients (@colyseus/sdk, one WebSocket per
// player), each match MOVES moves (default 20), closed loop: the player whose turn it is
// sends its move (room.request('coup', { numero_tour, donnees })) as soon as its client
// receives the state of the previous move.
//
//   node bench/peers/colyseus/client.mjs --url ws://127.0.0.1:2567 [--matches 100] [--moves 20]
//
// Reports, in the form bench/match.ts prints: accepted actions per second over the whole
// run, the latency from the request to its answer (the counterpart of POST /match/action's
// HTTP latency), and the latency from sending the move to the resulting state arriving at
// the other player (median and p99; all samples, and the steady state after the opening
// burst).
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { Client } from '@colyseus/sdk';

const { values: opts } = parseArgs({
  options: {
    url: { type: 'string', default: 'ws://127.0.0.1:2567' },
    matches: { type: 'string', default: '100' },
    moves: { type: 'string', default: '20' },
    // The server's process id: its CPU during the moves is reported beside this client's (Linux /proc).
    'server-pid': { type: 'string' },
  },
});
const MATCHES = Number(opts.matches);
const MOVES = Number(opts.moves);

/** Runs `fn` over `items` with at most `limit` in flight (as bench/support.ts). */
async function pool(items, limit, fn) {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]);
  }));
}
/** CPU seconds a process used so far (utime + stime, /proc), or undefined where there is no /proc. */
function cpuOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch { return undefined; }
}
/** The p-th quantile (0..1) of an ascending array (as bench/support.ts). */
const percentile = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : NaN);

let failed = 0;
const rooms = [];
const etatLatency = [];   // [sent at, latency]
const requestLatency = [];
let accepted = 0;
let started = 0;
let endedAt = 0;
const inFlight = new Set();   // requests not answered yet: counted before the figures are printed

try {
  // Matches two by two, as bench/match.ts forms them through /matchmaking/join: the first
  // player creates the room, the second joins it by id; 16 matches set up at once.
  const matches = Array.from({ length: MATCHES }, (_, m) => {
    let finish;
    const done = new Promise((resolve) => { finish = resolve; });
    let ready;
    const started = new Promise((resolve) => { ready = resolve; });
    return { m, seats: [], done, finish, started, ready, sentAt: new Map() };
  });

  const play = async (match, seat, turn) => {
    const room = match.seats[seat];
    const t = performance.now();
    match.sentAt.set(turn + 1, t);
    try {
      await room.request('coup', { numero_tour: turn, donnees: { [`c${turn}`]: seat } }, { timeout: 60_000 });
      accepted++;
    } catch (e) {
      failed++;
      if (failed <= 5) console.error(`coup (match ${match.m}, turn ${turn}) → ${e?.reason ?? e?.message ?? e}`);
    }
    requestLatency.push([t, performance.now() - t]);
  };

  const attach = (match, seat, room) => {
    rooms.push(room);
    const handled = new Set();
    room.onStateChange((state) => {
      if (state.statut !== 'en_cours') return;
      if (state.numero_tour === 1) match.ready();
      // The players alternate (seat 0 plays turn 1, seat 1 turn 2, ...): tour_joueur.
      if (state.tour_joueur !== room.sessionId || handled.has(state.numero_tour)) return;
      handled.add(state.numero_tour);
      const sent = match.sentAt.get(state.numero_tour);
      if (sent !== undefined) etatLatency.push([sent, performance.now() - sent]);
      if (!started) return;   // the opening state: the run starts below, all matches at once
      if (state.numero_tour > MOVES) { endedAt = Math.max(endedAt, performance.now()); match.finish(); return; }
      const p = play(match, seat, state.numero_tour);
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
    });
  };
  await pool(matches, 16, async (match) => {
    const first = await new Client(opts.url).create('duel');
    attach(match, 0, first);
    const second = await new Client(opts.url).joinById(first.roomId);
    attach(match, 1, second);
    match.seats.push(first, second);
    if (second.state?.statut === 'en_cours') match.ready();
    await match.started;
  });

  const load = loadavg()[0];
  const serverPid = opts['server-pid'] ? Number(opts['server-pid']) : undefined;
  const cpuBefore = { server: serverPid ? cpuOf(serverPid) : undefined, client: cpuOf(process.pid) };
  started = performance.now();
  for (const match of matches) { const p = play(match, 0, 1); inFlight.add(p); void p.finally(() => inFlight.delete(p)); }
  const timeout = setTimeout(() => { console.error('not finished after 300 s'); process.exitCode = 1; for (const m of matches) m.finish(); }, 300_000);
  await Promise.all(matches.map((m) => m.done));
  clearTimeout(timeout);
  await Promise.all([...inFlight]);
  const elapsed = endedAt - started;
  // Where the machine's CPU went during the moves, per accepted action (as bench/match.ts).
  const cpuAfter = { server: serverPid ? cpuOf(serverPid) : undefined, client: cpuOf(process.pid) };
  const used = (k) => (cpuBefore[k] === undefined || cpuAfter[k] === undefined ? undefined : cpuAfter[k] - cpuBefore[k]);
  const [serverCpu, clientCpu] = [used('server'), used('client')];
  const cpuLine = serverCpu === undefined || clientCpu === undefined ? 'CPU per action: not measured (no /proc or no --server-pid)'
    : `CPU per action, ms: Colyseus server ${((serverCpu * 1000) / accepted).toFixed(2)}, load generator (this process: @colyseus/sdk) `
      + `${((clientCpu * 1000) / accepted).toFixed(2)}; in all ${(((serverCpu + clientCpu) * 1000) / accepted).toFixed(2)} `
      + `(${((100 * (serverCpu + clientCpu)) / ((elapsed / 1000) * cpus().length)).toFixed(0)} % of the ${cpus().length} cores during the moves)`;

  // Check: every match's state (as its clients hold it) has MOVES moves and numero_tour MOVES + 1.
  const turns = matches.map((m) => Math.max(...m.seats.map((r) => r.state.numero_tour)));
  const check = {
    matches: matches.length, min_turn: Math.min(...turns), max_turn: Math.max(...turns),
    actions: matches.reduce((n, m) => n + Math.max(...m.seats.map((r) => r.state.etat_plateau.size)), 0),
  };

  const sorted = (xs, from = 0) => xs.filter(([at]) => at >= from).map(([, l]) => l).sort((a, b) => a - b);
  const steadyFrom = started + elapsed / 5;
  const ms = (x) => `${x.toFixed(1)} ms`;
  const line = (xs) => `p50 ${ms(percentile(xs, 0.5))}, p99 ${ms(percentile(xs, 0.99))} (${xs.length} samples)`;
  console.log(JSON.stringify({ peer: 'colyseus', matches: MATCHES, moves_per_match: MOVES, rules: 'tour_par_tour', cpus: cpus().length, load_before: Number(load.toFixed(2)) }));
  console.log([
    `accepted actions: ${accepted} in ${ms(elapsed)} = ${(accepted / (elapsed / 1000)).toFixed(0)} actions/s`,
    `request coup → answer latency, all:           ${line(sorted(requestLatency))}`,
    `request coup → answer latency, steady:        ${line(sorted(requestLatency, steadyFrom))}`,
    `coup sent → state at the other player, all:   ${line(sorted(etatLatency))}`,
    `coup sent → state at the other player, steady: ${line(sorted(etatLatency, steadyFrom))}`,
    cpuLine,
    `state check: ${JSON.stringify(check)}`,
    `failed requests: ${failed}`,
  ].join('\n'));
} finally {
  await Promise.all(rooms.map((r) => r.leave(true).catch(() => {})));
  setTimeout(() => process.exit(), 2_000).unref();
}
