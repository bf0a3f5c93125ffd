// The Edge Function as `npm run build:function` makes it, in a folder of its own
// (<root>/supabase/functions/manette): for tests that run it under the twin's edge runtime.
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildFunctionBundle, FUNCTION_DIR } from '../../api/edge/bundle.js';

export interface FunctionFolder { fnDir: string; remove(): Promise<void> }

export async function builtFunctionFolder(prefix: string): Promise<FunctionFolder> {
  const root = await mkdtemp(path.join(tmpdir(), prefix));
  const fnDir = path.join(root, 'supabase', 'functions', 'manette');
  await mkdir(fnDir, { recursive: true });
  for (const f of ['index.ts', 'deno.json']) await copyFile(path.join(FUNCTION_DIR, f), path.join(fnDir, f));
  await buildFunctionBundle(path.join(fnDir, 'manette.js'));
  return { fnDir, remove: () => rm(root, { recursive: true, force: true }) };
}
