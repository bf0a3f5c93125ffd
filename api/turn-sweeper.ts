// The sweep of expired turns (docs/matches.md, Turn timers): every second, one call of
// api.sweep_expired_turns() on the façade's own pool, as manette_api (which may execute
// api.* only; the function itself runs as manette_admin, whose policies see every game's
// matches). Reads and actions of a match also apply its expired turn themselves; the sweep
// is for the matches nobody looks at. Any number of processes may run it: one sweep runs at a
// time in the database (pg_try_advisory_xact_lock; another returns at once) and an expiry is
// applied once, under the match's row lock. Each run is recorded in manette.sweep_runs
// (path `api`), which `manette doctor` and the console read. The Edge Function does not run
// it: a Supabase project schedules manette.sweep_expired_turns() with pg_cron instead.
import type { Logger } from 'pino';
import { runAsApi, type Pool } from './db/pool.js';
import { startBackgroundTask, type BackgroundTask } from './background-task.js';

export const SWEEP_INTERVAL_MS = 1_000;

export type TurnSweeper = BackgroundTask;

/** Starts sweeping every `intervalMs` (the next sweep is planned when the last one ends, so they never overlap). */
export function startTurnSweeper(pool: Pool, logger: Logger, intervalMs = SWEEP_INTERVAL_MS): TurnSweeper {
  return startBackgroundTask('sweep of expired turns', async () => {
    const [row] = await runAsApi<{ applied: number }>(pool, 'select api.sweep_expired_turns() as applied');
    if (row && row.applied > 0) logger.debug({ matches: row.applied }, 'expired turns applied');
    return false;
  }, logger, intervalMs);
}
