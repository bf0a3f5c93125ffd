// Password hashing runs here, never in the database: argon2id at OWASP's minimum (19 MiB,
// 2 iterations, 1 lane; MANETTE_ARGON2_MEMORY_KIB, MANETTE_ARGON2_ITERATIONS), 16 bytes of
// salt, 32 bytes of output, stored in the PHC string form every argon2 library reads:
//   $argon2id$v=19$m=19456,t=2,p=1$<salt b64>$<hash b64>   (base64 without padding)
// Which implementation computes it (native on Node, WebAssembly under Deno): ./argon2.ts.
// Hashes made before (scrypt$N$r$p$<salt b64>$<hash b64>, N=2^17, r=8, p=1) still verify;
// a successful login against one, or against an argon2id hash weaker than the settings,
// gets the new hash, stored by the login's finishing call (compare-and-set: only if the
// stored hash is still the one verified).
// Hashing is bounded (docs/api.md): at most `parallelism` hashes at once (one core
// stays free for everything else), and when the hashes already waiting would take more
// than about 2 s, a login or register is refused at once with 503 `unavailable` and
// Retry-After instead of waiting. The places are shared fairly between the games of the
// process: one lane per game, served in turn (HashingQueue).
import { availableParallelism } from 'node:os';
import { randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../errors.js';
import type { Settings } from '../config/settings.js';
import { argon2Backend, isDeno, type Argon2Backend, type Argon2Params, type HasherChoice } from './argon2.js';

const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

/** The cost of new hashes (argon2id, one lane) and the implementation to use. */
export interface PasswordCost { memoryKiB: number; iterations: number; hasher?: HasherChoice }

export const passwordCost = (settings: Pick<Settings, 'MANETTE_ARGON2_MEMORY_KIB' | 'MANETTE_ARGON2_ITERATIONS' | 'MANETTE_PASSWORD_HASHER'>): PasswordCost =>
  ({ memoryKiB: settings.MANETTE_ARGON2_MEMORY_KIB, iterations: settings.MANETTE_ARGON2_ITERATIONS, hasher: settings.MANETTE_PASSWORD_HASHER });

const paramsOf = (cost: PasswordCost): Argon2Params => ({ m: cost.memoryKiB, t: cost.iterations, p: 1 });
const keyOf = (cost: PasswordCost) => `${cost.memoryKiB}/${cost.iterations}/${cost.hasher ?? 'auto'}`;

// -- Stored forms ---------------------------------------------------------------

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64').replace(/=+$/, '');

/** The PHC string of an argon2id hash. */
export function phcString({ m, t, p }: Argon2Params, salt: Uint8Array, hash: Uint8Array): string {
  return `$argon2id$v=19$m=${m},t=${t},p=${p}$${b64(salt)}$${b64(hash)}`;
}

// What a stored hash may ask for: beyond this it is refused rather than computed (a hash
// brought in by an import must not make every login spend a gigabyte).
const LIMITS = { m: 262_144, t: 16, p: 8 };
const B64 = /^[A-Za-z0-9+/]+$/;

type Parsed =
  | { scheme: 'argon2id'; params: Argon2Params; salt: Buffer; hash: Buffer }
  | { scheme: 'scrypt'; N: number; r: number; p: number; salt: Buffer; hash: Buffer };

/** A stored hash in one of the forms this façade reads, or undefined. */
export function parseStoredHash(stored: string): Parsed | undefined {
  const parts = stored.split('$');
  if (parts[0] === 'scrypt' && parts.length === 6) {
    const [, n, r, p, salt, hash] = parts as [string, string, string, string, string, string];
    const [N, R, P] = [Number(n), Number(r), Number(p)];
    if (![N, R, P].every((x) => Number.isSafeInteger(x) && x > 0) || N > 1 << 20 || R > 32 || P > 16 || !B64.test(salt.replace(/=+$/, '')) || !B64.test(hash.replace(/=+$/, ''))) return undefined;
    return { scheme: 'scrypt', N, r: R, p: P, salt: Buffer.from(salt, 'base64'), hash: Buffer.from(hash, 'base64') };
  }
  if (parts[0] === '' && parts[1] === 'argon2id' && parts[2] === 'v=19' && parts.length === 6) {
    const m = /^m=(\d{1,10}),t=(\d{1,10}),p=(\d{1,10})$/.exec(parts[3]!);
    const [salt, hash] = [parts[4]!, parts[5]!];
    if (!m || !B64.test(salt) || !B64.test(hash)) return undefined;
    const params = { m: Number(m[1]), t: Number(m[2]), p: Number(m[3]) };
    const [saltBytes, hashBytes] = [Buffer.from(salt, 'base64'), Buffer.from(hash, 'base64')];
    if (params.p < 1 || params.p > LIMITS.p || params.t < 1 || params.t > LIMITS.t || params.m < 8 * params.p || params.m > LIMITS.m
      || saltBytes.length < 8 || hashBytes.length < 16 || hashBytes.length > 64) return undefined;
    return { scheme: 'argon2id', params, salt: saltBytes, hash: hashBytes };
  }
  return undefined;
}

/** Whether a hash that verified should be replaced by one made with `cost`. */
export function needsRehash(parsed: Parsed, cost: PasswordCost): boolean {
  if (parsed.scheme !== 'argon2id') return true;
  return parsed.params.m < cost.memoryKiB || parsed.params.t < cost.iterations || parsed.hash.length < KEY_LENGTH;
}

// -- Legacy scrypt (verification only) ------------------------------------------

// scrypt needs 128 × N × r bytes; twice that leaves room.
const maxmem = (N: number, r: number) => 256 * N * r;

/** scrypt with a stored hash's parameters: only to verify hashes made before argon2id. */
export function scryptKey(password: string, salt: Buffer, options: { N: number; r: number; p: number }, length = KEY_LENGTH): Promise<Buffer> {
  const { N, r, p } = options;
  return new Promise((resolve, reject) =>
    scryptCb(password, salt, length, { N, r, p, maxmem: maxmem(N, r) }, (err, key) => (err ? reject(err) : resolve(key))));
}

/** The legacy stored form scrypt$N$r$p$<salt b64>$<hash b64> (tests make old hashes with it). */
export async function legacyScryptHash(password: string, N = 131072): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await scryptKey(password, salt, { N, r: 8, p: 1 });
  return `scrypt$${N}$8$1$${salt.toString('base64')}$${key.toString('base64')}`;
}

