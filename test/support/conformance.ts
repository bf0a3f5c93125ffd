// One SDK's conformance run (test/conformance/): the conformance server on a fresh database
// of the run's twin, the SDK's runner as its own process (its report in a file), and the
// checks every SDK answers to: each case of the list reported, each passed, and the
// runner's own count line.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { freshDatabase, twinAdminUrlOf } from './harness.js';
import { conformanceCases, startConformanceServer, type ConformanceServer } from '../conformance/server.js';
import type { CaseResult } from '../conformance/browser-sdk/cases.js';

export const ROOT = path.resolve(import.meta.dirname, '..', '..');
/** A whole run: 22 cases, one of them over 45 s (token renewal), the rest a few seconds each. */
export const CONFORMANCE_MS = 600_000;

/** Whether a tool the suite needs is here; on CI (CI=true) a missing one fails instead of skipping. */
export function requireTool(file: string, tool: string, install: string): boolean {
  if (existsSync(tool)) return true;
  if (process.env.CI === 'true') throw new Error(`${tool} is missing: .ci/run installs it (${install})`);
  console.warn(`${file}: ${tool} not found, skipped (${install})`);
  return false;
}

export async function withConformanceServer<T>(run: (server: ConformanceServer) => Promise<T>): Promise<T> {
  const db = await freshDatabase();
  const server = await startConformanceServer(db, twinAdminUrlOf(db));
  try {
    return await run(server);
  } finally {
    await server.close();
  }
}

/** Runs `command args` from the repository root with the conformance env; returns its output and report. */
export async function runSdkRunner(server: ConformanceServer, command: string, args: string[], env: Record<string, string> = {}) {
  const dir = await mkdtemp(path.join(tmpdir(), 'manette-conformance-report-'));
  const reportFile = path.join(dir, 'report.json');
  try {
    const child = spawn(command, args, {
      cwd: ROOT,
      env: { ...process.env, ...env, MANETTE_CONFORMANCE_URL: server.control, MANETTE_CONFORMANCE_REPORT: reportFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    const report = existsSync(reportFile)
      ? JSON.parse(await readFile(reportFile, 'utf8')) as { sdk: string; results: CaseResult[] }
      : undefined;
    return { code, out, report };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Every case of the list reported and passed, and the runner's last line counting them. */
export async function expectConformant(sdk: string, run: { code?: number | null; out: string; report?: { results: CaseResult[] } }, lastLine = true): Promise<void> {
  const cases = (await conformanceCases()).map((c) => c.id);
  const results = run.report?.results ?? [];
  const passed = results.filter((r) => r.ok).length;
  const line = `${passed} passed, ${results.length - passed} failed`;
  // The count, for the CI log (every SDK prints it).
  console.log(`conformance ${sdk}: ${line}`);
  const failures = results.filter((r) => !r.ok).map((r) => `${r.case}: ${r.message ?? ''}`);
  expect(failures, run.out.slice(-4000)).toEqual([]);
  expect(results.map((r) => r.case).sort()).toEqual([...cases].sort());
  if (lastLine) expect(run.out.trim().split('\n').at(-1)?.trim()).toBe(line);
  // A runner's own other tests (units, examples) fail through its exit status.
  if (run.code !== undefined) expect(run.code, run.out.slice(-4000)).toBe(0);
}
