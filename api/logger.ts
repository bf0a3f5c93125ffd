// The service's logger: pino's JSON lines on stdout, written asynchronously. Under load
// the lines of many requests leave in one write instead of a blocking write per request
// (bench/facade.ts); a line is still written at once when nothing else is pending, and
// pino flushes what is left when the process exits (not on kill -9).
//
// With `file`, every line goes to that file (appended) and only warnings and errors to
// stdout as well: `manette start` in a terminal keeps its banner in sight that way.
import { pino, type Logger } from 'pino';

export function createLogger(level: string, file?: string): Logger {
  const stdout = pino.destination({ dest: 1, sync: false });
  if (!file) return pino({ level }, stdout);
  return pino({ level }, pino.multistream([
    { level: 'warn', stream: stdout },
    { level: 'trace', stream: pino.destination({ dest: file, sync: false, mkdir: true, append: true }) },
  ]));
}
