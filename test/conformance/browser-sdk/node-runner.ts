// The browser SDK's conformance run from Node (a Phaser server, a Node bot): the built
// package (sdk/dist/manette.mjs) with realtime-js from npm and the `ws` WebSocket, as
// docs/sdk.md says for Node. Env: MANETTE_CONFORMANCE_URL (the control API),
// MANETTE_CONFORMANCE_REPORT (where the JSON report goes); optional MANETTE_CONFORMANCE_ONLY
// (comma-separated case ids). Prints "N passed, M failed" last.
import { writeFile } from 'node:fs/promises';
import WebSocket from 'ws';
import { runConformance } from './cases.js';
// @ts-expect-error: the built bundle; its declarations are sdk/dist/manette.d.ts
import { createClient, createPkcePair } from '../../../sdk/dist/manette.mjs';
import type { createClient as CreateClient, createPkcePair as CreatePkcePair } from '../../../sdk/src/index.js';

const control = process.env.MANETTE_CONFORMANCE_URL;
if (!control) throw new Error('MANETTE_CONFORMANCE_URL is not set');
const config = await (await fetch(`${control}/config`)).json() as { baseUrl: string };
const only = process.env.MANETTE_CONFORMANCE_ONLY?.split(',').filter(Boolean);
const results = await runConformance({
  control,
  createClient: (opts) => (createClient as typeof CreateClient)({
    ...opts, baseUrl: config.baseUrl, transport: WebSocket, realtime: () => import('@supabase/realtime-js'),
  }),
  createPkcePair: createPkcePair as typeof CreatePkcePair,
  log: (line) => console.log(line),
}, only);
if (process.env.MANETTE_CONFORMANCE_REPORT) {
  await writeFile(process.env.MANETTE_CONFORMANCE_REPORT, JSON.stringify({ sdk: 'browser-sdk (Node)', results }));
}
const passed = results.filter((r) => r.ok).length;
console.log(`${passed} passed, ${results.length - passed} failed`);
process.exit(passed === results.length ? 0 : 1);
