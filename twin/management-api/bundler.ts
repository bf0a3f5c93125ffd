// What the platform's server-side bundling does with the files `supabase functions deploy`
// uploads (no Docker, or --use-api): it builds the function's module graph from the
// entrypoint out of those files alone. A relative import of a file that was not
// uploaded, or a bare specifier that the uploaded import map (deno.json) does not map,
// fails the deploy. Only the static graph counts, as in Deno: import, export ... from and
// import('literal'); a CommonJS require() is left to run time. node:, npm:, jsr: and
// http(s): specifiers are the platform's to fetch. esbuild parses the files (TypeScript
// included) so that an import inside a string or a comment is not taken for one.
import path from 'node:path';
import { build, type Loader, type Plugin } from 'esbuild';

const LOADERS: Record<string, Loader> = {
  '.ts': 'ts', '.mts': 'ts', '.tsx': 'tsx', '.js': 'js', '.mjs': 'js', '.cjs': 'js', '.jsx': 'jsx', '.json': 'json',
};
const REMOTE = /^(node|npm|jsr|https?|data):/;

export interface UploadedFile { path: string; bytes: Buffer }

/** Why the platform would refuse to bundle these files, or undefined when it bundles them. */
export async function bundleProblem(files: UploadedFile[], entrypoint: string, importMapPath?: string): Promise<string | undefined> {
  const byPath = new Map(files.map((f) => [path.posix.normalize(f.path), f.bytes]));
  const entry = path.posix.normalize(entrypoint);
  if (!byPath.has(entry)) return `Module not found: the entrypoint ${entrypoint} was not uploaded`;
  let imports: Record<string, string> = {};
  if (importMapPath) {
    const map = byPath.get(path.posix.normalize(importMapPath));
    if (!map) return `Import map not found: ${importMapPath} was not uploaded`;
    try {
      const parsed = JSON.parse(map.toString('utf8')) as { imports?: Record<string, string> };
      imports = parsed.imports ?? {};
    } catch (err) {
      return `Invalid import map ${importMapPath}: ${(err as Error).message}`;
    }
  }
  const mapBase = importMapPath ? path.posix.dirname(path.posix.normalize(importMapPath)) : '.';
  const uploaded: Plugin = {
    name: 'uploaded-files',
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        // Only what Deno's module graph follows; require() runs (or not) at run time.
        if (args.kind === 'require-call' || args.kind === 'require-resolve') return { path: args.path, external: true };
        let spec = args.path;
        if (args.kind !== 'entry-point') {
          const key = Object.keys(imports).filter((k) => (k.endsWith('/') ? spec.startsWith(k) : spec === k))
            .sort((a, b) => b.length - a.length)[0];
          if (key !== undefined) {
            const target = imports[key]! + spec.slice(key.length);
            if (REMOTE.test(target)) return { path: target, external: true };
            spec = path.posix.join(mapBase, target);
            return resolved(spec, args.importer);
          }
          if (REMOTE.test(spec)) return { path: spec, external: true };
          if (!spec.startsWith('./') && !spec.startsWith('../') && !spec.startsWith('/')) {
            return { errors: [{ text: `Relative import path "${spec}" not prefixed with / or ./ or ../ and not in import map from "${args.importer}"` }] };
          }
          spec = path.posix.join(path.posix.dirname(args.importer), spec);
        }
        return resolved(spec, args.importer);
      });
      b.onLoad({ filter: /.*/, namespace: 'uploaded' }, (args) => ({
        contents: byPath.get(args.path)!, loader: LOADERS[path.posix.extname(args.path)] ?? 'js', resolveDir: '/',
      }));
    },
  };
  const resolved = (spec: string, importer: string) => {
    const file = path.posix.normalize(spec.replace(/^\/+/, ''));
    if (!byPath.has(file)) return { errors: [{ text: `Module not found "${file}"${importer ? ` (imported by ${importer})` : ''}` }] };
    return { path: file, namespace: 'uploaded' };
  };
  try {
    await build({ entryPoints: [entry], bundle: true, write: false, format: 'esm', platform: 'neutral', logLevel: 'silent', plugins: [uploaded] });
    return undefined;
  } catch (err) {
    const errors = (err as { errors?: { text: string }[] }).errors;
    return errors?.length ? errors.map((e) => e.text).join('; ') : (err as Error).message;
  }
}
