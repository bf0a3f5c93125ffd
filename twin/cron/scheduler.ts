// The twin's pg_cron (twin/README.md, pg_cron): the `cron` schema of pg_cron 1.6 installed by
// the superuser on one database (stand-in.sql), and a scheduler that runs its jobs as
// pg_cron's launcher does without background workers (citusdata/pg_cron src/pg_cron.c):
// for each due job, a new connection AS THE JOB'S USER (cron.job.username: `postgres` for
// a job scheduled as postgres, never the superuser), the command sent as one simple query,
// one row per run in cron.job_run_details (starting → running → succeeded/failed, the
// return message "N rows" or the command tag, or the error), one instance of a job at a
// time, schedules in UTC (cron.timezone = GMT). Plays Supabase on the developer's machine
// and in the tests; never installed on a project.
import { readFile } from 'node:fs/promises';
import pg from 'pg';

const STAND_IN_SQL = new URL('./stand-in.sql', import.meta.url);

/** Creates the `cron` stand-in on the database of `adminUrl` (the superuser's URL), idempotent. */
export async function installCronStandIn(adminUrl: string): Promise<void> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    await c.query(await readFile(STAND_IN_SQL, 'utf8'));
  } finally {
    await c.end();
  }
}

/** One field of a cron schedule: the values it allows, in [min, max]. */
function field(text: string, min: number, max: number): Set<number> {
  const out = new Set<number>();
  for (const part of text.split(',')) {
    const m = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(part);
    if (!m) throw new Error(`cron field not understood by the twin: ${part}`);
    const from = m[1] === '*' ? min : Number(m[2]);
    const to = m[1] === '*' ? max : m[3] !== undefined ? Number(m[3]) : m[4] !== undefined ? max : from;
    const step = m[4] !== undefined ? Number(m[4]) : 1;
    if (from < min || to > max || from > to || step < 1) throw new Error(`cron field out of range: ${part}`);
    for (let v = from; v <= to; v += step) out.add(v);
  }
  return out;
}

export type Schedule = { kind: 'seconds'; seconds: number } | { kind: 'cron'; matches(minute: Date): boolean };

/** pg_cron's two forms: '[1-59] seconds', or minute hour day-of-month month day-of-week (UTC). */
export function parseSchedule(schedule: string): Schedule {
  const s = /^\s*(\d+)\s+seconds?\s*$/.exec(schedule);
  if (s) {
    const seconds = Number(s[1]);
    if (seconds < 1 || seconds > 59) throw new Error(`invalid schedule: ${schedule}`);
    return { kind: 'seconds', seconds };
  }
  const parts = schedule.trim().split(/\s+/);
  if (parts.length !== 5) throw new Error(`invalid schedule: ${schedule}`);
  const [mi, h, dom, mon, dow] = [field(parts[0]!, 0, 59), field(parts[1]!, 0, 23), field(parts[2]!, 1, 31), field(parts[3]!, 1, 12), field(parts[4]!, 0, 7)];
  if (dow.has(7)) dow.add(0);
  const domAny = parts[2] === '*';
  const dowAny = parts[4] === '*';
  return {
    kind: 'cron',
    matches(t: Date) {
      if (!mi.has(t.getUTCMinutes()) || !h.has(t.getUTCHours()) || !mon.has(t.getUTCMonth() + 1)) return false;
      // As cron: when both day fields are restricted, either may match.
      const d = dom.has(t.getUTCDate());
      const w = dow.has(t.getUTCDay());
      return domAny && dowAny ? true : domAny ? w : dowAny ? d : d || w;
    },
  };
}

interface JobRow { jobid: string; jobname: string | null; schedule: string; command: string; database: string; username: string; active: boolean }

export interface CronRun { runid: string; status: 'succeeded' | 'failed'; return_message: string }

export interface CronScheduler {
  /** Runs one job now as the scheduler would at its time (a daily job in a test), recorded likewise. */
  runJob(jobname: string): Promise<CronRun>;
  /** Stops planning runs and waits for the runs under way. */
  stop(): Promise<void>;
}

