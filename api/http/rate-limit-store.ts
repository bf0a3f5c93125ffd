// Where the request rate limits (docs/api.md) count. One process: in its own
// memory. The workers of `manette start` (api/workers.ts): in the primary's memory,
// through node:cluster's IPC channel, so a client gets the configured rate whichever worker
// its connections reach, not one rate per worker. If the primary does not answer in time,
// the worker's own memory decides those requests (a limit per worker for that moment rather
// than an error).
//
// The requests a worker reads in one turn of its event loop are asked in one message, and
// answered in one: under load that is one IPC round trip for many requests instead of one
// each (rate-limiter-flexible's cluster mode sends one message, a timer and a listener call
// per limiter for every consume; it was a sixth of a worker's CPU per request,
// docs/performance.md "Façade bench"). The counting itself is rate-limiter-flexible's
// RateLimiterMemory, in the primary as before.
import cluster from 'node:cluster';
import { RateLimiterMemory, RateLimiterRes, type IRateLimiterOptions, type RateLimiterAbstract } from 'rate-limiter-flexible';

let sharedWithPrimary = false;

/** In a worker, before the façade is built: its limits count in the primary. */
export function countRateLimitsInPrimary(): void {
  sharedWithPrimary = true;
}

const CHANNEL = 'manette_rate_limits';
const PRIMARY_TIMEOUT_MS = 1_000;

/** [request id, key prefix, points of the limiter, its duration, key, points to consume] */
type Ask = [number, string, number, number, string, number];
/** [request id, rejected 0/1, remainingPoints, msBeforeNext, consumedPoints, isFirstInDuration 0/1] */
type Answer = [number, number, number, number, number, number];

let primaryListening = false;

/** In the primary, before any worker is forked: keeps the workers' counts. */
export function keepWorkersRateLimits(): void {
  if (primaryListening) return;
  primaryListening = true;
  const limiters = new Map<string, RateLimiterMemory>();
  cluster.on('message', (worker, msg: { channel?: string; asks?: Ask[] }) => {
    if (msg?.channel !== CHANNEL || !Array.isArray(msg.asks)) return;
    const answers = msg.asks.map(async ([id, keyPrefix, points, duration, key, consume]): Promise<Answer> => {
      let limiter = limiters.get(keyPrefix);
      if (!limiter) {
        limiter = new RateLimiterMemory({ keyPrefix, points, duration });
        limiters.set(keyPrefix, limiter);
      }
      try {
        return answerOf(id, 0, await limiter.consume(key, consume));
      } catch (res) {
        return answerOf(id, 1, res as RateLimiterRes);
      }
    });
    void Promise.all(answers).then((list) => {
      if (worker.isConnected()) worker.send({ channel: CHANNEL, answers: list });
    });
  });
}

const answerOf = (id: number, rejected: number, res: RateLimiterRes): Answer =>
  [id, rejected, res.remainingPoints, res.msBeforeNext, res.consumedPoints, res.isFirstInDuration ? 1 : 0];

export type LimiterOptions = Required<Pick<IRateLimiterOptions, 'keyPrefix' | 'points' | 'duration'>>;

/** One limiter (a key prefix), counted where this process's limits count. */
export function rateLimiterStore(opts: LimiterOptions): RateLimiterAbstract {
  return sharedWithPrimary ? new SharedRateLimiter(opts) : new RateLimiterMemory(opts);
}

// == In a worker: the asks of one event-loop turn, in one message ==========================

interface Waiting {
  resolve: (res: RateLimiterRes) => void;
  reject: (res: unknown) => void;
  /** This worker's own count, if the primary does not answer in time. */
  fallback: () => Promise<RateLimiterRes>;
  /** Called once the primary answered it (the batch's timer stops with its last answer). */
  settled?: () => void;
}

const waiting = new Map<number, Waiting>();
let batch: Ask[] = [];
let nextId = 1;
let listening = false;

function listen(): void {
  if (listening) return;
  listening = true;
  process.on('message', (msg: { channel?: string; answers?: Answer[] }) => {
    if (msg?.channel !== CHANNEL || !Array.isArray(msg.answers)) return;
    for (const [id, rejected, remaining, msBeforeNext, consumed, first] of msg.answers) {
      const w = waiting.get(id);
      if (!w) continue; // answered by the fallback already
      waiting.delete(id);
      const res = new RateLimiterRes(remaining, msBeforeNext, consumed, first === 1);
      w.settled?.();
      if (rejected) w.reject(res);
      else w.resolve(res);
    }
  });
}

function send(): void {
  const asks = batch;
  batch = [];
  let left = asks.length;
  const timer = setTimeout(() => {
    for (const [id] of asks) {
      const w = waiting.get(id);
      if (!w) continue;
      waiting.delete(id);
      w.fallback().then(w.resolve, w.reject);
    }
  }, PRIMARY_TIMEOUT_MS);
  timer.unref();
  for (const [id] of asks) waiting.get(id)!.settled = () => { if (--left === 0) clearTimeout(timer); };
  // No channel (the primary is gone): the timer's fallback decides.
  if (process.send && process.connected) process.send({ channel: CHANNEL, asks });
}

class SharedRateLimiter extends RateLimiterMemory {
  constructor(opts: LimiterOptions) {
    super(opts);
    listen();
  }

  override consume(key: string | number, points = 1, options: { [key: string]: unknown } = {}): Promise<RateLimiterRes> {
    return new Promise<RateLimiterRes>((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve, reject, fallback: () => super.consume(key, points, options) });
      if (batch.length === 0) setImmediate(send);
      batch.push([id, this.keyPrefix, this.points, this.duration, String(key), points]);
    });
  }
}
