// What the local stack's lock and pid files rely on: a killed process that is not yet
// reaped (a zombie, which a container's pid 1 may leave for a while) counts as gone.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { processAlive } from '../twin/procs.js';

describe('processAlive', () => {
  it('is true for a live process, false for a zombie and for a pid that is gone', async () => {
    // sh starts a short sleep in the background, prints its pid, then becomes a long sleep,
    // which never reaps it: once the short one ends, it stays a zombie.
    const parent = spawn('sh', ['-c', 'sleep 0.3 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const [line] = await once(parent.stdout!, 'data') as [Buffer];
      const zombie = Number(line.toString().trim());
      const deadline = Date.now() + 5_000;
      const state = () => { try { return readFileSync(`/proc/${zombie}/stat`, 'utf8').split(') ')[1]?.[0]; } catch { return undefined; } };
      while (state() !== 'Z' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(state()).toBe('Z');
      expect(processAlive(zombie)).toBe(false);
      expect(processAlive(parent.pid!)).toBe(true);
    } finally {
      parent.kill('SIGKILL');
      await once(parent, 'exit');
    }
    expect(processAlive(parent.pid!)).toBe(false);
  });
});
