// The `manette` command compiled to JavaScript, in dist/ (git-ignored): what bin/manette.js,
// bin/manette-worker.js and bin/run-ts.js run when it is there and current, instead of the
// TypeScript through tsx, which costs every process its loader and a transform of each module
// (docs/performance.md, "The command's start").
// `node bin/build.mjs [--force]`; run by prepack, so the npm package ships it, and by the
// test run's global setup. Skips the work when dist is current. Needs only esbuild (a
// dependency). Why it is made this way: docs/architecture.md, "How the package runs".
//
// - What: every TypeScript file that the command (api/cli/manette.ts), its API workers
//   (api/workers.ts) and the embedded Postgres' supervisor (twin/postgres/supervisor.ts)
//   import, found from those entries. Each becomes one JavaScript file at the same place
//   under dist/ (api/server.ts: dist/api/server.js), not one bundle: the files import each
//   other as the sources do (`./logger.js`), and a stack trace names the file.
// - import.meta.url (and .dirname, .filename) in a compiled file is its TypeScript
//   source's, so every path a module finds from where it is (supabase/migrations,
//   examples/demo, docs, console/dist, sdk/dist, twin/postgres/provision, the studio
//   template, a module to run: bin/manette-worker.js, twin/postgres/supervisor.ts,
//   api/security/argon2-worker.js) is the same compiled or not, and the code needs no
//   helper: the package ships the sources beside dist/. A module's "am I the script run?"
//   check holds too: bin/run-ts.js keeps the .ts file as process.argv[1].
// - An import of a file that is not compiled (console/build.mjs) points at that file;
//   packages stay imports (node_modules beside the package).
// - Current: dist/build.json lists the sources compiled and when; the build is used when
//   none of them (nor this file, nor tsconfig.json) changed since. In an installed
//   package (no package-lock.json: npm pack leaves it out) it is used as shipped.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
/** The modules run as programs; everything they import is compiled with them. */
const ENTRIES = ['api/cli/manette.ts', 'api/workers.ts', 'twin/postgres/supervisor.ts'];
/** Besides the sources, what the compiled files depend on. */
const INPUTS = ['bin/build.mjs', 'tsconfig.json'];
const STAMP = 'build.json';
/** A source saved up to this long before a build started counts as newer (FAT keeps mtimes to 2 s). */
const MTIME_SLACK_MS = 2_000;

const dist = (root) => path.join(root, 'dist');
const posix = (p) => p.split(path.sep).join('/');

function readStamp(root) {
  try {
    return JSON.parse(readFileSync(path.join(dist(root), STAMP), 'utf8'));
  } catch {
    return undefined;
  }
}

function current(root, stamp) {
  if (!stamp) return false;
  // An installed package ships dist built by prepack (and npm sets every file's mtime alike).
  if (!existsSync(path.join(root, 'package-lock.json'))) return true;
  for (const f of [...stamp.sources, ...INPUTS]) {
    try {
      if (statSync(path.join(root, f)).mtimeMs > stamp.builtAt - MTIME_SLACK_MS) return false;
    } catch {
      return false; // a source gone
    }
  }
  return true;
}

/** dist/ holds a build of the current sources. */
export function upToDate(root = ROOT) {
  return current(root, readStamp(root));
}

const decided = new Map();
/**
 * The compiled module of a TypeScript source (its path from the package root, e.g.
 * 'api/cli/manette.ts'), as a file URL to import, when dist is current; undefined when it
 * is not (or the source is not compiled): run the source through tsx.
 */
export function compiledUrl(source, root = ROOT) {
  if (!decided.has(root)) {
    const stamp = readStamp(root);
    decided.set(root, current(root, stamp) ? new Set(stamp.sources) : new Set());
  }
  const rel = posix(source);
  if (!decided.get(root).has(rel)) return undefined;
  return pathToFileURL(path.join(dist(root), rel.replace(/\.tsx?$/, '.js'))).href;
}

/** In the compiled code, what import.meta.* become (the source's, declared atop each file). */
const DEFINE = {
  'import.meta.url': '__manetteSourceUrl',
  'import.meta.dirname': '__manetteSourceDirname',
  'import.meta.filename': '__manetteSourceFilename',
};

