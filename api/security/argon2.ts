// argon2id (RFC 9106, version 0x13) for password hashes, from one of two implementations of
// the same function (their outputs are identical; test/passwords.test.ts checks it):
// - `native`: @node-rs/argon2 (Rust's argon2 crate through N-API; the binary comes in a
//   per-platform optional package, no install script). It runs on libuv's thread pool, so
//   it never blocks the event loop. About 4× faster than the WebAssembly one here
//   (bench/password-hash.ts): Node uses it whenever its platform package loads.
// - `wasm`: hash-wasm (WebAssembly, no native code): the Edge Function under Deno, where
//   Supabase allows no native addon, and Node when the native package is missing. hash-wasm
//   computes on the calling thread, so on Node it runs in worker threads (argon2-worker.js).
//   node:worker_threads is imported only when a first thread is started, never at load:
//   Supabase's edge runtime cannot start one (its Worker constructor throws), and the
//   Edge Function's bundle carries no worker module, so the function calls
//   hashOnCallingThread() at start. Where threads are off, or a thread cannot be started or
//   load its module, hashes run on the calling thread, one at a time, blocking the event
//   loop while each runs (about 50 ms at OWASP's cost).
import { createRequire } from 'node:module';
import type { Worker } from 'node:worker_threads';
import { argon2id as wasmArgon2id } from 'hash-wasm';

/** argon2id's cost: memory in KiB, iterations, lanes. */
export interface Argon2Params { m: number; t: number; p: number }

export type HasherChoice = 'auto' | 'native' | 'wasm';

export interface Argon2Backend {
  readonly name: 'native' | 'wasm-threads' | 'wasm';
  /** How many hashes this backend runs at once with benefit (the hashing queue's parallelism). */
  readonly threads: number;
  hash(password: string, salt: Uint8Array, params: Argon2Params, length: number): Promise<Uint8Array>;
  /** The duration of one hash in ms, measured where the event loop cannot inflate it. */
  measure(params: Argon2Params): number | Promise<number>;
}

export const isDeno = typeof (globalThis as { Deno?: unknown }).Deno !== 'undefined';

interface NativeArgon2 {
  hashRaw(password: string, options: NativeOptions): Promise<Buffer>;
  hashRawSync(password: string, options: NativeOptions): Buffer;
}
interface NativeOptions { algorithm: number; version: number; memoryCost: number; timeCost: number; parallelism: number; outputLen: number; salt: Uint8Array }
const ARGON2ID = 2; // @node-rs/argon2's Algorithm.Argon2id (a const enum)
const V0x13 = 1; // its Version.V0x13

let native: NativeArgon2 | null | undefined;
/** @node-rs/argon2, or null where it cannot load (Deno, a platform without its binary). */
export function loadNative(): NativeArgon2 | null {
  if (native !== undefined) return native;
  if (isDeno) return (native = null);
  try {
    // Not a literal: bundlers (Supabase's) must not try to pull the native package in.
    const name = ['@node-rs', 'argon2'].join('/');
    native = createRequire(import.meta.url)(name) as NativeArgon2;
    native.hashRawSync('probe', nativeOptions(new Uint8Array(8), { m: 8, t: 1, p: 1 }, 32));
  } catch {
    native = null;
  }
  return native;
}

const nativeOptions = (salt: Uint8Array, { m, t, p }: Argon2Params, length: number): NativeOptions =>
  ({ algorithm: ARGON2ID, version: V0x13, memoryCost: m, timeCost: t, parallelism: p, outputLen: length, salt });

function nativeBackend(lib: NativeArgon2, threads: number): Argon2Backend {
  return {
    name: 'native',
    threads,
    hash: async (password, salt, params, length) => new Uint8Array(await lib.hashRaw(password, nativeOptions(salt, params, length))),
    measure(params) {
      const started = performance.now();
      lib.hashRawSync('calibration', nativeOptions(new Uint8Array(16), params, 32));
      return performance.now() - started;
    },
  };
}

const wasmHash = (password: string, salt: Uint8Array, { m, t, p }: Argon2Params, length: number) =>
  wasmArgon2id({ password, salt, iterations: t, parallelism: p, memorySize: m, hashLength: length, outputType: 'binary' });

let threadsAllowed = true;
/** Every WebAssembly hash on the calling thread, no worker thread tried (the Edge Function). */
export function hashOnCallingThread(): void {
  threadsAllowed = false;
}

type WorkerClass = typeof Worker;
let workerClass: Promise<WorkerClass | null> | undefined;
/** node:worker_threads' Worker, imported on first use; null where the runtime has none. */
function loadWorkerClass(): Promise<WorkerClass | null> {
  workerClass ??= import('node:worker_threads').then((m) => m.Worker ?? null, () => null);
  return workerClass;
}

interface Job {
  password: string; salt: Uint8Array; params: Argon2Params; length: number;
  resolve: (r: { hash: Uint8Array; ms: number }) => void; reject: (err: Error) => void;
}