/**
 * Runs the jobs of cron.job of the database of `adminUrl` (read as the superuser, as the
 * launcher does). `userUrl(username)` is the URL the job's user logs in with (pg_cron
 * connects to localhost with the job's user name; on the twin, users have passwords);
 * a job of a user without one fails as pg_cron's does when it cannot connect.
 */
export function startCronScheduler(opts: { adminUrl: string; userUrl: (username: string) => string | undefined; tickMs?: number }): CronScheduler {
  const tickMs = opts.tickMs ?? 100;
  const admin = new pg.Pool({ connectionString: opts.adminUrl, max: 2 });
  admin.on('error', () => {});
  const running = new Map<string, Promise<CronRun>>();
  const lastStart = new Map<string, number>();
  const lastMinute = new Map<string, number>();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let ticking: Promise<void> | undefined;

  const run = (job: JobRow): Promise<CronRun> => {
    const under = running.get(job.jobid);
    if (under) return under;
    const p = (async (): Promise<CronRun> => {
      const { rows: [row] } = await admin.query<{ runid: string }>(
        `insert into cron.job_run_details (jobid, database, username, command, status, start_time)
         values ($1, $2, $3, $4, 'starting', now()) returning runid`, [job.jobid, job.database, job.username, job.command]);
      const runid = row!.runid;
      const end = async (status: 'succeeded' | 'failed', message: string): Promise<CronRun> => {
        await admin.query(`update cron.job_run_details set status = $2, return_message = $3, end_time = now() where runid = $1`, [runid, status, message]);
        return { runid, status, return_message: message };
      };
      const url = opts.userUrl(job.username);
      if (!url) return end('failed', `connection failed: no login for role "${job.username}" on the twin`);
      const c = new pg.Client({ connectionString: url, application_name: 'pg_cron' });
      try {
        await c.connect();
        const { rows: [pid] } = await c.query<{ pid: number }>('select pg_backend_pid() as pid');
        await admin.query(`update cron.job_run_details set status = 'running', job_pid = $2 where runid = $1`, [runid, pid!.pid]);
        // One simple query (several statements allowed), as PQsendQuery; the last result counts.
        const res = await c.query(job.command) as unknown as pg.QueryResult | pg.QueryResult[];
        const last = Array.isArray(res) ? res[res.length - 1]! : res;
        const message = last.fields.length > 0
          ? `${last.rowCount ?? 0} ${last.rowCount === 1 ? 'row' : 'rows'}`
          : `${last.command} ${last.rowCount ?? ''}`.trim();
        return await end('succeeded', message);
      } catch (err) {
        return await end('failed', (err as Error).message);
      } finally {
        await c.end().catch(() => {});
      }
    })().finally(() => running.delete(job.jobid));
    running.set(job.jobid, p);
    return p;
  };

  const tick = async () => {
    const { rows } = await admin.query<JobRow>(
      `select jobid::text, jobname, schedule, command, database, username, active from cron.job
       where active and database = current_database()`);
    const now = Date.now();
    for (const job of rows) {
      if (running.has(job.jobid)) continue; // one instance of a job at a time
      let schedule: Schedule;
      try { schedule = parseSchedule(job.schedule); } catch { continue; }
      if (schedule.kind === 'seconds') {
        const last = lastStart.get(job.jobid);
        if (last !== undefined && now - last < schedule.seconds * 1000) continue;
        lastStart.set(job.jobid, now);
        void run(job).catch(() => {});
      } else {
        const minute = Math.floor(now / 60_000);
        if (lastMinute.get(job.jobid) === minute || !schedule.matches(new Date(minute * 60_000))) continue;
        lastMinute.set(job.jobid, minute);
        void run(job).catch(() => {});
      }
    }
  };
  const plan = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      ticking = tick().catch(() => {}).finally(() => { ticking = undefined; plan(); });
    }, tickMs);
    timer.unref();
  };
  plan();

  return {
    async runJob(jobname) {
      const { rows: [job] } = await admin.query<JobRow>(
        `select jobid::text, jobname, schedule, command, database, username, active from cron.job where jobname = $1`, [jobname]);
      if (!job) throw new Error(`no cron job named ${jobname}`);
      return run(job);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await ticking;
      await Promise.allSettled([...running.values()]);
      await admin.end();
    },
  };
}
