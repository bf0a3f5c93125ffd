// The Node HTTP server under the façade (docs/api.md): what Node's own parser
// rejects before Express (bad method, malformed request line, headers over 16 KiB) and
// slow clients still get the JSON envelope, then the connection is closed; each client
// address holds a bounded number of connections.
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import { messageFor } from './messages.js';

export interface NodeServerLimits {
  /** Headers must be complete within this time (ms). */
  headersTimeoutMs: number;
  /** The whole request (headers and body) within this time (ms). */
  requestTimeoutMs: number;
  /** Open connections per client address; past it, new ones get 429 and are closed. */
  maxConnectionsPerAddress: number;
}

export const DEFAULT_LIMITS: NodeServerLimits = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, maxConnectionsPerAddress: 256 };
const MAX_HEADER_BYTES = 16 * 1024;

/** A raw HTTP/1.1 response with the error envelope, then the connection ends. */
export function writeEnvelope(socket: Duplex, status: number, code: string, extraHeaders: Record<string, string> = {}): void {
  if (!socket.writable) return void socket.destroy();
  const body = JSON.stringify({ ok: false, error: code, message: messageFor(code, 'fr') });
  const headers = { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(Buffer.byteLength(body)), Connection: 'close', ...extraHeaders };
  socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ''}\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n${body}`);
  // A client that does not read its answer is not waited for.
  setTimeout(() => socket.destroy(), 1_000).unref();
}

/** Node parser errors (`clientError`) → the envelope: 431 for oversized headers, 408 for slow clients, else 400. */
function onClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  const code = err.code ?? '';
  if (code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
  if (code === 'HPE_HEADER_OVERFLOW') return writeEnvelope(socket, 431, 'headers_too_large');
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT' || code === 'ERR_HTTP_HEADERS_TIMEOUT') return writeEnvelope(socket, 408, 'request_timeout');
  writeEnvelope(socket, 400, 'bad_request');
}

export function createApiServer(handler: http.RequestListener, limits: NodeServerLimits = DEFAULT_LIMITS): http.Server {
  const server = http.createServer({
    // Node would answer an HTTP/1.1 request without Host itself, with an empty body and no
    // clientError event: the app answers it with the envelope instead (api/app.ts).
    requireHostHeader: false,
    maxHeaderSize: MAX_HEADER_BYTES,
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    // How often Node checks the two timeouts above.
    connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs),
  }, handler);
  server.on('clientError', onClientError);

  const perAddress = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '?';
    const open = (perAddress.get(address) ?? 0) + 1;
    perAddress.set(address, open);
    socket.once('close', () => {
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left <= 0) perAddress.delete(address); else perAddress.set(address, left);
    });
    if (open > limits.maxConnectionsPerAddress) writeEnvelope(socket, 429, 'too_many_connections', { 'Retry-After': '1' });
  });
  return server;
}

/**
 * Listens dual-stack by default (`::` takes IPv4 too), so `localhost` works whether it
 * resolves to ::1 or 127.0.0.1; falls back to 0.0.0.0 where IPv6 is unavailable.
 */
export async function listen(server: http.Server, port: number, host: string): Promise<string> {
  const attempt = (h: string) => new Promise<void>((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once('error', onError);
    server.listen(port, h, () => { server.off('error', onError); resolve(); });
  });
  try {
    await attempt(host);
    return host;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (host !== '::' || (code !== 'EAFNOSUPPORT' && code !== 'EADDRNOTAVAIL')) throw err;
    await attempt('0.0.0.0');
    return '0.0.0.0';
  }
}
