// One JSON line per request through the app's pino logger, under its request id (the
// client's x-request-id when it is sane, else a new one; returned in the response).
// pino-http made a child logger and serialized the request for every request: on a cheap
// request that was a quarter of the façade's work (bench/facade.ts, docs/performance.md).
// The line has what pino-http logged but the headers: no key or token is ever logged.
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';

declare module 'node:http' {
  interface IncomingMessage {
    /** The request id (x-request-id), set by requestLog. */
    id?: string;
  }
}

const SANE_ID = /^[\w.-]{1,100}$/;

export function requestLog(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = performance.now();
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && SANE_ID.test(incoming) ? incoming : randomUUID();
    req.id = id;
    res.setHeader('x-request-id', id);
    const line = () => ({
      req: { id, method: req.method, url: req.originalUrl, remoteAddress: req.socket.remoteAddress },
      res: { statusCode: res.statusCode },
      responseTime: Math.round(performance.now() - started),
    });
    // 'close' comes once, just after 'finish' or without it when the client left first.
    res.once('close', () => {
      if (!res.writableFinished) logger.warn(line(), 'request aborted');
      else if (res.statusCode >= 500) logger.error(line(), 'request errored');
      else logger.info(line(), 'request completed');
    });
    next();
  };
}
