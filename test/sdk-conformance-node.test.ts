// The browser SDK passes the conformance suite from Node (a Node bot, a Phaser server):
// the built package, realtime-js from npm and the `ws` WebSocket (docs/sdk.md, "From Node").
import { describe, it } from 'vitest';
import { CONFORMANCE_MS, expectConformant, runSdkRunner, withConformanceServer } from './support/conformance.js';

describe('conformance: the browser SDK from Node', () => {
  it('passes every case', async () => {
    await withConformanceServer(async (server) => {
      const run = await runSdkRunner(server, process.execPath, ['bin/run-ts.js', 'test/conformance/browser-sdk/node-runner.ts']);
      await expectConformant('browser-sdk (Node)', run);
    });
  }, CONFORMANCE_MS);
});