// -- Admission ------------------------------------------------------------------

/** A place in the hashing queue, taken before any other work so a refusal changes nothing. */
export interface HashTicket { run<T>(fn: () => Promise<T>): Promise<T>; cancel(): void }

/**
 * The lane of requests whose game this process has not seen the database accept yet (a
 * made-up key, or a game's first requests after a start): all share it, so that made-up
 * keys cannot each claim a fair share.
 */
export const UNCONFIRMED_LANE = '';

interface Lane { admitted: number; readonly waiting: Array<() => void> }

/**
 * Hashing places of one process, shared fairly between games (issue 31). Each game (its API
 * key) has a lane: its admitted hashes, waiting in FIFO order; a free hashing place goes to
 * the lanes in turn (round-robin), so a game's flood queues behind itself, not in front of
 * the others. Admission counts what a new hash would wait for under that rotation: the hashes
 * running, the game's own lane, and from every other lane at most as many as its own lane
 * plus this one. Past `maxQueuedMs` of that, 503 at once. A game alone is thus bounded
 * exactly as before the lanes (about 2 s of queued hashes), and another game arriving during
 * its flood waits for a few hashes, not for its backlog. Above all that, the process never
 * holds more than `maxTotalMs` of admitted hashes (twice the per-game bound by default),
 * whatever the number of games.
 */
export class HashingQueue {
  private running = 0;
  private reserved = 0;
  /** Hashes of the tickets admitted and not finished (the CPU bound's count). */
  private heldHashes = 0;
  private readonly lanes = new Map<string, Lane>();
  /** Lanes with a hash waiting for a place, in the order they are served. */
  private readonly rotation: string[] = [];
  /** Recent hash durations: the cost of one hash is their minimum (a busy event loop only adds to a sample). */
  private readonly recentMs: number[] = [];
  private hashMs: number;
  private readonly maxTotalMs: number;

  /**
   * `cpuBoundMs` (the Edge Function): the most hashing, in ms of one hash's duration times
   * the hashes of the tickets admitted and not finished, that the process holds at once,
   * the new ticket's included (a ticket is always admitted when none is held). See
   * EDGE_HASH_CPU_MS.
   */
  constructor(readonly parallelism = Math.max(1, availableParallelism() - 1), private readonly maxQueuedMs = 2_000,
    private calibratedMs = 300, maxTotalMs?: number, readonly cpuBoundMs?: number) {
    this.hashMs = calibratedMs;
    this.maxTotalMs = maxTotalMs ?? 2 * maxQueuedMs;
  }

