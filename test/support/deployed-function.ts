// `supabase functions deploy` as a studio runs it, with the real Supabase CLI, to the
// local stand-in of the Management API (twin/management-api), and then exactly what it
// uploaded, copied into an empty folder: the tests run that copy under the Deno of
// Supabase's edge runtime (test/support/harness.ts, edge mode). So what they test is
// what a project would run, not the repository's sources.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startManagementApi, type Deployment, type ManagementApi } from '../../twin/management-api/server.js';

const run = promisify(execFile);
const REPO = path.resolve(import.meta.dirname, '..', '..');
/** The Supabase CLI of this repository's devDependencies (what `npx supabase` runs). */
export const SUPABASE_CLI = path.join(REPO, 'node_modules', '.bin', 'supabase');

export interface CliRun { code: number; stdout: string; stderr: string }

/**
 * `supabase functions deploy <slug> --use-api --no-verify-jwt` (docs/deploy.md) in
 * `projectRoot`, pointed at `api`; never rejects.
 */
export async function cliDeploy(api: ManagementApi, projectRoot: string, slug = 'manette', extraArgs: string[] = []): Promise<CliRun> {
  const scratch = await mkdtemp(path.join(tmpdir(), 'manette-cli-'));
  try {
    const env = {
      ...process.env,
      ...(await api.cliEnvironment(scratch)),
      HOME: scratch, // the CLI's own files (~/.supabase) stay out of the user's home
    };
    const { stdout, stderr } = await run(SUPABASE_CLI,
      ['functions', 'deploy', slug, '--use-api', '--no-verify-jwt', '--project-ref', api.projectRef, ...extraArgs],
      { cwd: projectRoot, env, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string; message: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? e.message };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

export interface DeployedFunction {
  /** A new folder holding exactly the uploaded files, at the paths the CLI gave them. */
  root: string;
  /** The function's folder in it (that of its entrypoint): index.ts, deno.json, ... */
  dir: string;
  /** The uploaded files, in upload order. */
  files: { path: string; bytes: number }[];
  totalBytes: number;
  deployment: Deployment;
  projectRef: string;
  cli: CliRun;
  remove(): Promise<void>;
}

/** Copies a deployment's files into a new empty folder. */
export async function copyDeployment(deployment: Deployment): Promise<{ root: string; dir: string }> {
  const root = await mkdtemp(path.join(tmpdir(), 'manette-deployed-'));
  for (const f of deployment.files) {
    const file = path.join(root, ...f.path.split('/'));
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, f.bytes);
  }
  return { root, dir: path.join(root, ...path.posix.dirname(deployment.metadata.entrypoint_path).split('/')) };
}

/**
 * Deploys `slug` from `projectRoot` (its function already built) with the real CLI to a
 * fresh Management API stand-in, and copies what was uploaded into an empty folder.
 * Throws with the CLI's output when the deploy fails.
 */
export async function deployFunction(projectRoot: string, slug = 'manette'): Promise<DeployedFunction> {
  const api = await startManagementApi();
  try {
    const cli = await cliDeploy(api, projectRoot, slug);
    const deployment = api.deployment(slug);
    if (cli.code !== 0 || !deployment) {
      throw new Error(`supabase functions deploy ${slug} failed (${cli.code}):\n${cli.stdout}\n${cli.stderr}`);
    }
    const { root, dir } = await copyDeployment(deployment);
    const files = deployment.files.map((f) => ({ path: f.path, bytes: f.bytes.length }));
    return {
      root, dir, files, totalBytes: files.reduce((n, f) => n + f.bytes, 0), deployment, projectRef: api.projectRef, cli,
      remove: () => rm(root, { recursive: true, force: true }),
    };
  } finally {
    await api.close();
  }
}