/** Relative imports of the compiled files: the compiled file for a source, else the file itself. */
function ownImports(outFileOf) {
  const inner = Symbol('inner');
  return {
    name: 'manette-own-imports',
    setup(b) {
      b.onResolve({ filter: /^\.\.?(\/|$)/ }, async (args) => {
        if (args.pluginData === inner || args.kind === 'entry-point') return undefined;
        const r = await b.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: inner });
        if (r.errors.length > 0) return { errors: r.errors };
        const target = outFileOf.get(r.path);
        if (!target && /\.tsx?$/.test(r.path)) return { errors: [{ text: `${r.path} is imported but was not found from the entries` }] };
        let rel = posix(path.relative(path.dirname(outFileOf.get(args.importer)), target ?? r.path));
        if (!rel.startsWith('.')) rel = `./${rel}`;
        return { path: rel, external: true };
      });
    },
  };
}

/** What goes atop a compiled file: import.meta.* of its source. */
function header(outFile, source, text) {
  const rel = posix(path.relative(path.dirname(outFile), source)).split('/').map(encodeURIComponent).join('/');
  const lines = [`const __manetteSourceUrl = new URL(${JSON.stringify(rel)}, import.meta.url).href;`];
  if (/__manetteSource(Dirname|Filename)/.test(text)) {
    lines.unshift("import { fileURLToPath as __manetteFileURLToPath } from 'node:url';");
    lines.push('const __manetteSourceFilename = __manetteFileURLToPath(__manetteSourceUrl);',
      "const __manetteSourceDirname = __manetteFileURLToPath(new URL('.', __manetteSourceUrl)).replace(/[\\\\/]$/, '');");
  }
  return `${lines.join('\n')}\n`;
}

export async function build({ force = false, quiet = false, root = ROOT } = {}) {
  if (!force && upToDate(root)) return { skipped: true };
  const builtAt = Date.now(); // before reading a source: one saved from now on is newer
  const esbuild = await import('esbuild');
  const common = { absWorkingDir: root, platform: 'node', format: 'esm', target: 'node20', packages: 'external', logLevel: 'silent' };

  // What to compile: every source the entries reach (a bundle's inputs; nothing written).
  const found = await esbuild.build({ ...common, entryPoints: ENTRIES, bundle: true, write: false, metafile: true, outdir: dist(root) });
  const sources = Object.keys(found.metafile.inputs).filter((f) => /\.tsx?$/.test(f) && !f.includes(':')).sort();
  const outFileOf = new Map();
  for (const s of sources) {
    if (s.startsWith('dist/') || s.startsWith('../')) throw new Error(`bin/build.mjs: ${s} is outside the package's sources`);
    const out = path.join(dist(root), s.replace(/\.tsx?$/, '.js'));
    if ([...outFileOf.values()].includes(out)) throw new Error(`bin/build.mjs: two sources compile to ${out}`);
    outFileOf.set(path.join(root, s), out);
  }

  // Each source on its own (its imports left as imports), then written aside and swapped in.
  const result = await esbuild.build({
    ...common, entryPoints: sources, bundle: true, write: false, outbase: root, outdir: dist(root),
    define: DEFINE, plugins: [ownImports(outFileOf)], logLevel: 'warning',
  });
  const sourceOf = new Map([...outFileOf].map(([src, out]) => [out, src]));
  const next = path.join(root, `.dist-${process.pid}-${Date.now()}`);
  try {
    for (const f of result.outputFiles) {
      const source = sourceOf.get(f.path);
      if (!source) throw new Error(`bin/build.mjs: unexpected output ${f.path}`);
      const file = path.join(next, path.relative(dist(root), f.path));
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, header(f.path, source, f.text) + f.text);
    }
    writeFileSync(path.join(next, STAMP), `${JSON.stringify({ builtAt, sources }, null, 1)}\n`);
    swapIn(next, dist(root));
  } finally {
    rmSync(next, { recursive: true, force: true });
  }
  decided.delete(root);
  if (!quiet) console.log(`dist: ${sources.length} files compiled (${ENTRIES.join(', ')} and what they import)`);
  return { skipped: false, files: sources.length };
}

/** `next` becomes `target`: a process reading dist finds the old build or the new one. */
function swapIn(next, target) {
  const old = `${next}-old`;
  if (existsSync(target)) renameSync(target, old);
  try {
    renameSync(next, target);
  } catch (err) {
    // Another build (a parallel run) swapped its own in first: same sources, keep it.
    if (!existsSync(target)) throw err;
  } finally {
    rmSync(old, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await build({ force: process.argv.includes('--force') });
}
