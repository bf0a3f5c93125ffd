// The local stand-in of the Supabase Management API (twin/management-api), with the real
// Supabase CLI deploying to it: it keeps what the CLI uploads, path by path, answers so
// that the CLI reports success, and refuses what the platform's server-side bundling
// refuses: more than 5 MB of files, or an entrypoint whose imports were not uploaded (the
// function as it was before it was bundled: `.js`-spelled imports of `.ts` files, which
// the CLI does not upload).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_UPLOAD_BYTES, startManagementApi, type ManagementApi } from '../twin/management-api/server.js';
import { cliDeploy } from './support/deployed-function.js';

let api: ManagementApi;
let scratch: string;

/** A new project folder holding `files` (paths relative to it). */
async function project(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(path.join(scratch, 'project-'));
  for (const [name, text] of Object.entries(files)) {
    const file = path.join(root, name);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, text);
  }
  return root;
}

beforeAll(async () => {
  api = await startManagementApi();
  scratch = await mkdtemp(path.join(tmpdir(), 'manette-mgmt-'));
});
afterAll(async () => {
  await api?.close();
  await rm(scratch, { recursive: true, force: true });
});

describe('the Management API stand-in, deployed to by the real Supabase CLI', () => {
  it('keeps the uploaded files with their paths, reports success, and counts versions', async () => {
    const root = await project({
      'supabase/functions/hello/index.ts': [
        "import { greet } from './lib/greet.ts';",
        "// import './not-a-module.ts' (a comment: the CLI's walker looks for it, the bundler does not)",
        "const text = \"import x from './nor-this.ts'\";",
        'Deno.serve(() => new Response(greet(text)));',
        '',
      ].join('\n'),
      'supabase/functions/hello/lib/greet.ts': 'export const greet = (s: string) => `hello ${s.length}`;\n',
      'supabase/functions/hello/deno.json': '{ "imports": {} }\n',
      'supabase/functions/hello/unused.ts': 'export {};\n',
    });
    const first = await cliDeploy(api, root, 'hello');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`Deployed Functions on project ${api.projectRef}: hello`);
    const d = api.deployment('hello')!;
    expect(d.files.map((f) => f.path).sort()).toEqual([
      'supabase/functions/hello/deno.json', 'supabase/functions/hello/index.ts', 'supabase/functions/hello/lib/greet.ts',
    ]);
    expect(d.files.find((f) => f.path.endsWith('greet.ts'))!.bytes.toString()).toContain('hello ${s.length}');
    expect(d.metadata).toEqual({
      entrypoint_path: 'supabase/functions/hello/index.ts', import_map_path: 'supabase/functions/hello/deno.json',
      static_patterns: [], verify_jwt: false, name: 'hello',
    });
    expect(d.version).toBe(1);

    expect((await cliDeploy(api, root, 'hello')).code).toBe(0);
    const auth = { authorization: `Bearer ${api.accessToken}` };
    const list = await (await fetch(`${api.url}/v1/projects/${api.projectRef}/functions`, { headers: auth })).json();
    expect(list).toEqual([expect.objectContaining({ slug: 'hello', status: 'ACTIVE', version: 2, verify_jwt: false })]);
  });

  it('refuses a request without the access token, and another project', async () => {
    const anonymous = await fetch(`${api.url}/v1/projects/${api.projectRef}/functions`);
    expect([anonymous.status, await anonymous.json()]).toEqual([401, { message: 'Unauthorized' }]);
    const other = await fetch(`${api.url}/v1/projects/${'z'.repeat(20)}/functions`, { headers: { authorization: `Bearer ${api.accessToken}` } });
    expect(other.status).toBe(404);
  });

  it('refuses a function whose imports were not uploaded: the CLI fails and nothing is deployed', async () => {
    // Manette's function before it was bundled: TypeScript sources imported as .js
    // (NodeNext), which the CLI's walker cannot read, so it uploads index.ts alone.
    const root = await project({
      'supabase/functions/unbundled/index.ts': "import { buildFacade } from '../../../api/app-factory.js';\nconsole.log(buildFacade);\n",
      'supabase/functions/unbundled/deno.json': '{ "unstable": ["sloppy-imports"] }\n',
      'api/app-factory.ts': 'export const buildFacade = 1;\n',
    });
    const r = await cliDeploy(api, root, 'unbundled');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('WARN: failed to read file: open api/app-factory.js');
    expect(r.stderr).toMatch(/unexpected deploy status 400: .*Module not found \\"api\/app-factory\.js\\"/);
    expect(api.deployment('unbundled')).toBeUndefined();

    // And the bundled function deployed before its bundle was built.
    const unbuilt = await project({ 'supabase/functions/unbuilt/index.ts': "import './manette.js';\n" });
    const u = await cliDeploy(api, unbuilt, 'unbuilt');
    expect(u.code).toBe(1);
    expect(u.stderr).toMatch(/Module not found \\"supabase\/functions\/unbuilt\/manette\.js\\"/);
  });

  it('accepts 5 MB of files and refuses one byte more', async () => {
    const index = "import './big.js';\n";
    const big = (n: number) => `export const x = "${'a'.repeat(n)}";\n`;
    const filler = MAX_UPLOAD_BYTES - Buffer.byteLength(index) - Buffer.byteLength(big(0));
    const atLimit = await project({ 'supabase/functions/heavy/index.ts': index, 'supabase/functions/heavy/big.js': big(filler) });
    const ok = await cliDeploy(api, atLimit, 'heavy');
    expect(ok.code, ok.stderr).toBe(0);
    expect(api.deployment('heavy')!.files.reduce((n, f) => n + f.bytes.length, 0)).toBe(MAX_UPLOAD_BYTES);

    const over = await project({ 'supabase/functions/heavy/index.ts': index, 'supabase/functions/heavy/big.js': big(filler + 1) });
    const refused = await cliDeploy(api, over, 'heavy');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`unexpected deploy status 413`);
    expect(refused.stderr).toContain(`total ${MAX_UPLOAD_BYTES + 1} bytes`);
    expect(api.deployment('heavy')!.version).toBe(1); // the refused upload replaced nothing
  });
});
