// Where the request rate limits (docs/api.md) count. One process: in its own
// memory. The workers of `manette start` (api/workers.ts): in the primary's memory,
// through node:cluster's IPC channel (rate-limiter-flexible's cluster mode), so a client
// gets the configured rate whichever worker its connections reach, not one rate per
// worker. If the primary does not answer in time, the worker's own memory decides that
// request (a limit per worker for that moment rather than an error).
import {
  RateLimiterCluster, RateLimiterClusterMaster, RateLimiterMemory, RateLimiterRes, type IRateLimiterOptions,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';

let sharedWithPrimary = false;

/** In a worker, before the façade is built: its limits count in the primary. */
export function countRateLimitsInPrimary(): void {
  sharedWithPrimary = true;
}

/** In the primary, before any worker is forked: keeps the workers' counts. */
export function keepWorkersRateLimits(): void {
  new RateLimiterClusterMaster(); // a singleton listening to cluster messages
}

export type LimiterOptions = Required<Pick<IRateLimiterOptions, 'keyPrefix' | 'points' | 'duration'>>;

/** One limiter (a key prefix), counted where this process's limits count. */
export function rateLimiterStore(opts: LimiterOptions): RateLimiterAbstract {
  return sharedWithPrimary ? new SharedRateLimiter(opts) : new RateLimiterMemory(opts);
}

const PRIMARY_TIMEOUT_MS = 1_000;

class SharedRateLimiter extends RateLimiterCluster {
  private readonly local: RateLimiterMemory;

  constructor(opts: LimiterOptions) {
    super({ ...opts, timeoutMs: PRIMARY_TIMEOUT_MS });
    this.local = new RateLimiterMemory(opts);
  }

  override consume(key: string | number, points = 1, options: { [key: string]: unknown } = {}): Promise<RateLimiterRes> {
    return super.consume(key, points, options).catch((err: unknown) => {
      if (err instanceof RateLimiterRes) throw err;
      return this.local.consume(key, points, options);
    });
  }
}
