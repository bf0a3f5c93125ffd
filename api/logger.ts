// The service's logger: pino's JSON lines on stdout, written asynchronously. Under load
// the lines of many requests leave in one write instead of a blocking write per request
// (bench/facade.ts); a line is still written at once when nothing else is pending, and
// pino flushes what is left when the process exits (not on kill -9).
import { pino, type Logger } from 'pino';

export function createLogger(level: string): Logger {
  return pino({ level }, pino.destination({ dest: 1, sync: false }));
}