  /** The duration of one hash the queue counts with (ms): the least of the calibration and the recent hashes. */
  get oneHashMs(): number {
    return this.hashMs;
  }

  /** The duration of one hash measured apart from the event loop: the ceiling of the estimate. */
  calibrate(ms: number): void {
    this.calibratedMs = ms;
    this.hashMs = Math.min(ms, ...this.recentMs);
  }

  private ms(hashes: number): number {
    return (hashes / this.parallelism) * this.hashMs;
  }

  /** The work already admitted in the whole process, in ms of wall time. */
  queuedMs(): number {
    return this.ms(this.running + this.reserved);
  }

  /** The work a new hash of `lane` would find ahead of it, in ms of wall time (round-robin). */
  laneQueuedMs(lane: string = UNCONFIRMED_LANE): number {
    const own = this.lanes.get(lane)?.admitted ?? 0;
    let ahead = this.running + own;
    for (const [name, other] of this.lanes) if (name !== lane) ahead += Math.min(other.admitted, own + 1);
    return this.ms(ahead);
  }

  /** Counts only (tests, diagnostics): places running, admitted not yet running, and per lane. */
  snapshot(): { running: number; reserved: number; lanes: Record<string, { admitted: number; waiting: number }> } {
    const lanes: Record<string, { admitted: number; waiting: number }> = {};
    for (const [name, l] of this.lanes) lanes[name] = { admitted: l.admitted, waiting: l.waiting.length };
    return { running: this.running, reserved: this.reserved, lanes };
  }

  /** `hashes`: how many hashes the ticket's work computes (a keyed registration: 2), for the CPU bound. */
  reserve(lane: string = UNCONFIRMED_LANE, hashes = 1): HashTicket {
    const held = this.running + this.reserved;
    if (this.cpuBoundMs !== undefined && this.heldHashes > 0 && (this.heldHashes + hashes) * this.hashMs > this.cpuBoundMs) {
      // Retry once the hashes held are done (a fresh worker may take it by then).
      throw new ApiError(503, 'unavailable', { retryAfter: Math.max(1, Math.ceil((this.heldHashes * this.hashMs) / this.parallelism / 1000)) });
    }
    this.heldHashes += hashes;
    let holding = true;
    const unhold = () => { if (holding) { holding = false; this.heldHashes -= hashes; } };
    if (held >= this.parallelism) {
      const [own, total] = [this.laneQueuedMs(lane), this.queuedMs()];
      if (own > this.maxQueuedMs || total > this.maxTotalMs) {
        unhold();
        throw new ApiError(503, 'unavailable', { retryAfter: Math.max(1, Math.ceil((total > this.maxTotalMs ? total : own) / 1000)) });
      }
    }
    let l = this.lanes.get(lane);
    if (!l) this.lanes.set(lane, (l = { admitted: 0, waiting: [] }));
    const own = l;
    own.admitted++;
    this.reserved++;
    let settled = false;
    const release = () => {
      if (settled) return;
      settled = true;
      this.reserved--;
      own.admitted--;
      if (own.admitted === 0 && own.waiting.length === 0 && this.lanes.get(lane) === own) this.lanes.delete(lane);
    };
    return {
      run: async <T>(fn: () => Promise<T>): Promise<T> => {
        if (settled) throw new Error('hash ticket already used');
        if (this.running < this.parallelism && this.rotation.length === 0) this.running++;
        else {
          // Wait for a place handed over by a finishing hash (running stays counted).
          await new Promise<void>((resolve) => {
            own.waiting.push(resolve);
            if (own.waiting.length === 1) this.rotation.push(lane);
          });
        }
        release();
        const started = performance.now();
        try {
          return await fn();
        } finally {
          unhold();
          this.recentMs.push(performance.now() - started);
          if (this.recentMs.length > 20) this.recentMs.shift();
          this.hashMs = Math.min(this.calibratedMs, ...this.recentMs);
          this.handOver();
        }
      },
      cancel: () => { if (!settled) { release(); unhold(); } },
    };
  }

