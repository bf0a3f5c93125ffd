// Supabase's edge runtime, as near as this machine gets to it: the Deno it is built on.
// supabase/edge-runtime vendors Deno 2.1.4 (its deno/Cargo.toml); the npm package deno
// serves that version, installed as the devDependency `deno-edge-runtime`
// (npm:deno@2.1.4). Its binary comes in the platform package (@deno/<platform>), so no
// install script is needed. What the hosted runtime adds (its own Node compatibility
// layer, CPU and memory limits, no threads) is not reproduced here: docs/deploy.md.
//   node bin/run-ts.js twin/edge-runtime.ts <function folder>     (npm run edge)
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** The Deno version of Supabase's edge runtime (supabase/edge-runtime, deno/Cargo.toml). */
export const EDGE_RUNTIME_DENO_VERSION = '2.1.4';

/** The binary of that Deno (the deno-edge-runtime package's platform package); undefined if absent. */
export function edgeRuntimeDeno(): string | undefined {
  const require = createRequire(import.meta.url);
  let from: string;
  try {
    from = require.resolve('deno-edge-runtime/package.json');
  } catch {
    return undefined;
  }
  const libc = process.platform === 'linux' ? '-glibc' : '';
  try {
    const pkg = createRequire(from).resolve(`@deno/${process.platform}-${process.arch}${libc}/package.json`);
    const file = path.join(path.dirname(pkg), process.platform === 'win32' ? 'deno.exe' : 'deno');
    return existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
}

/**
 * How a function folder runs: its index.ts with its deno.json, from its own files only
 * (--cached-only: nothing is fetched), with the permissions the edge runtime grants.
 */
export const edgeRuntimeArgs = (functionDir: string) => [
  'run', ...(existsSync(path.join(functionDir, 'deno.json')) ? ['--config', path.join(functionDir, 'deno.json')] : []),
  '--cached-only', '--no-prompt', '--allow-net', '--allow-env', '--allow-read', '--allow-sys', path.join(functionDir, 'index.ts'),
];

// `npm run edge`: the function folder under that Deno, with this process's environment.
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const dir = path.resolve(process.argv[2] ?? 'supabase/functions/manette');
  const deno = edgeRuntimeDeno();
  if (!deno) {
    console.error('The deno-edge-runtime package is not installed (npm install).');
    process.exit(1);
  }
  const child = spawn(deno, edgeRuntimeArgs(dir), { stdio: 'inherit', env: { ...process.env, DENO_NO_UPDATE_CHECK: '1' } });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
