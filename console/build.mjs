// Builds the studio console's page into console/dist: console.js (Preact, the pages, the
// SDK's panel elements for the theme preview, @supabase/realtime-js for the live match
// list), console.css and index.html. Skips the work when dist is newer than every source.
// `node console/build.mjs [--force]`; also run by `manette console` and the tests. Needs
// only esbuild and the page's dependencies (preact, uplot), so an install without dev
// dependencies builds it too.
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.dirname(here);
const web = path.join(here, 'web');
const dist = path.join(here, 'dist');
const OUTPUTS = ['index.html', 'console.js', 'console.css'];
/** What the page bundles besides console/web: the SDK's panels. */
const INPUTS = [web, path.join(root, 'sdk', 'src')];

function newest(p) {
  const s = statSync(p);
  if (!s.isDirectory()) return s.mtimeMs;
  let t = 0;
  for (const e of readdirSync(p)) t = Math.max(t, newest(path.join(p, e)));
  return t;
}

export function upToDate() {
  if (!OUTPUTS.every((f) => existsSync(path.join(dist, f)))) return false;
  // An installed package ships dist built by prepack.
  if (!existsSync(path.join(root, 'package-lock.json'))) return true;
  const built = Math.min(...OUTPUTS.map((f) => statSync(path.join(dist, f)).mtimeMs));
  const inputs = Math.max(...INPUTS.map(newest), statSync(fileURLToPath(import.meta.url)).mtimeMs,
    statSync(path.join(root, 'package-lock.json')).mtimeMs);
  return built >= inputs;
}

export async function buildConsole({ force = false, quiet = false } = {}) {
  if (!force && upToDate()) return { skipped: true };
  const esbuild = await import('esbuild');
  // Built aside, then swapped in: a console reading dist never sees a half-written file.
  const out = path.join(here, `.dist-${process.pid}-${Date.now()}`);
  mkdirSync(out, { recursive: true });
  try {
    await esbuild.build({
      entryPoints: [path.join(web, 'main.tsx')], bundle: true, minify: true, sourcemap: false, format: 'esm',
      target: ['es2020', 'chrome90', 'firefox90', 'safari15'], platform: 'browser', legalComments: 'none', logLevel: 'warning',
      jsx: 'automatic', jsxImportSource: 'preact', outfile: path.join(out, 'console.js'),
    });
    copyFileSync(path.join(web, 'index.html'), path.join(out, 'index.html'));
    if (!existsSync(path.join(out, 'console.css'))) throw new Error('console/web/main.tsx must import styles.css');
  } catch (err) {
    rmSync(out, { recursive: true, force: true });
    throw err;
  }
  rmSync(dist, { recursive: true, force: true });
  try {
    renameSync(out, dist);
  } catch (err) {
    rmSync(out, { recursive: true, force: true });
    if (!upToDate()) throw err;
  }
  if (!quiet) console.log(`console/dist: ${OUTPUTS.map((f) => `${f} ${(statSync(path.join(dist, f)).size / 1024).toFixed(1)} KB`).join(', ')}`);
  return { skipped: false };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildConsole({ force: process.argv.includes('--force') });
}
