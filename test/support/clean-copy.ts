// What a fresh clone has, for the "as a newcomer" tests: the tracked files and the new ones
// git does not ignore, as they are now, copied to a temporary folder (no .manette, no
// sdk/dist, no build output); node_modules linked (`npm ci` would install the same).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, copyFile, lstat, mkdir, mkdtemp, readlink, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.join(import.meta.dirname, '..', '..');

/** Copies the checkout as a clone has it into a new folder (prefix `manette-<name>-`); returns the folder. */
export async function cleanCopy(name: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), `manette-${name}-`));
  // A clone's folder is readable by others (the embedded Postgres may run as another user).
  await chmod(dir, 0o755);
  const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
  const files = [...new Set(stdout.split('\0').filter((f) => f && f !== 'node_modules' && existsSync(path.join(ROOT, f))))];
  for (const f of files) {
    await mkdir(path.dirname(path.join(dir, f)), { recursive: true });
    // A tracked symbolic link stays one (the Unity package's Runtime/Core).
    if ((await lstat(path.join(ROOT, f))).isSymbolicLink()) await symlink(await readlink(path.join(ROOT, f)), path.join(dir, f));
    else await copyFile(path.join(ROOT, f), path.join(dir, f));
  }
  await symlink(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return dir;
}
