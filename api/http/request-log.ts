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

/** The request's id: the caller's `x-request-id` when sane, else a new one; echoed in the answer. */
function assignRequestId(req: Request, res: Response): string {
  const incoming = req.headers['x-request-id'];
  const id = typeof incoming === 'string' && SANE_ID.test(incoming) ? incoming : randomUUID();
  req.id = id;
  res.setHeader('x-request-id', id);
  return id;
}

/**
 * `summaryMs` > 0 (the Edge Function; MANETTE_REQUEST_LOG_SUMMARY_S): instead of a line per
 * request, one `requests` line per period with the count of each status, the aborted ones
 * and the response times, plus a line of its own for each of the first
 * SUMMARY_DETAILED errored or aborted requests of the period. Supabase keeps 100 log events
 * per 10 s of a function (docs/deploy.md), reached at about 10 requests/s with a line each.
 */
export const SUMMARY_DETAILED = 5;

export function requestLog(logger: Logger, opts: { summaryMs?: number } = {}) {
  if (opts.summaryMs && opts.summaryMs > 0) return summarizedRequestLog(logger, opts.summaryMs);
  return (req: Request, res: Response, next: NextFunction) => {
    const started = performance.now();
    const id = assignRequestId(req, res);
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

function summarizedRequestLog(logger: Logger, periodMs: number) {
  let since = Date.now();
  let statuses: Record<string, number> = {};
  let total = 0;
  let aborted = 0;
  let detailed = 0;
  let msSum = 0;
  let msMax = 0;
  const flush = () => {
    const now = Date.now();
    if (total > 0) {
      logger.info({ requests: total, statuses, aborted, responseTime: { avg: Math.round(msSum / total), max: msMax }, since: new Date(since).toISOString() }, 'requests');
    }
    since = now;
    statuses = {};
    total = aborted = detailed = msSum = msMax = 0;
  };
  // Under Deno a global timer is a number (no unref): the function's server runs anyway.
  const timer = setInterval(flush, periodMs) as unknown as { unref?: () => void };
  timer.unref?.();
  return (req: Request, res: Response, next: NextFunction) => {
    const started = performance.now();
    const id = assignRequestId(req, res);
    res.once('close', () => {
      const ms = Math.round(performance.now() - started);
      const done = res.writableFinished;
      total++;
      msSum += ms;
      msMax = Math.max(msMax, ms);
      if (!done) aborted++;
      else statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
      if ((!done || res.statusCode >= 500) && detailed < SUMMARY_DETAILED) {
        detailed++;
        const line = { req: { id, method: req.method, url: req.originalUrl, remoteAddress: req.socket.remoteAddress }, res: { statusCode: res.statusCode }, responseTime: ms };
        if (!done) logger.warn(line, 'request aborted');
        else logger.error(line, 'request errored');
      }
    });
    next();
  };
}
