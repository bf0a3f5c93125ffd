// A password-hashing thread for the WebAssembly argon2id (api/security/argon2.ts): hash-wasm
// computes on the thread that calls it, so on Node it runs here and the event loop of the
// façade keeps serving other requests. Plain JavaScript so that it needs no loader.
import { parentPort } from 'node:worker_threads';
import { argon2id } from 'hash-wasm';

parentPort.on('message', async (job) => {
  const started = performance.now();
  try {
    const hash = await argon2id({
      password: job.password, salt: job.salt, iterations: job.t, parallelism: job.p, memorySize: job.m,
      hashLength: job.length, outputType: 'binary',
    });
    parentPort.postMessage({ id: job.id, hash, ms: performance.now() - started }, [hash.buffer]);
  } catch (err) {
    parentPort.postMessage({ id: job.id, error: err instanceof Error ? err.message : String(err) });
  }
});