  /** A place is free: to the first waiting hash of the next lane in turn, or back to the pool. */
  private handOver(): void {
    const name = this.rotation.shift();
    const l = name === undefined ? undefined : this.lanes.get(name);
    const next = l?.waiting.shift();
    if (!next) { this.running--; return; }
    if (l!.waiting.length > 0) this.rotation.push(name!);
    next();
  }
}

// The games this process has seen the database accept (bounded, oldest forgotten first):
// only they get a lane of their own.
const MAX_CONFIRMED = 10_000;
const confirmed = new Set<string>();

/** Records that the database accepted `key` (a request with it got past its SQL call). */
export function confirmHashingKey(key: string | undefined): void {
  if (!key) return;
  confirmed.delete(key);
  confirmed.add(key);
  if (confirmed.size > MAX_CONFIRMED) confirmed.delete(confirmed.values().next().value!);
}

/** A business error raised in SQL (MNxxx), other than on the key itself: the key was accepted. */
const acceptsKey = (err: unknown) => {
  const e = err as { code?: unknown; message?: unknown };
  return typeof e?.code === 'string' && /^MN\d{3}$/.test(e.code) && e.message !== 'missing_key' && e.message !== 'invalid_key';
};

/** `call` (the request's SQL call after its hash), confirming `key` when the database answered about anything but the key. */
export async function confirmedBy<T>(key: string | undefined, call: Promise<T>): Promise<T> {
  try {
    const result = await call;
    confirmHashingKey(key);
    return result;
  } catch (err) {
    if (acceptsKey(err)) confirmHashingKey(key);
    throw err;
  }
}

/** The lane of a request's API key: its own once confirmed, the shared one until then. */
export function hashingLane(key: string | undefined): string {
  return key && confirmed.has(key) ? key : UNCONFIRMED_LANE;
}

interface Hasher { queue: HashingQueue; backend: Argon2Backend; params: Argon2Params }
const hashers = new Map<string, Hasher>();

/**
 * The Edge Function's bound on the hashing one worker holds at once (running and waiting),
 * in ms of CPU: Supabase's edge runtime retires a worker whose accumulated CPU time passes
 * its soft limit (no new request goes to it) and terminates it, failing every request in
 * flight, at its hard limit (1 s and 2 s in the Supabase CLI's emulation of hosted;
 * docs/deploy.md, "Limits of Edge Functions"). Whatever a worker has used before, the CPU
 * it can still spend once past the soft limit is that of the requests it holds then; a
 * hash (55–125 ms of CPU, on the function's only thread) is nearly all of a login's or a
 * register's. Holding at most 600 ms of hashes leaves 400 ms of the 1 s between the limits
 * for the rest of those requests, so a burst of logins never gets a request terminated:
 * past the bound, 503 `unavailable` with Retry-After, and the client's retry finds the
 * hashes done or a fresh worker. A hash's duration counts as its CPU time (it computes on
 * the calling thread, so its wall time is at least its CPU time). MANETTE_EDGE_HASH_CPU_MS
 * changes it (0: no bound); only under Deno by default.
 */
export const EDGE_HASH_CPU_MS = 600;

/**
 * One queue per process and cost, with its implementation. The cost of one hash is
 * measured when the queue is made (`npm start` and the Edge Function make it at boot):
 * synchronously with the native implementation, by one hash in a thread with WebAssembly
 * (until then a guess from the cost stands in). `parallelism`: hashes at once (default all
 * cores but one; 1 under Deno, where an Edge Function's CPU is one core's share at most).
 */
function hasher(cost: PasswordCost, parallelism?: number, cpuBoundMs?: number): Hasher {
  const key = keyOf(cost);
  let h = hashers.get(key);
  if (!h) {
    const params = paramsOf(cost);
    const backend = argon2Backend(cost.hasher ?? 'auto', parallelism ?? (isDeno ? 1 : Math.max(1, availableParallelism() - 1)));
    const bound = cpuBoundMs ?? (isDeno ? EDGE_HASH_CPU_MS : 0);
    // About 2.5 ms per MiB-pass for WebAssembly here, 0.6 for native: the slower, until measured.
    const queue = new HashingQueue(backend.threads, undefined, Math.max(1, (params.m / 1024) * params.t * 2.5), undefined, bound > 0 ? bound : undefined);
    const measured = backend.measure(params);
    if (typeof measured === 'number') queue.calibrate(measured);
    else measured.then((ms) => queue.calibrate(ms), () => { /* the guess stays; a real hash will fail loudly */ });
    hashers.set(key, (h = { queue, backend, params }));
  }
  return h;
}

