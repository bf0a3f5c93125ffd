// Hashes per second of one password-hashing function with `concurrency` hashes in flight,
// bounded by count and time, and how late the event loop ran meanwhile (a 5 ms timer's
// worst lateness): shared by bench/password-hash.ts and bench/login.ts. Runs under Node
// and Deno alike.

export interface HashRate { concurrency: number; hashes: number; perSecond: number; meanMs: number; loopLagMaxMs: number; loopLagP99Ms: number }

export async function hashRate(
  hash: () => Promise<unknown>, concurrency: number, bound: { count: number; ms: number } = { count: 200, ms: 5_000 },
): Promise<HashRate> {
  for (let i = 0; i < concurrency; i++) await hash(); // warm-up (module, threads, memory)
  const lags: number[] = [];
  let expected = performance.now() + 5;
  const timer = setInterval(() => {
    const now = performance.now();
    lags.push(Math.max(0, now - expected));
    expected = now + 5;
  }, 5);
  const durations: number[] = [];
  const started = performance.now();
  let issued = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (issued < bound.count && performance.now() - started < bound.ms) {
      issued++;
      const t = performance.now();
      await hash();
      durations.push(performance.now() - t);
    }
  }));
  const elapsed = performance.now() - started;
  // A loop that never yielded to timers (hashing on this thread) shows as one long lateness.
  lags.push(Math.max(0, performance.now() - expected));
  clearInterval(timer);
  lags.sort((a, b) => a - b);
  return {
    concurrency,
    hashes: durations.length,
    perSecond: (durations.length / elapsed) * 1000,
    meanMs: durations.reduce((a, b) => a + b, 0) / Math.max(1, durations.length),
    loopLagMaxMs: lags.at(-1) ?? 0,
    loopLagP99Ms: lags[Math.min(lags.length - 1, Math.floor(lags.length * 0.99))] ?? 0,
  };
}
