// The Edge Function's logs within what Supabase keeps: "Log event threshold: 100 events
// per 10 seconds" (supabase/supabase, apps/docs/content/guides/functions/limits.mdx). Under
// Deno the function writes one summary of its requests per period instead of a line per
// request (api/http/request-log.ts), and never more than 90 lines in any 10 s
// (api/edge/log-rate.ts), counting what it dropped. Shown on the function built by
// `npm run build:function`, under the twin's edge runtime, flooded with requests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rateLimitedLines } from '../api/edge/log-rate.js';
import { builtFunctionFolder, type FunctionFolder } from './support/function-folder.js';
import { client, denoBinary, startTestApp } from './support/harness.js';

const deno = denoBinary();

/** The JSON lines among what the function wrote. */
const jsonLines = (logs: string[]) => logs.flatMap((l) => { try { const j = JSON.parse(l); return typeof j === 'object' && j ? [j] : []; } catch { return []; } });
/** The most lines whose `time` falls in any window of `ms`. */
function busiest(times: number[], ms: number): number {
  const t = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < t.length; i++) {
    while (t[i]! - t[j]! >= ms) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}
async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setTimeout(r, 100));
}

describe('rateLimitedLines', () => {
  it('writes at most `max` lines in a window, then says how many it dropped', async () => {
    const out: string[] = [];
    const write = rateLimitedLines((l) => out.push(l), 10, 300);
    for (let i = 0; i < 100; i++) write(`line ${i}`);
    expect(out).toEqual(Array.from({ length: 10 }, (_, i) => `line ${i}`));
    await new Promise((r) => setTimeout(r, 350));
    write('after');
    expect(out.slice(10)).toHaveLength(2);
    expect(JSON.parse(out[10]!)).toMatchObject({ level: 40, dropped: 90 });
    expect(out[11]).toBe('after');
  });
});

describe.skipIf(!deno)('the Edge Function\'s logs under a flood of requests', () => {
  let folder: FunctionFolder;
  let fnDir: string;
  beforeAll(async () => {
    folder = await builtFunctionFolder('manette-edge-logs-');
    fnDir = folder.fnDir;
  }, 120_000);
  afterAll(async () => { await folder?.remove(); });

  async function flood(baseUrl: string, n: number): Promise<void> {
    const api = client(baseUrl);
    for (let i = 0; i < n; i += 25) {
      const statuses = await Promise.all(Array.from({ length: Math.min(25, n - i) }, () => api.get('/realtime/config', { key: null }).then((r) => r.status)));
      expect(new Set(statuses)).toEqual(new Set([401]));
    }
  }

  it('summarizes its requests: 300 requests make a few summary lines that count them all', async () => {
    const logs: string[] = [];
    const app = await startTestApp({ MANETTE_REQUEST_LOG_SUMMARY_S: '2' }, undefined, { server: 'edge', edgeFunctionDir: fnDir, logs });
    try {
      await flood(app.baseUrl, 300);
      const counted = () => jsonLines(logs).filter((j) => j.msg === 'requests').reduce((n, j) => n + (j.statuses?.['401'] ?? 0), 0);
      await until(() => counted() >= 300);
      expect(counted()).toBe(300);
      const lines = jsonLines(logs);
      expect(lines.filter((j) => j.msg === 'request completed')).toEqual([]);
      expect(busiest(lines.map((j) => j.time), 10_000)).toBeLessThanOrEqual(100);
      expect(lines.find((j) => j.msg === 'requests')).toMatchObject({ level: 30, statuses: expect.any(Object), aborted: 0, responseTime: { avg: expect.any(Number), max: expect.any(Number) } });
    } finally {
      await app.close();
    }
  }, 180_000);

  it('with a line per request (MANETTE_REQUEST_LOG_SUMMARY_S=0), still at most 90 lines in any 10 s, the rest counted', async () => {
    const logs: string[] = [];
    const app = await startTestApp({ MANETTE_REQUEST_LOG_SUMMARY_S: '0' }, undefined, { server: 'edge', edgeFunctionDir: fnDir, logs });
    try {
      await flood(app.baseUrl, 300);
      const lines = () => jsonLines(logs);
      expect(lines().filter((j) => j.msg === 'request completed').length).toBeLessThan(300);
      // Once the window has moved on, the next line is preceded by the count of those dropped.
      await new Promise((r) => setTimeout(r, 10_500));
      await client(app.baseUrl).get('/realtime/config', { key: null });
      await until(() => lines().some((j) => typeof j.dropped === 'number'));
      const all = lines();
      expect(busiest(all.map((j) => j.time), 10_000)).toBeLessThanOrEqual(90);
      const dropped = all.find((j) => typeof j.dropped === 'number')!;
      // Every request is either on a line of its own or counted as dropped (+ the health checks and the start's lines).
      const written = all.filter((j) => j.msg === 'request completed' && j.res?.statusCode === 401).length;
      expect(written + dropped.dropped).toBeGreaterThanOrEqual(301);
    } finally {
      await app.close();
    }
  }, 180_000);
});
