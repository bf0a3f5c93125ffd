// The real `manette` CLI in a child process on a database (DATABASE_URL), in a given locale:
// what the admin-command tests run.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { expect } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface CliRun { code: number; stdout: string; stderr: string }

/** `node bin/manette.js <args>` on `databaseUrl` under LANG=`lang` (and `env` on top); never rejects. */
export function runManette(args: string[], databaseUrl: string, lang: string, env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile('node', ['bin/manette.js', ...args], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl, LANG: lang, LC_ALL: '', LC_MESSAGES: '', ...env },
      maxBuffer: 64 * 1024 * 1024,
    }, (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }));
  });
}

/** The command with --json: exactly one JSON document on stdout. */
export async function runManetteJson(args: string[], databaseUrl: string, lang: string, env: NodeJS.ProcessEnv = {}): Promise<{ code: number; body: any; stderr: string }> {
  const r = await runManette([...args, '--json'], databaseUrl, lang, env);
  expect(r.stdout.trim().split('\n'), r.stdout + r.stderr).toHaveLength(1);
  return { code: r.code, body: JSON.parse(r.stdout), stderr: r.stderr };
}
