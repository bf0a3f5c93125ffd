// Waiting for something a test cannot be told about directly (a realtime event arrived, a
// row appeared): poll a condition until it holds. A bound only turns a hang into a
// readable failure; no test asserts on time.

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Resolves with the first value of `fn` that is neither undefined nor false (polling every `everyMs`). */
export async function waitUntil<V>(
  fn: () => V | undefined | false | Promise<V | undefined | false>, what = 'condition', timeoutMs = 5_000, everyMs = 10,
): Promise<V> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}
