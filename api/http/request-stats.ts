// Request counts for the console's error rates (docs/console.md, Overview): the database
// sees no refused request (its transaction rolls back), so the façade counts the answers
// it sends, per API key, minute and HTTP status, in memory, and hands them to
// api.request_stats_record every 5 s in one call, through the path every request takes
// (runAsApi: manette_api, the deadline). Nothing is added to a request's own path but a
// listener and a map increment.
// - Counted: every finished response to a request whose x-api-key has the shape of a key
//   (sk_live_...); a client that leaves before the answer is not counted. Keys that name no
//   game are dropped by the database.
// - Bounded: at most MAX_KEYS distinct keys between two flushes; the requests of further
//   keys are not counted (`dropped` in the warning of the next flush).
// - Lost: a failed flush's counts (said once in a warning; never retried, never blocking a
//   request); what a process counted since its last flush when it dies without ending its
//   pool (kill -9, the Edge Function's isolate stopped: up to 5 s of counts).
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import pg from 'pg';
import { runAsApi, type Pool } from '../db/pool.js';

export const FLUSH_INTERVAL_MS = 5_000;
export const MAX_KEYS = 1_000;
/** What a key looks like (manette.api_keys' check), bounded: other values are not counted. */
const KEY_SHAPE = /^sk_live_[0-9A-Za-z]{32,200}$/;

export interface RequestStats {
  /** The Express middleware that counts. */
  middleware(req: Request, res: Response, next: NextFunction): void;
  /** Hands what was counted to the database now (one call; nothing to hand: no call). */
  flush(): Promise<void>;
  /** Stops the timer and flushes a last time (called when the pool ends). */
  stop(): Promise<void>;
}

const byPool = new WeakMap<Pool, RequestStats>();

/** The counter of the façade built on `pool` (tests flush it instead of waiting for the timer). */
export function requestStatsOf(pool: Pool): RequestStats | undefined {
  return byPool.get(pool);
}

/** Starts counting for the façade on `pool`: flushed every `intervalMs`, and when the pool ends. */
export function startRequestStats(pool: Pool, logger: Logger, intervalMs = FLUSH_INTERVAL_MS): RequestStats {
  // key → "minute|status" → requests
  let counts = new Map<string, Map<string, number>>();
  let dropped = 0;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  let timer: ReturnType<typeof setTimeout> | undefined;

  const count = (key: string, status: number) => {
    let perKey = counts.get(key);
    if (!perKey) {
      if (counts.size >= MAX_KEYS) {
        dropped++;
        return;
      }
      perKey = new Map();
      counts.set(key, perKey);
    }
    const slot = `${Math.floor(Date.now() / 60_000)}|${status}`;
    perKey.set(slot, (perKey.get(slot) ?? 0) + 1);
  };

  const send = async () => {
    if (counts.size === 0 && dropped === 0) return;
    const taken = counts;
    const lost = dropped;
    counts = new Map();
    dropped = 0;
    const entries: { cle: string; minute: string; statut: number; nombre: number }[] = [];
    for (const [cle, perKey] of taken) {
      for (const [slot, nombre] of perKey) {
        const [minute, statut] = slot.split('|');
        entries.push({ cle, minute: new Date(Number(minute) * 60_000).toISOString(), statut: Number(statut), nombre });
      }
    }
    if (lost > 0) logger.warn({ requests: lost, keys: MAX_KEYS }, 'request counts: more keys than counted between two flushes; requests of further keys not counted');
    if (entries.length === 0) return;
    try {
      await runAsApi(pool, `select api.request_stats_record(${pg.escapeLiteral(JSON.stringify(entries))}::jsonb) as r`);
    } catch (err) {
      logger.warn({ err: (err as Error).message, entries: entries.length }, 'request counts could not be stored; they are dropped');
    }
  };

  // One flush at a time: a flush asked for while one runs follows it.
  const flush = () => {
    running = running.then(send);
    return running;
  };

  const plan = () => {
    if (stopped) return;
    timer = setTimeout(() => { void flush().finally(plan); }, intervalMs);
    timer.unref?.();
  };
  plan();

  const stats: RequestStats = {
    middleware(req, res, next) {
      const key = req.headers['x-api-key'];
      if (!stopped && typeof key === 'string' && KEY_SHAPE.test(key)) {
        res.once('finish', () => count(key, res.statusCode));
      }
      next();
    },
    flush,
    async stop() {
      if (stopped) return running;
      stopped = true;
      if (timer) clearTimeout(timer);
      return flush();
    },
  };
  byPool.set(pool, stats);
  pool.onEnd(() => stats.stop());
  return stats;
}
