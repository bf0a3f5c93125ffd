// The Python SDK (sdk/python) with Debian's Python 3.11 and its packages: pytest (unit tests
// and the headless Pygame example), the conformance suite, and the Pygame example playing a
// whole match against a browser-SDK player in Chromium.
import { describe, expect, it } from 'vitest';
import { CONFORMANCE_MS, expectConformant, requireTool, runSdkRunner, withConformanceServer } from './support/conformance.js';
import { crossPlay } from './support/crossplay.js';
import { haveBrowser } from './support/browser.js';

const PYTHON = '/usr/bin/python3';
const havePython = requireTool('sdk-conformance-python', PYTHON, 'apt-get install python3-websocket python3-pytest python3-pygame');

describe.skipIf(!havePython)('the Python SDK', () => {
  it('passes every conformance case (pytest), and its unit and example tests', async () => {
    await withConformanceServer(async (server) => {
      const run = await runSdkRunner(server, PYTHON, ['sdk/python/conformance.py']);
      await expectConformant('Python', run);
    });
  }, CONFORMANCE_MS);

  it.skipIf(!haveBrowser)('its Pygame example, headless, plays a whole match against a browser player in Chromium', async () => {
    await withConformanceServer(async (server) => {
      const { out } = await crossPlay(server, server.keys.etat_aux_autres, PYTHON, ['sdk/python/examples/morpion_pygame.py', '--headless'],
        { SDL_VIDEODRIVER: 'dummy', SDL_AUDIODRIVER: 'dummy' });
      expect(out).toContain('"leaderboard"');
    });
  }, CONFORMANCE_MS);
});
