// `npm run bench`: every comparison of issue 12 in one go, each on its own throwaway
// database (one file per comparison, run one after the other so they do not compete for
// the machine's two cores), then their tables again together.
//   npm run bench                          # all of them
//   npm run bench -- bench/facade.ts       # only these (with their own options after --)
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import path from 'node:path';
import { RATIO_LINE, type RatioGoal } from './support.js';

const ROOT = path.resolve(import.meta.dirname, '..');
/** Each comparison: its file, its arguments, and the goal its ratios are read against. */
export const COMPARISONS: { file: string; args: string[]; goal: string }[] = [
  { file: 'bench/move-profile.ts', args: [], goal: 'the cost of one accepted move and of the move that ends a match, per function, statement, table and WAL record (no goal: read it against the last run in docs/performance.md)' },
  { file: 'bench/match-action.ts', args: [], goal: 'api.match_action ≥ 1/3 of the minimal transaction (not flushed), ≥ 0.6 durable; ≥ 0.33 durable with the demo\'s 1v1 settings' },
  { file: 'bench/matchmaking.ts', args: [], goal: 'api.matchmaking_join the same order as its minimal writes (≥ 1/3)' },
  { file: 'bench/shop-purchase.ts', args: [], goal: 'api.shop_acheter the same order as its minimal writes (≥ 1/3)' },
  { file: 'bench/leaderboard-submit.ts', args: [], goal: 'api.leaderboards_submit the same order as its minimal writes (≥ 1/3)' },
  { file: 'bench/facade.ts', args: [], goal: 'façade ≥ 0.8 × the bare node:http + pg server, shop and scores, in the bench and in wrk (agreeing within 10 %)' },
  { file: 'bench/login.ts', args: [], goal: 'login and register ≥ 30/s with argon2id at OWASP\'s minimum' },
  { file: 'bench/realtime.ts', args: ['--rates', '100,200,400,600,800'], goal: '100 matches at 1 action/s: action → etat p50 < 10 ms, p99 < 50 ms; capacity at p99 < 100 ms' },
  { file: 'bench/messages.ts', args: [], goal: 'Realtime messages per two-player action ≤ 3 in the economical setting (realtime.evenements etat_aux_autres)' },
  { file: 'bench/peer-colyseus.ts', args: [], goal: 'Manette ≥ 0.2 × Colyseus\'s actions/s at 100 matches (on the way to 0.33 ×), steady p50 ≤ 5 ×' },
];

const given = process.argv.slice(2);
const runs = given.length && given[0]!.endsWith('.ts')
  ? [{ file: given[0]!, args: given.slice(1), goal: '' }]
  : COMPARISONS;

const outputs: { file: string; goal: string; out: string; code: number | null }[] = [];
for (const run of runs) {
  console.log(`\n== ${run.file} ${run.args.join(' ')}  (load average before: ${loadavg()[0]!.toFixed(2)})`);
  const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'run-ts.js'), path.join(ROOT, run.file), ...run.args], {
    cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => { out += d.toString(); process.stdout.write(d); });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  outputs.push({ file: run.file, goal: run.goal, out, code });
}

if (outputs.length > 1) {
  console.log('\n== Summary');
  for (const o of outputs) {
    console.log(`\n${o.file}${o.goal ? ` — goal: ${o.goal}` : ''}${o.code === 0 ? '' : ` (FAILED, exit ${o.code})`}`);
    console.log(o.out.trim().split('\n').filter((l) => !l.startsWith(RATIO_LINE)).slice(-10).join('\n'));
  }
}

// Every ratio a bench file reported (reportRatio, bench/support.ts) with its goal, last.
const ratios = outputs.flatMap((o) => o.out.split('\n').filter((l) => l.startsWith(RATIO_LINE)).map((l) =>
  ({ file: o.file, ...JSON.parse(l.slice(RATIO_LINE.length)) as { name: string; value: number; goal: RatioGoal; met: boolean; note?: string } })));
if (ratios.length) {
  console.log('\n== Ratios against their goals (this run)');
  const goalText = (g: RatioGoal) => [g.atLeast !== undefined ? `≥ ${g.atLeast}` : '', g.atMost !== undefined ? `≤ ${g.atMost}` : ''].filter(Boolean).join(', ');
  for (const r of ratios) {
    console.log(`${r.met ? '✓' : '✗'} ${r.name}: ${r.value} (goal ${goalText(r.goal)})${r.note ? ` — ${r.note}` : ''}  [${r.file}]`);
  }
}
process.exit(outputs.every((o) => o.code === 0) ? 0 : 1);
