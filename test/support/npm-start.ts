// `npm start` as a newcomer runs it, for the tests of the command and of its faults.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';

/**
 * `npm start` in its own process group (as a terminal runs it), added to `started` for
 * clean-up; resolves once the banner is printed. `out()` is everything printed so far.
 */
export function npmStart(
  env: NodeJS.ProcessEnv, started: ChildProcess[], opts: { cwd?: string } = {},
): Promise<{ proc: ChildProcess; out: () => string }> {
  const proc = spawn('npm', ['start'], { env, cwd: opts.cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(proc);
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner after 60 s:\n${out}`)), 60_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      if (/(Base|Database)\s+.+\n/.test(out)) { clearTimeout(timer); resolve({ proc, out: () => out }); }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.on('exit', (code) => { clearTimeout(timer); reject(new Error(`exited ${code}:\n${out}`)); });
  });
}

/** Something accepts connections on this local port. */
export function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => { s.destroy(); resolve(true); });
    s.once('error', () => resolve(false));
  });
}

/** Stops what `npmStart` started, as Ctrl-C does (SIGINT to each process group), SIGKILL after 15 s. */
export async function stopStarted(started: ChildProcess[]): Promise<void> {
  for (const p of started) {
    if (p.exitCode !== null || p.signalCode !== null) continue;
    const exited = new Promise((r) => p.once('exit', r));
    try { process.kill(-p.pid!, 'SIGINT'); } catch { /* gone */ }
    await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
    try { process.kill(-p.pid!, 'SIGKILL'); } catch { /* gone */ }
  }
}
