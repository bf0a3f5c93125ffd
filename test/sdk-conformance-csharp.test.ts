// The C# SDK (sdk/csharp, for Unity and Godot 4 .NET) with Debian's Mono: its NUnit unit
// tests, the conformance suite, and its console example playing a whole match against a
// browser-SDK player in Chromium. One file, so that one build serves the three.
import { describe, expect, it } from 'vitest';
import { CONFORMANCE_MS, expectConformant, requireTool, runSdkRunner, withConformanceServer } from './support/conformance.js';
import { crossPlay } from './support/crossplay.js';
import { haveBrowser } from './support/browser.js';
import { runCommand } from './support/run-command.js';

const haveMono = requireTool('sdk-conformance-csharp', '/usr/bin/mono', 'apt-get install mono-devel nunit-console libnunit-cil-dev');

describe.skipIf(!haveMono)('the C# SDK', () => {
  it('builds, and passes its NUnit tests', async () => {
    const r = await runCommand('bash', ['sdk/csharp/test.sh']);
    expect(r.code, r.out.slice(-4000)).toBe(0);
    expect(r.out).toMatch(/Tests run: [1-9]\d*, Errors: 0, Failures: 0/);
  }, CONFORMANCE_MS);

  it('passes every conformance case', async () => {
    await withConformanceServer(async (server) => {
      const run = await runSdkRunner(server, 'bash', ['sdk/csharp/conformance.sh']);
      await expectConformant('C#', run);
    });
  }, CONFORMANCE_MS);

  it.skipIf(!haveBrowser)('plays a whole match against a browser player in Chromium: the same final state and history', async () => {
    await withConformanceServer(async (server) => {
      await crossPlay(server, server.keys.default, 'mono', ['sdk/csharp/build/Morpion.exe']);
    });
  }, CONFORMANCE_MS);
});
