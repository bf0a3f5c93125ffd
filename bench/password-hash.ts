// Password hashing candidates at OWASP's minimum for argon2id (m=19456 KiB, t=2, p=1,
// 16-byte salt, 32-byte output), hashes/s with 1 and 2 hashes in flight, and the event
// loop's worst lateness meanwhile (a 5 ms timer; what other requests would wait):
//   - @node-rs/argon2 (Rust through N-API, per-platform binary packages, libuv threads),
//   - hash-wasm (WebAssembly) on the calling thread, and in worker threads (as the façade
//     runs it: api/security/argon2.ts),
//   - argon2 (node-gyp addon with prebuilt binaries) when installed: not a dependency of
//     Manette; `npm install --prefix /tmp/c argon2` then PASSWORD_BENCH_MODULES=/tmp/c,
//   - scrypt N=2^17, r=8 (node:crypto), the hash used before, for reference,
// then the same under Deno (the Edge Function's runtime): hash-wasm, and scrypt.
//
//   npm run bench -- bench/password-hash.ts [--count 200] [--seconds 5]
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { spawn } from 'node:child_process';
import { randomBytes, scrypt } from 'node:crypto';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { argon2Backend, isDeno, loadNative, WasmThreads, type Argon2Params } from '../api/security/argon2.js';
import { hashRate, type HashRate } from './hash-rate.js';

const argv = process.argv;
const arg = (name: string, fallback: number) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
};
const bound = { count: arg('count', 200), ms: arg('seconds', 5) * 1000 };
const PARAMS: Argon2Params = { m: 19456, t: 2, p: 1 };
const salt = () => randomBytes(16);

interface Row extends HashRate { runtime: string; candidate: string }
const rows: Row[] = [];

async function measure(runtime: string, candidate: string, make: (concurrency: number) => (() => Promise<unknown>) | undefined) {
  for (const concurrency of [1, 2]) {
    const fn = make(concurrency);
    if (!fn) continue;
    try {
      rows.push({ runtime, candidate, ...(await hashRate(fn, concurrency, bound)) });
    } catch (err) {
      console.error(`${runtime} ${candidate}: ${(err as Error).message}`);
    }
  }
}

const scryptOld = () => new Promise((resolve, reject) =>
  scrypt('correct horse', salt(), 32, { N: 131072, r: 8, p: 1, maxmem: 256 * 131072 * 8 }, (e, k) => (e ? reject(e) : resolve(k))));

async function denoCandidates(runtime: string) {
  const { argon2id } = await import('hash-wasm');
  await measure(runtime, 'hash-wasm, calling thread', () =>
    () => argon2id({ password: 'correct horse', salt: salt(), iterations: PARAMS.t, parallelism: PARAMS.p, memorySize: PARAMS.m, hashLength: 32, outputType: 'binary' }));
  await measure(runtime, 'hash-wasm, worker threads', (c) => {
    const threads = new WasmThreads(c);
    return () => threads.hash('correct horse', salt(), PARAMS, 32);
  });
  await measure(runtime, 'scrypt N=2^17 r=8 (before)', () => scryptOld);
}

if (isDeno && argv.includes('--deno-child')) {
  await denoCandidates(`Deno ${(globalThis as { Deno?: { version: { deno: string } } }).Deno?.version.deno}`);
  console.log(JSON.stringify(rows));
  process.exit(0);
}

// == Node =====================================================================
const node = `Node ${process.versions.node}`;
if (loadNative()) {
  await measure(node, '@node-rs/argon2 (native)', (c) => {
    const native = argon2Backend('native', c);
    return () => native.hash('correct horse', salt(), PARAMS, 32);
  });
} else {
  console.error('@node-rs/argon2 does not load here: skipped');
}
await denoCandidates(node);

// argon2 (node-gyp-build): only where it is installed, from here or PASSWORD_BENCH_MODULES.
{
  const from = process.env.PASSWORD_BENCH_MODULES
    ? path.join(path.resolve(process.env.PASSWORD_BENCH_MODULES), 'package.json') : import.meta.url;
  let lib: any;
  try {
    lib = createRequire(from)('argon2');
  } catch {
    console.error('argon2 (node-gyp) not installed: skipped (npm install --prefix /tmp/c argon2; PASSWORD_BENCH_MODULES=/tmp/c)');
  }
  if (lib) {
    await measure(node, 'argon2 (node-gyp, prebuilt)', () => () => lib.hash('correct horse', {
      type: lib.argon2id, memoryCost: PARAMS.m, timeCost: PARAMS.t, parallelism: PARAMS.p, hashLength: 32, salt: salt(), raw: true,
    }));
  }
}

// == Deno =====================================================================
// The Deno of the `deno` package (its platform package's binary), running this file's sources with the
// repository's node_modules (bench/deno.json). The Edge Function itself runs its bundle (api/edge/bundle.ts).
const deno = (() => {
  const req = createRequire(import.meta.url);
  for (const pkg of [`@deno/${process.platform}-${process.arch}${process.platform === 'linux' ? '-glibc' : ''}`, 'deno']) {
    try {
      const file = path.join(path.dirname(req.resolve(`${pkg}/package.json`)), process.platform === 'win32' ? 'deno.exe' : 'deno');
      if (existsSync(file)) return file;
    } catch { /* not installed */ }
  }
  return undefined;
})();
if (deno) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(deno, ['run', '--config', path.join(root, 'bench/deno.json'), '--cached-only', '--no-prompt',
      '--allow-read', '--allow-env', '--allow-sys', '--allow-net', fileURLToPath(import.meta.url), '--deno-child',
      '--count', String(bound.count), '--seconds', String(bound.ms / 1000)], {
      cwd: root, env: { ...process.env, DENO_NO_UPDATE_CHECK: '1' }, stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    child.stdout.on('data', (d: Buffer) => { text += d.toString(); });
    child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`deno exited ${code}`))));
  });
  rows.push(...(JSON.parse(out.trim().split('\n').at(-1)!) as Row[]));
} else {
  console.error('deno not installed: the Deno rows are skipped');
}

const f = (v: number, d = 1) => v.toFixed(d);
console.log(`\nargon2id m=${PARAMS.m} KiB, t=${PARAMS.t}, p=${PARAMS.p}, 32-byte output (scrypt: N=2^17, r=8, p=1); ${bound.count} hashes or ${bound.ms / 1000} s each\n`);
console.log('| runtime | candidate | in flight | hashes/s | mean ms | event loop late, max ms |');
console.log('|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(`| ${r.runtime} | ${r.candidate} | ${r.concurrency} | ${f(r.perSecond)} | ${f(r.meanMs)} | ${f(r.loopLagMaxMs)} |`);
}
