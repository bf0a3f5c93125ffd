// What a pid really is, for the local stack's lock and pid files: a pid written in a file
// may have been reused by an unrelated process since. Linux answers through /proc; other
// systems through `ps` (cmdline only) or not at all, and then the callers fall back to
// "alive means ours".
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';

/** The process exists (EPERM: it exists but belongs to another user). */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A zombie (killed, not yet reaped: in a container whose pid 1 reaps slowly, for a while)
  // still answers signal 0, but is gone.
  const state = statFields(pid)?.[0];
  return state !== 'Z' && state !== 'X';
}

/** The fields of /proc/<pid>/stat after the command name: [state, ppid, pgrp, ...]. */
export function statFields(pid: number | 'self'): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

let bootId: string | undefined;

/**
 * Who a pid is, beyond its number: boot id and start time (Linux). A pid reused by
 * another process, or after a reboot, has another identity. Undefined when unknown.
 */
export function processIdentity(pid: number): string | undefined {
  const start = statFields(pid)?.[19];
  if (!start) return undefined;
  try {
    bootId ??= readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    bootId = '';
  }
  return `${bootId}:${start}`;
}

/** The current parent pid (process.ppid is read once at startup and never changes). */
export function currentParentPid(): number | undefined {
  const ppid = Number(statFields('self')?.[1]);
  return Number.isInteger(ppid) && ppid > 0 ? ppid : undefined;
}

/** The command line of a pid, arguments separated by NUL (Linux) or spaces (ps). */
export function processCmdline(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch { /* not Linux, or gone */ }
  if (process.platform === 'linux') return undefined;
  try {
    return execFileSync('ps', ['-o', 'command=', '-p', String(pid)], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

function realDir(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}

/** The working directory of a pid (Linux only). */
function processCwd(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return undefined;
  }
}

/**
 * The pid is a Postgres process of this data directory: every Postgres process (the
 * postmaster and each backend) runs with the data directory as working directory, and
 * the postmaster was started with `-D <dir>`.
 */
export function isPostgresOf(pid: number, dataDir: string): boolean {
  if (!processAlive(pid)) return false;
  const dir = realDir(dataDir);
  const cwd = processCwd(pid);
  if (cwd !== undefined) return cwd === dir && /postgres/.test(processCmdline(pid) ?? '');
  const cmdline = processCmdline(pid) ?? '';
  return /postgres/.test(cmdline) && (cmdline.includes(dir) || cmdline.includes(dataDir));
}

/** Every live Postgres process (postmaster or backend) of this data directory (Linux). */
export function postgresProcessesOf(dataDir: string): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const dir = realDir(dataDir);
  return entries
    .filter((e) => /^\d+$/.test(e))
    .map(Number)
    .filter((pid) => pid !== process.pid && processCwd(pid) === dir && /postgres/.test(processCmdline(pid) ?? ''));
}