/** hash-wasm in `threads` worker threads, started on demand, unreferenced while idle; or on this thread where threads fail. */
export class WasmThreads implements Argon2Backend {
  private readonly idle: Worker[] = [];
  /** Set when a thread could not start or load: every hash then runs on this thread. */
  private mainThread = !threadsAllowed;
  /** node:worker_threads' Worker once imported (null: none here); undefined until then. */
  private Worker: WorkerClass | null | undefined;
  private loading = false;
  private readonly proven = new WeakSet<Worker>();
  private started = 0;
  private readonly jobs: Job[] = [];
  private nextId = 0;

  constructor(readonly threads: number) {}

  get name(): 'wasm-threads' | 'wasm' { return this.mainThread ? 'wasm' : 'wasm-threads'; }

  hash(password: string, salt: Uint8Array, params: Argon2Params, length: number): Promise<Uint8Array> {
    return this.run(password, salt, params, length).then((r) => r.hash);
  }

  async measure(params: Argon2Params): Promise<number> {
    await this.run('warm-up', new Uint8Array(16), { m: 8, t: 1, p: 1 }, 32);
    return (await this.run('calibration', new Uint8Array(16), params, 32)).ms;
  }

  private run(password: string, salt: Uint8Array, params: Argon2Params, length: number) {
    return new Promise<{ hash: Uint8Array; ms: number }>((resolve, reject) => {
      this.jobs.push({ password, salt, params, length, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    if (!this.mainThread && !threadsAllowed) this.mainThread = true;
    if (!this.mainThread && this.Worker === undefined && this.jobs.length > 0) {
      if (!this.loading) {
        this.loading = true;
        void loadWorkerClass().then((cls) => {
          this.Worker = cls;
          if (!cls) this.mainThread = true;
          this.pump();
        });
      }
      return;
    }
    if (this.mainThread) {
      // A hash blocks this thread while it runs: each waits for the event loop to serve what
      // arrived first (a refusal, another request), so hashes back to back never starve it.
      for (const job of this.jobs.splice(0)) {
        setImmediate(() => {
          const started = performance.now();
          wasmHash(job.password, job.salt, job.params, job.length)
            .then((hash) => job.resolve({ hash, ms: performance.now() - started }), job.reject);
        });
      }
      return;
    }
    while (this.jobs.length > 0) {
      let worker = this.idle.pop();
      if (!worker) {
        if (this.started >= this.threads) return;
        worker = this.spawn();
        if (!worker) return this.pump();
      }
      this.assign(worker, this.jobs.shift()!);
    }
  }

  private spawn(): Worker | undefined {
    try {
      const worker = new this.Worker!(new URL('./argon2-worker.js', import.meta.url));
      this.started++;
      worker.unref();
      return worker;
    } catch {
      this.mainThread = true;
      return undefined;
    }
  }

  private assign(worker: Worker, job: Job): void {
    const id = this.nextId++;
    // Every wait is bounded: a thread that does not answer (it could not start, or hangs)
    // is treated as one that failed.
    const timer = setTimeout(() => onFailure(new Error(`argon2id thread did not answer in ${THREAD_ANSWER_MS} ms`)), THREAD_ANSWER_MS);
    timer.unref();
    const done = () => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onFailure);
      worker.off('exit', onFailure);
      worker.unref();
    };
    const onMessage = (msg: { id: number; hash?: Uint8Array; ms?: number; error?: string }) => {
      if (msg.id !== id) return;
      done();
      this.proven.add(worker);
      this.idle.push(worker);
      if (msg.error !== undefined || !msg.hash) job.reject(new Error(`argon2id: ${msg.error ?? 'no output'}`));
      else job.resolve({ hash: msg.hash, ms: msg.ms ?? 0 });
      this.pump();
    };
    // A thread that fails is dropped and replaced at the next job; one that fails before any
    // hash (no workers here, its module missing) sends every hash to this thread.
    const onFailure = (err: unknown) => {
      done();
      this.started--;
      void worker.terminate();
      if (!this.proven.has(worker)) {
        this.mainThread = true;
        this.jobs.unshift(job);
      } else {
        job.reject(err instanceof Error ? err : new Error(`argon2id thread exited (${String(err)})`));
      }
      this.pump();
    };
    worker.on('message', onMessage);
    worker.once('error', onFailure);
    worker.once('exit', onFailure);
    worker.ref();
    const { password, salt, params, length } = job;
    worker.postMessage({ id, password, salt, m: params.m, t: params.t, p: params.p, length });
  }
}

/** The longest a hashing thread may take to answer (a hash takes about 50 ms at OWASP's cost). */
const THREAD_ANSWER_MS = 10_000;

const threadPools = new Map<number, WasmThreads>();

/**
 * The implementation for `choice` with up to `threads` hashes at once: `auto` is the
 * native one when it loads, else WebAssembly; `native` fails at boot when it cannot load.
 */
export function argon2Backend(choice: HasherChoice, threads: number): Argon2Backend {
  if (choice !== 'wasm') {
    const lib = loadNative();
    if (lib) return nativeBackend(lib, threads);
    if (choice === 'native') throw new Error('MANETTE_PASSWORD_HASHER=native: @node-rs/argon2 cannot load here (Deno, or no binary for this platform)');
  }
  let pool = threadPools.get(threads);
  if (!pool) threadPools.set(threads, (pool = new WasmThreads(threads)));
  return pool;
}
