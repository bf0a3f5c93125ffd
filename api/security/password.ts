// Password hashing runs here, never in the database: scrypt at OWASP's recommended
// cost (N=2^17, r=8, p=1). Stored form: scrypt$N$r$p$<salt b64>$<hash b64>.
// Hashing is bounded (contract section 9): at most `parallelism` hashes at once (one core
// stays free for everything else, and memory stays at parallelism × 128 MiB), and when the
// hashes already waiting would take more than about 2 s, a login or register is refused at
// once with 503 `unavailable` and Retry-After instead of waiting.
import { availableParallelism } from 'node:os';
import { randomBytes, scrypt as scryptCb, scryptSync, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../http/errors.js';

const KEY_LENGTH = 32;

const R = 8;
const P = 1;
// scrypt needs 128 × N × r bytes; twice that leaves room.
const maxmem = (N: number, r: number) => 256 * N * r;

/** scrypt with Manette's parameters (or those of a stored hash), `length` bytes of output. */
export function scryptKey(password: string, salt: Buffer, options: { N: number; r?: number; p?: number }, length = KEY_LENGTH): Promise<Buffer> {
  const { N, r = R, p = P } = options;
  return new Promise((resolve, reject) =>
    scryptCb(password, salt, length, { N, r, p, maxmem: maxmem(N, r) }, (err, key) => (err ? reject(err) : resolve(key))));
}

/** The stored form: scrypt$N$r$p$<salt b64>$<hash b64>. */
export function storedHash(N: number, salt: Buffer, key: Buffer): string {
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/** A place in the hashing queue, taken before any other work so a refusal changes nothing. */
export interface HashTicket { run<T>(fn: () => Promise<T>): Promise<T>; cancel(): void }

export class HashingQueue {
  private running = 0;
  private reserved = 0;
  private readonly waiting: Array<() => void> = [];
  /** Recent hash durations: the cost of one hash is their minimum (a busy event loop only adds to a sample). */
  private readonly recentMs: number[] = [];
  private hashMs: number;

  constructor(readonly parallelism = Math.max(1, availableParallelism() - 1), private readonly maxQueuedMs = 2_000,
    private readonly calibratedMs = 300) {
    this.hashMs = calibratedMs;
  }

  /** The work already admitted, in ms of wall time, for a new hash. */
  queuedMs(): number {
    return ((this.running + this.reserved) / this.parallelism) * this.hashMs;
  }

  reserve(): HashTicket {
    const queued = this.queuedMs();
    if (this.running + this.reserved >= this.parallelism && queued > this.maxQueuedMs) {
      throw new ApiError(503, 'unavailable', { retryAfter: Math.max(1, Math.ceil(queued / 1000)) });
    }
    this.reserved++;
    let settled = false;
    const release = () => { if (!settled) { settled = true; this.reserved--; } };
    return {
      run: async <T>(fn: () => Promise<T>): Promise<T> => {
        if (settled) throw new Error('hash ticket already used');
        if (this.running >= this.parallelism) await new Promise<void>((resolve) => this.waiting.push(resolve));
        release();
        this.running++;
        const started = performance.now();
        try {
          return await fn();
        } finally {
          this.recentMs.push(performance.now() - started);
          if (this.recentMs.length > 20) this.recentMs.shift();
          this.hashMs = Math.min(this.calibratedMs, ...this.recentMs);
          this.running--;
          this.waiting.shift()?.();
        }
      },
      cancel: release,
    };
  }
}

/**
 * One queue per process and cost. The cost of one hash is measured once, synchronously
 * (the event loop cannot inflate it), when the queue is made: `npm start` makes it at boot.
 */
const queues = new Map<number, HashingQueue>();
export function hashingQueue(N: number): HashingQueue {
  let q = queues.get(N);
  if (!q) {
    const started = performance.now();
    scryptSync('calibration', 'calibration-salt', KEY_LENGTH, { N, r: R, p: P, maxmem: maxmem(N, R) });
    queues.set(N, (q = new HashingQueue(undefined, undefined, performance.now() - started)));
  }
  return q;
}

export async function hashPassword(password: string, N: number, ticket: HashTicket = hashingQueue(N).reserve()): Promise<string> {
  const salt = randomBytes(16);
  const key = await ticket.run(() => scryptKey(password, salt, { N }));
  return storedHash(N, salt, key);
}

// A fixed hash to verify against when the player does not exist, so that a wrong
// identifier and a wrong password take the same time.
let decoy: Promise<string> | undefined;

export async function verifyPassword(password: string, stored: string | null, N: number, ticket: HashTicket = hashingQueue(N).reserve()): Promise<boolean> {
  const target = stored ?? (await (decoy ??= hashPassword('decoy-password', N, new HashingQueue(1, Infinity).reserve())));
  const [scheme, n, r, p, salt, hash] = target.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) { ticket.cancel(); return false; }
  const expected = Buffer.from(hash, 'base64');
  const actual = await ticket.run(() => scryptKey(password, Buffer.from(salt, 'base64'), { N: Number(n), r: Number(r), p: Number(p) }));
  return stored !== null && actual.length === expected.length && timingSafeEqual(actual, expected);
}
