// `npm pack` of this repository, made once per test run and shared by the test files that
// install Manette the way a person would (test/studio.test.ts, test/node-host.test.ts).
// Files run in separate processes: the first to ask packs (prepack builds the SDK), the
// others wait for its tarball. The folder is the run's own (global-setup.ts removes it).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { inject } from 'vitest';

const run = promisify(execFile);
export const REPO = path.resolve(import.meta.dirname, '..', '..');
/**
 * The longest `packedManette()` takes on a loaded 2-core machine: `npm pack` (prepack builds
 * the SDK, the console and the compiled CLI, each skipped when current, then 3 MB packed) is
 * given 2 minutes; a test file waits up to 5 minutes for another's.
 */
export const PACKING_MS = 300_000;

declare module 'vitest' {
  export interface ProvidedContext { packDir: string }
}

/** The tarball `npm pack` makes of this repository (its absolute path). */
export async function packedManette(): Promise<string> {
  const dir = inject('packDir');
  const done = path.join(dir, 'tarball');
  const failed = path.join(dir, 'failed');
  try {
    await mkdir(path.join(dir, 'lock'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    // Another file is packing: its tarball, or its error, within 5 minutes.
    for (const deadline = Date.now() + PACKING_MS; Date.now() < deadline;) {
      if (existsSync(done)) return path.join(dir, (await readFile(done, 'utf8')).trim());
      if (existsSync(failed)) throw new Error(`npm pack failed in another test file:\n${await readFile(failed, 'utf8')}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`no tarball in ${dir} after 5 minutes`);
  }
  const env: NodeJS.ProcessEnv = { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
  delete env.DATABASE_URL;
  try {
    const { stdout } = await run('npm', ['pack', '--pack-destination', dir], { cwd: REPO, env, timeout: 120_000 });
    const name = stdout.trim().split('\n').pop()!;
    await writeFile(`${done}.tmp`, name);
    await rename(`${done}.tmp`, done);
    return path.join(dir, name);
  } catch (err) {
    const e = err as Error & { stderr?: string };
    await writeFile(failed, `${e.message}\n${e.stderr ?? ''}`);
    throw err;
  }
}
