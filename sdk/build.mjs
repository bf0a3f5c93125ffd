// Builds the browser SDK into sdk/dist: manette.js (classic script, global `Manette`),
// manette.mjs (ES module), manette-realtime.mjs (@supabase/realtime-js, loaded by both on
// the first subscription) and manette.d.ts (+ types/). Skips the work when dist is newer
// than every source. `node sdk/build.mjs [--force]`; also run by `npm start` and the tests.
// The JavaScript needs only esbuild (a dependency), so a server installed without its dev
// dependencies (`npm ci --omit=dev`, docs/deploy.md) builds and serves it; the declarations
// need TypeScript (a devDependency) and are left out where it is not installed.
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.dirname(here);
const src = path.join(here, 'src');
const dist = path.join(here, 'dist');
const SCRIPTS = ['manette.js', 'manette.mjs', 'manette-realtime.mjs', 'manette-sw.js'];
const DECLARATIONS = 'manette.d.ts';
const require = createRequire(import.meta.url);

/** TypeScript's compiler, where the dev dependencies are installed; undefined elsewhere. */
function tscPath() {
  try {
    return require.resolve('typescript/bin/tsc');
  } catch {
    return undefined;
  }
}

/** What a build leaves in dist: the declarations too when TypeScript is there to make them. */
const outputs = () => (tscPath() ? [...SCRIPTS, DECLARATIONS] : SCRIPTS);

function newest(dir) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

export function upToDate() {
  const OUTPUTS = outputs();
  if (!OUTPUTS.every((f) => existsSync(path.join(dist, f)))) return false;
  // An installed package (no lock file: npm pack leaves it out) ships dist built by
  // prepack, and has no TypeScript compiler to build it again.
  if (!existsSync(path.join(root, 'package-lock.json'))) return true;
  const built = Math.min(...OUTPUTS.map((f) => statSync(path.join(dist, f)).mtimeMs));
  const inputs = Math.max(newest(src), statSync(fileURLToPath(import.meta.url)).mtimeMs,
    statSync(path.join(here, 'tsconfig.json')).mtimeMs, statSync(path.join(root, 'package-lock.json')).mtimeMs);
  return built >= inputs;
}

export async function build({ force = false, quiet = false } = {}) {
  if (!force && upToDate()) return { skipped: true };
  // Built aside, then swapped in: a server reading dist never sees a half-written file.
  const out = path.join(here, `.dist-${process.pid}-${Date.now()}`);
  mkdirSync(out, { recursive: true });
  try {
    await emit(out);
  } catch (err) {
    rmSync(out, { recursive: true, force: true });
    throw err;
  }
  rmSync(dist, { recursive: true, force: true });
  try {
    renameSync(out, dist);
  } catch (err) {
    // Another build (a parallel test run) swapped its own in first: same sources, keep it.
    rmSync(out, { recursive: true, force: true });
    if (!upToDate()) throw err;
  }
  const sizes = Object.fromEntries(SCRIPTS.map((f) => {
    const buf = readFileSync(path.join(dist, f));
    return [f, { bytes: buf.length, gzip: gzipSync(buf, { level: 9 }).length }];
  }));
  if (!quiet) {
    for (const [f, s] of Object.entries(sizes)) console.log(`sdk/dist/${f}: ${(s.bytes / 1024).toFixed(1)} KB, ${(s.gzip / 1024).toFixed(1)} KB gzip`);
    if (!existsSync(path.join(dist, DECLARATIONS))) console.log(`sdk/dist/${DECLARATIONS}: not built (TypeScript, a dev dependency, is not installed)`);
  }
  return { skipped: false, sizes };
}

async function emit(out) {
  const esbuild = await import('esbuild');
  const common = {
    bundle: true, minify: true, sourcemap: false, target: ['es2020', 'chrome90', 'firefox90', 'safari15'],
    platform: 'browser', legalComments: 'none', logLevel: 'warning',
  };
  await Promise.all([
    esbuild.build({ ...common, entryPoints: [path.join(src, 'index.ts')], format: 'iife', globalName: 'Manette', outfile: path.join(out, 'manette.js') }),
    esbuild.build({
      ...common, entryPoints: [path.join(src, 'index.ts')], format: 'esm', outfile: path.join(out, 'manette.mjs'),
      banner: { js: 'const __SDK_MODULE_URL__=import.meta.url;' },
    }),
    esbuild.build({ ...common, entryPoints: [path.join(src, 'realtime-entry.ts')], format: 'esm', outfile: path.join(out, 'manette-realtime.mjs') }),
    // The notifications' service worker (sdk/src/notifications.ts), a classic script.
    esbuild.build({ ...common, bundle: false, entryPoints: [path.join(src, 'manette-sw.js')], outfile: path.join(out, 'manette-sw.js') }),
  ]);
  // Declarations: tsc with the SDK's own config (DOM lib), then one entry file.
  const tsc = tscPath();
  if (!tsc) return;
  const { execFileSync } = await import('node:child_process');
  try {
    execFileSync(process.execPath, [tsc, '-p', path.join(here, 'tsconfig.json'), '--outDir', path.join(out, 'types')], { stdio: 'inherit' });
  } catch (err) {
    // A type error still emits declarations: `npm test`'s typecheck is where it fails.
    if (!existsSync(path.join(out, 'types', 'index.d.ts'))) throw err;
    console.warn('sdk/build.mjs: type errors above; declarations emitted anyway');
  }
  writeFileSync(path.join(out, 'manette.d.ts'),
    "// Types of the Manette browser SDK. Classic script: the global `Manette`.\nexport * from './types/index.js';\nexport as namespace Manette;\n");
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await build({ force: process.argv.includes('--force') });
}
