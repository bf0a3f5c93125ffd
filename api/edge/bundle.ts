// The Supabase Edge Function's bundle: api/edge/function.ts and everything it imports
// (Manette's own code and its npm packages) in one ES module, manette.js, next to the
// function's index.ts, which imports it. `supabase functions deploy` uploads the files
// that index.ts reaches by relative imports, and no node_modules: so the function must
// be whole in what it uploads. One file of about 2 MB runs by itself under the Deno of
// Supabase's edge runtime, fetches nothing at start, and stays far within the 5 MB that
// server-side bundling accepts (docs/deploy.md, "On Supabase Edge Functions").
//   npm run build:function                 # this repository: supabase/functions/manette/manette.js
//   npx manette supabase-function          # a studio's repository (api/cli/commands/supabase-function.ts)
// Generated, never edited, never committed: build it again before each deploy.
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Metafile, type Plugin } from 'esbuild';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PACKAGE_ROOT = path.resolve(HERE, '..', '..');
export const FUNCTION_ENTRY = path.join(HERE, 'function.ts');
export const BUNDLE_NAME = 'manette.js';
/** Manette's own function folder (index.ts imports ./manette.js). */
export const FUNCTION_DIR = path.join(PACKAGE_ROOT, 'supabase', 'functions', 'manette');

/**
 * What the bundle replaces, and why:
 * - node:worker_threads: Supabase's runtime starts no thread (its Worker constructor
 *   throws). pino only reads isMainThread; argon2.ts finds no Worker and hashes on the
 *   calling thread (the function asks for that anyway). So the bundle never imports it.
 * - swagger-ui-dist: 3 MB of Swagger UI files served from disk, which the function does
 *   not upload; the docs page's assets answer the JSON 404 there (openapi.json is served).
 * - pg-native: pg's optional native client (a native addon), never loaded by Manette.
 */
const STUBS: Record<string, string> = {
  'worker_threads': 'export const isMainThread = true; export const parentPort = null; export const workerData = null; '
    + 'export const threadId = 0; export const Worker = undefined;',
  'swagger-ui-dist': 'export function getAbsoluteFSPath() { return undefined; }',
  'pg-native': 'throw Object.assign(new Error("Cannot find module \'pg-native\'"), { code: "MODULE_NOT_FOUND" });',
};

const stubs: Plugin = {
  name: 'manette-function-stubs',
  setup(b) {
    b.onResolve({ filter: /^(node:)?worker_threads$|^swagger-ui-dist$|^pg-native$/ }, (args) =>
      ({ path: args.path.replace(/^node:/, ''), namespace: 'manette-stub' }));
    b.onLoad({ filter: /.*/, namespace: 'manette-stub' }, (args) => ({ contents: STUBS[args.path], loader: 'js' }));
  },
};

export interface FunctionBundle {
  file: string;
  bytes: number;
  /** The npm packages in the bundle, with their installed versions. */
  packages: Record<string, string>;
  /** Node built-in modules the bundle imports, with how (import, require-call, dynamic-import). */
  builtins: { path: string; kind: string }[];
}

/** Builds the bundle into `outFile` (written aside, then renamed: never half-written). */
export async function buildFunctionBundle(outFile = path.join(FUNCTION_DIR, BUNDLE_NAME)): Promise<FunctionBundle> {
  const result = await build({
    entryPoints: [FUNCTION_ENTRY],
    absWorkingDir: PACKAGE_ROOT,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'es2022',
    write: false,
    metafile: true,
    // Whitespace and syntax only: names stay readable in the function's stack traces.
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'eof',
    logLevel: 'silent',
    plugins: [stubs],
    inject: [path.join(HERE, 'node-globals.js')],
    define: { global: 'globalThis' },
    // The CommonJS packages' require() of Node built-ins.
    banner: { js: 'import { createRequire as __manetteCreateRequire } from "node:module"; const require = __manetteCreateRequire(import.meta.url);' },
    outfile: outFile,
  });
  const packages = await bundledPackages(result.metafile);
  const builtins = bundledBuiltins(result.metafile);
  const version = (JSON.parse(await readFile(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  const header = [
    `// Manette ${version}: the Supabase Edge Function "manette", bundled from api/edge/function.ts by api/edge/bundle.ts.`,
    '// Generated: do not edit; build it again before each deploy (docs/deploy.md). Licences of the bundled code at the end.',
    `// Bundled packages: ${Object.entries(packages).map(([n, v]) => `${n}@${v}`).join(', ')}`,
    '',
  ].join('\n');
  const text = header + result.outputFiles[0]!.text;
  await mkdir(path.dirname(outFile), { recursive: true });
  const next = `${outFile}.next-${process.pid}`;
  try {
    await writeFile(next, text);
    await rename(next, outFile);
  } finally {
    await rm(next, { force: true });
  }
  return { file: outFile, bytes: Buffer.byteLength(text), packages, builtins };
}

async function bundledPackages(meta: Metafile): Promise<Record<string, string>> {
  const root = PACKAGE_ROOT.split(path.sep).join('/');
  const dirs = new Map<string, string>();
  for (const input of Object.keys(meta.inputs)) {
    if (input.includes(':')) continue; // a stub (namespace:path)
    // Relative to this package's root; installed, its dependencies are beside it (../express/...).
    const file = path.resolve(PACKAGE_ROOT, input).split(path.sep).join('/');
    if (file.startsWith(`${root}/`) && !file.slice(root.length).includes('/node_modules/')) continue; // Manette's own
    const m = /^(.*\/node_modules\/)((?:@[^/]+\/)?[^/]+)\//.exec(file);
    if (m) dirs.set(m[2]!, m[1]! + m[2]!);
  }
  const packages: Record<string, string> = {};
  for (const [name, dir] of [...dirs].sort(([a], [b]) => a.localeCompare(b))) {
    packages[name] = (JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version;
  }
  return packages;
}

function bundledBuiltins(meta: Metafile): { path: string; kind: string }[] {
  const seen = new Map<string, { path: string; kind: string }>();
  for (const input of Object.values(meta.inputs)) {
    for (const imp of input.imports) {
      if (!imp.external) continue;
      const name = imp.path.replace(/^node:/, '');
      seen.set(`${name} ${imp.kind}`, { path: name, kind: imp.kind });
    }
  }
  return [...seen.values()].sort((a, b) => `${a.path} ${a.kind}`.localeCompare(`${b.path} ${b.kind}`));
}

// `node bin/run-ts.js api/edge/bundle.ts [out file]` (npm run build:function).
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const out = process.argv[2] ? path.resolve(process.argv[2]) : undefined;
  const b = await buildFunctionBundle(out);
  console.log(`${path.relative(process.cwd(), b.file)}: ${(b.bytes / 1e6).toFixed(2)} MB, ${Object.keys(b.packages).length} npm packages bundled`);
}
