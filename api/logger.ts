// The service's logger: pino's JSON lines on stdout, written asynchronously and in batches.
// Under load the lines of many requests leave in one write: a destination writes once it
// holds BATCH_BYTES, and at the latest FLUSH_MS after a line came (a timer), instead of a
// write per request line (bench/facade.ts; docs/performance.md, "Façade bench"). pino
// flushes what is left when the process exits (not on kill -9: up to FLUSH_MS of lines).
//
// With `file`, every line goes to that file (appended) and only warnings and errors to
// stdout as well: `manette start` in a terminal keeps its banner in sight that way.
import { pino, type DestinationStream, type Logger } from 'pino';

const BATCH_BYTES = 4096;
export const FLUSH_MS = 100;

/** An asynchronous destination that writes in batches (see above). */
function batched(opts: { dest: string | number; mkdir?: boolean; append?: boolean }): DestinationStream {
  const destination = pino.destination({ ...opts, sync: false, minLength: BATCH_BYTES });
  // sonic-boom's own periodicFlush writes even when nothing waits; this timer only when lines do.
  const pending = destination as unknown as { _len?: number; destroyed?: boolean };
  const timer = setInterval(() => {
    if (!pending.destroyed && (pending._len ?? 1) > 0) destination.flush();
  }, FLUSH_MS);
  timer.unref();
  return destination;
}

export function createLogger(level: string, file?: string): Logger {
  const stdout = batched({ dest: 1 });
  if (!file) return pino({ level }, stdout);
  return pino({ level }, pino.multistream([
    { level: 'warn', stream: stdout },
    { level: 'trace', stream: batched({ dest: file, mkdir: true, append: true }) },
  ]));
}
