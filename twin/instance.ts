// One local instance per data directory: a lock file that says who runs it, so a second
// `npm start` refuses clearly and `manette apply` can reach the running database.
// A lock left by a process that is gone (kill -9, crash) is stale and taken over, also
// when its pid now belongs to another process: the lock records the holder's identity
// (boot and start time, see procs.ts), not only its pid.
import { rmSync } from 'node:fs';
import { mkdir, open, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { processAlive, processCmdline, processIdentity } from './procs.js';

export interface InstanceInfo {
  pid: number; baseUrl: string; databaseUrl: string; embedded: boolean; identity?: string;
  /** The local Realtime stand-in's URL (the studio console listens to it). */
  realtimeUrl?: string;
}

function lockFile(dataDir: string) {
  return path.join(dataDir, 'manette.lock');
}

/** The lock's holder still runs: its pid is alive and, where known, is the same process. */
function holderAlive(info: InstanceInfo): boolean {
  if (!processAlive(info.pid)) return false;
  const now = processIdentity(info.pid);
  if (info.identity && now) return now === info.identity;
  const cmdline = processCmdline(info.pid); // a lock without identity: is it a Manette at all?
  return cmdline === undefined || /manette/i.test(cmdline);
}

/** The running instance for this data directory, if any (stale locks are ignored). */
export async function runningInstance(dataDir: string): Promise<InstanceInfo | null> {
  try {
    const info = JSON.parse(await readFile(lockFile(dataDir), 'utf8')) as InstanceInfo;
    return holderAlive(info) && info.pid !== process.pid ? info : null;
  } catch {
    return null;
  }
}

export interface InstanceLock { publish(info: Omit<InstanceInfo, 'pid'>): Promise<void>; release(): Promise<void> }

/** Takes the lock, or returns the instance that holds it. */
export async function claimInstance(dataDir: string): Promise<InstanceLock | InstanceInfo> {
  await mkdir(dataDir, { recursive: true });
  const file = lockFile(dataDir);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(file, 'wx');
      const identity = processIdentity(process.pid);
      await handle.writeFile(JSON.stringify({ pid: process.pid, identity, baseUrl: '', databaseUrl: '', embedded: true }));
      await handle.close();
      // Released on any exit too (process.exit after an error).
      const onExit = () => rmSync(file, { force: true });
      process.once('exit', onExit);
      return {
        publish: (info) => writeFile(file, JSON.stringify({ pid: process.pid, identity, ...info })),
        release: async () => {
          onExit();
          process.off('exit', onExit);
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = await runningInstance(dataDir);
      if (holder) return holder;
      await rm(file, { force: true }); // stale: its process is gone
    }
  }
  throw new Error(`could not lock ${file}`);
}
