// A task the Node host repeats beside the API (the sweep of expired turns, the delivery of
// notifications): the next run is planned when the last one ends, so runs never overlap; a
// run that asks for more runs again at once. A failing run (the database away) is said once,
// and so is its recovery; stop() waits for a run under way, never cut in the middle.
import type { Logger } from 'pino';

export interface BackgroundTask {
  /** Stops the timer and waits for a run under way. */
  stop(): Promise<void>;
}

/**
 * Runs `run` every `intervalMs` (at once again when it resolves true). `what` names it in the
 * log: "<what> failed; retrying every second", then "<what> running again".
 */
export function startBackgroundTask(what: string, run: () => Promise<boolean>, logger: Logger, intervalMs: number): BackgroundTask {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let failing = false;
  let more = false;

  const once = async () => {
    try {
      more = await run();
      if (failing) logger.info(`${what} running again`);
      failing = false;
    } catch (err) {
      more = false;
      // The database is away (restart, network): the next tick tries again; said once.
      if (!failing) logger.warn({ err: (err as Error).message }, `${what} failed; retrying every second`);
      failing = true;
    }
  };
  const plan = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = once().finally(() => { running = undefined; plan(); });
    }, more ? 0 : intervalMs);
    timer.unref();
  };
  plan();

  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
