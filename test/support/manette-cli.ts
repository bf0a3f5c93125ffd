// The real `manette` CLI in a child process on a database (DATABASE_URL), in a given locale:
// what the admin-command tests run. bin/manette.js runs the compiled command that the global
// setup built (bin/build.mjs), as the npm package does; the TypeScript through tsx only if a
// source changed since.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { expect } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface CliRun { code: number; stdout: string; stderr: string }

/**
 * What a test allows each `manette` command it runs. The command is the compiled JavaScript
 * (global-setup.ts builds it once): about 0.3 s of CPU to start, plus its connection and a
 * few queries (docs/performance.md, "The command's start"). `npm test` runs on 2 cores with
 * two test files at once, their API servers and Postgres: at a load average of 8 a process
 * gets a quarter of a core, so about 2 s a command; 5 s leaves room for a busier moment.
 */
export const CLI_COMMAND_MS = 5_000;
/** A test's own work beside its commands (requests, queries, a game applied): seconds; 30 s under load. */
export const TEST_OWN_WORK_MS = 30_000;
/**
 * The timeout of a test that runs `commands` manette commands, one after the other or
 * together (vitest.config.ts's 60 s covers up to six).
 */
export function cliTimeout(commands: number): number {
  return TEST_OWN_WORK_MS + commands * CLI_COMMAND_MS;
}

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