/** The queue of a cost (made at the first call: `parallelism` and `cpuBoundMs`, EDGE_HASH_CPU_MS, apply then). */
export function hashingQueue(cost: PasswordCost, parallelism?: number, cpuBoundMs?: number): HashingQueue {
  return hasher(cost, parallelism, cpuBoundMs).queue;
}

/**
 * A place in the hashing queue first (in the lane of the request's API key `key`), then
 * `start` (the SQL call that counts a password attempt): when hashing is saturated, 503
 * before the attempt is counted. The place is given back when `start` fails; the caller
 * spends it on checkPassword, or cancels it. `start` answering confirms the key.
 */
export async function reserveHashThen<T>(cost: PasswordCost, start: () => Promise<T>, key?: string): Promise<{ ticket: HashTicket; started: T }> {
  const ticket = hashTicket(cost, key);
  try {
    return { ticket, started: await confirmedBy(key, start()) };
  } catch (err) {
    ticket.cancel();
    throw err;
  }
}

/** A place in the hashing queue, in the lane of the request's API key (see hashingLane), for `hashes` hashes. */
export function hashTicket(cost: PasswordCost, key: string | undefined, hashes = 1): HashTicket {
  return hashingQueue(cost).reserve(hashingLane(key), hashes);
}

/** argon2id of `password` with the cost's parameters (or `params`), `length` bytes, in the caller's ticket. */
export function argon2idKey(password: string, salt: Uint8Array, cost: PasswordCost, length = KEY_LENGTH, params?: Argon2Params): Promise<Uint8Array> {
  const h = hasher(cost);
  return h.backend.hash(password, salt, params ?? h.params, length);
}

/** A new stored hash: $argon2id$v=19$m=…,t=…,p=1$<salt>$<hash>. */
export async function hashPassword(password: string, cost: PasswordCost, ticket: HashTicket = hashingQueue(cost).reserve()): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await ticket.run(() => argon2idKey(password, salt, cost));
  return phcString(paramsOf(cost), salt, key);
}

async function matches(password: string, parsed: Parsed, cost: PasswordCost): Promise<boolean> {
  const actual = parsed.scheme === 'scrypt'
    ? await scryptKey(password, parsed.salt, parsed, parsed.hash.length)
    : await argon2idKey(password, parsed.salt, cost, parsed.hash.length, parsed.params);
  return actual.length === parsed.hash.length && timingSafeEqual(actual, parsed.hash);
}

// A fixed hash to verify against when the player does not exist, so that a wrong
// identifier and a wrong password take the same time (as long as the player's hash has
// the current cost: a player still on scrypt takes longer until their next login).
const decoys = new Map<string, Promise<string>>();
const decoyFor = (cost: PasswordCost) => {
  let d = decoys.get(keyOf(cost));
  if (!d) {
    decoys.set(keyOf(cost), (d = hashPassword('decoy-password', cost, new HashingQueue(1, Infinity).reserve())));
    d.catch(() => decoys.delete(keyOf(cost)));
  }
  return d;
};

/**
 * Checks `password` against a stored hash (null: against the decoy, and false). When it
 * matches a hash older or weaker than `cost` and `opts.rehash` is set, also makes the new
 * hash, in the same place of the queue: `rehash` is then the hash to store.
 */
export async function checkPassword(
  password: string, stored: string | null, cost: PasswordCost,
  ticket: HashTicket = hashingQueue(cost).reserve(), opts: { rehash?: boolean } = {},
): Promise<{ ok: boolean; rehash?: string }> {
  let target: string;
  try {
    target = stored ?? (await decoyFor(cost));
  } catch (err) {
    ticket.cancel();
    throw err;
  }
  const parsed = parseStoredHash(target);
  if (!parsed) { ticket.cancel(); return { ok: false }; }
  return ticket.run(async () => {
    const ok = (await matches(password, parsed, cost)) && stored !== null;
    if (!ok || !opts.rehash || !needsRehash(parsed, cost)) return { ok };
    const salt = randomBytes(SALT_LENGTH);
    return { ok, rehash: phcString(paramsOf(cost), salt, await argon2idKey(password, salt, cost)) };
  });
}

export async function verifyPassword(password: string, stored: string | null, cost: PasswordCost, ticket?: HashTicket): Promise<boolean> {
  return (await checkPassword(password, stored, cost, ticket)).ok;
}
