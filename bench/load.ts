// A lean HTTP/1.1 load generator for the façade bench (bench/facade.ts), shaped like wrk:
// `connections` keep-alive sockets, each in a closed loop (the next request is written as
// soon as the previous answer is complete), for `seconds`. A request is a string written
// as it is; an answer is read by its status line and Content-Length, nothing else parsed.
// Why not autocannon (used before): it spent more CPU per request than the server it
// measured on this 2-core machine (docs/performance.md, "Façade bench"), so the fastest
// server was held back by its own client and the ratios came out compressed towards 1.
import net from 'node:net';

export interface LoadResult {
  /** Answers per second over the run. */
  rps: number;
  requests: number;
  /** Answers whose status was not 2xx. */
  non2xx: number;
  /** The first non-2xx answer, for the error message. */
  firstNon2xx?: string;
  p50: number;
  p99: number;
  /** CPU milliseconds this process spent per answer (user + system). */
  cpuMsPerRequest: number;
}

const HEADER_END = Buffer.from('\r\n\r\n');
const CONTENT_LENGTH = /\r\ncontent-length:\s*(\d+)/i;

/**
 * Runs the closed loop against 127.0.0.1:`port`. `request(n)` is the n-th request's whole
 * text (request line, headers, blank line, body), n counted across all connections, as
 * wrk's Lua `request()` counts per thread.
 */
export async function load(port: number, opts: { connections: number; seconds: number }, request: (n: number) => string): Promise<LoadResult> {
  let n = 0;
  let done = 0;
  let non2xx = 0;
  let firstNon2xx: string | undefined;
  const latencies: number[] = [];
  let stopping = false;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  let ended = started;

  const sockets: net.Socket[] = [];
  const runOne = () => new Promise<void>((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1', noDelay: true });
    sockets.push(socket);
    let buffered: Buffer | undefined;
    let sentAt = 0;
    const send = () => {
      if (stopping) { socket.end(); return; }
      sentAt = performance.now();
      socket.write(request(n++));
    };
    socket.once('connect', send);
    socket.on('data', (chunk: Buffer) => {
      buffered = buffered ? Buffer.concat([buffered, chunk]) : chunk;
      for (;;) {
        const headerEnd = buffered.indexOf(HEADER_END);
        if (headerEnd < 0) return;
        const head = buffered.toString('latin1', 0, headerEnd);
        const length = CONTENT_LENGTH.exec(head);
        if (!length) { socket.destroy(); reject(new Error(`an answer without Content-Length: ${head}`)); return; }
        const total = headerEnd + 4 + Number(length[1]);
        if (buffered.length < total) return;
        const status = head.charCodeAt(9);
        if (status !== 50 /* '2' */) {
          non2xx++;
          firstNon2xx ??= buffered.toString('utf8', 0, total);
        }
        done++;
        const now = performance.now();
        latencies.push(now - sentAt);
        ended = now;
        buffered = buffered.length === total ? undefined : buffered.subarray(total);
        if (buffered) { socket.destroy(); reject(new Error('an answer came before its request')); return; }
        send();
        return;
      }
    });
    socket.once('error', reject);
    socket.once('close', () => resolve());
  });

  const timer = setTimeout(() => { stopping = true; }, opts.seconds * 1000);
  // A server that stops answering must not hang the bench: its connections are closed 10 s later.
  let hung = false;
  const deadline = setTimeout(() => { hung = true; for (const s of sockets) s.destroy(); }, opts.seconds * 1000 + 10_000);
  try {
    await Promise.all(Array.from({ length: opts.connections }, runOne));
  } finally {
    clearTimeout(timer);
    clearTimeout(deadline);
  }
  if (hung) throw new Error(`no answer on some connections 10 s after the end of the run (port ${port})`);
  const cpu = process.cpuUsage(cpuBefore);
  latencies.sort((a, b) => a - b);
  const at = (p: number) => latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]! : NaN;
  return {
    rps: done / ((ended - started) / 1000), requests: done, non2xx, firstNon2xx,
    p50: at(0.5), p99: at(0.99), cpuMsPerRequest: (cpu.user + cpu.system) / 1000 / Math.max(done, 1),
  };
}
