// Waiting on, and finding, the processes of a local stack in the fault tests.
import { readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { processCmdline, statFields } from '../../twin/procs.js';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` until it holds (true) or `ms` have passed (false). */
export async function until(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > end) return false;
    await sleep(100);
  }
}

/** Every process that belongs to this data directory: its supervisor and Postgres processes. */
export function stackProcessesOf(dir: string): number[] {
  let real = dir;
  try { real = realpathSync(path.join(dir, 'postgres')); } catch { /* not created */ }
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      let cwd = '';
      try { cwd = readlinkSync(`/proc/${entry}/cwd`); } catch { /* gone or not ours to read */ }
      if (cmdline.includes(path.join(dir, 'postgres')) || (cwd === real && cmdline.includes('postgres'))) pids.push(Number(entry));
    } catch { /* gone */ }
  }
  return pids;
}

/** The processes whose parent is `parent` and whose command line contains `text` (Linux /proc). */
export function childProcesses(parent: number, text: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    if (Number(statFields(Number(entry))?.[1]) === parent && processCmdline(Number(entry))?.includes(text)) pids.push(Number(entry));
  }
  return pids;
}
