// The service's logger: pino's JSON lines on stdout, written asynchronously. Under load
// the lines of many requests leave in one write instead of one write per request (that
// write was 0.07 of the façade's ratio on a cheap request, bench/facade.ts); a line is
// still written at once when nothing else is pending, and pino flushes what is left when
// the process exits (not on kill -9).
import { pino, type Logger } from 'pino';

export function createLogger(level: string): Logger {
  return pino({ level }, pino.destination({ dest: 1, sync: false }));
}
