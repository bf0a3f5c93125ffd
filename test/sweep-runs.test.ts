// The sweep that cannot be forgotten (docs/matches.md, "Who runs the sweep" and "Is the
// sweep running?"), on an Edge-style deployment: the API under test serves requests only
// (startTestApp runs no sweeper, as the Edge Function; MANETTE_TEST_SERVER=edge runs the
// function itself). Without a scheduled sweep an abandoned match nobody reads stays
// `en_cours` (GET /match/live applies it when it lists it); scheduled as `postgres` on the
// twin's pg_cron (twin/cron: cron.schedule, a scheduler connecting as the job's user), the
// sweep ends it at its expiry, each run recorded in manette.sweep_runs (bounded) and in
// cron.job_run_details, whose old rows the documented cleanup job deletes.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAsApi } from '../api/db/pool.js';
import { installCronStandIn, parseSchedule, startCronScheduler, type CronScheduler } from '../twin/cron/scheduler.js';
import { client, query, startTestApp, twinAdminUrlOf, type TestApp } from './support/harness.js';

const GAME = {
  jeu: 'balai', nom: 'Balai',
  modes: {
    abandon: { equipes: 2, joueurs_par_equipe: 1, regles: 'tour_par_tour', delai_tour_s: 1, spectateurs: true, elo_ecart_initial: 10000 },
  },
};
export const SWEEP_JOB = `select cron.schedule('manette-sweep-expired-turns', '1 seconds', 'select manette.sweep_expired_turns()')`;
export const CLEANUP_JOB = `select cron.schedule('manette-clean-cron-runs', '17 * * * *', $$delete from cron.job_run_details where end_time < now() - interval '1 day'$$)`;

let app: TestApp;
let apiKey: string;
let scheduler: CronScheduler | undefined;

beforeAll(async () => {
  app = await startTestApp();
  apiKey = await app.applyGame(GAME);
  await installCronStandIn(twinAdminUrlOf(app.databaseUrl));
}, 120_000);
afterAll(async () => {
  await scheduler?.stop();
  await app?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function waitFor<V>(check: () => Promise<V | undefined | false>, what: string, ms = 30_000): Promise<V> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

let counter = 0;
async function match(): Promise<{ id: string; players: { id: string; token: string }[] }> {
  const api = client(app.baseUrl, apiKey);
  const players = [];
  let last: any;
  for (let i = 0; i < 2; i++) {
    const r = await api.register(`bl_${++counter}_${Math.random().toString(36).slice(2, 7)}`);
    players.push({ id: r.data.joueur.id, token: r.token });
    last = (await api.post('/matchmaking/join', { mode_jeu: 'abandon', elo_actuel: 1000 }, { token: r.token })).body;
  }
  expect(last.status).toBe('matched');
  return { id: last.partie_id, players };
}
const rowOf = async (id: string) => (await app.sql<{ status: string; expired: boolean; turn_expires_at: Date | null; ended_at: Date | null }>(
  `select status, turn_expires_at <= clock_timestamp() as expired, turn_expires_at, ended_at from manette.matches where id = $1`, [id]))[0]!;

describe('without a scheduled sweep (an Edge-only deployment that forgot it)', () => {
  it('an abandoned match stays en_cours past its expiry, and nothing records a sweep', async () => {
    const { id } = await match();
    await waitFor(async () => (await rowOf(id)).expired, 'the turn to expire');
    // A plain read as postgres applies nothing: nothing has swept it, nobody read it.
    expect((await rowOf(id)).status).toBe('en_cours');
    expect(await app.sql('select * from manette.sweep_runs')).toEqual([]);
  });

  it('GET /match/live applies the expiries due in what it lists: the expired match is not shown live', async () => {
    const { id, players } = await match();
    const before = await waitFor(async () => { const r = await rowOf(id); return r.expired && r; }, 'the turn to expire');
    const api = client(app.baseUrl, apiKey);
    const live = await api.get('/match/live', { token: players[0]!.token });
    expect(live.status).toBe(200);
    expect(live.body.parties.map((p: any) => p.id)).not.toContain(id);
    const after = await rowOf(id);
    expect(after.status).toBe('terminee');
    // At the expiry's own instant, as the sweep would have applied it.
    expect(after.ended_at).toEqual(before.turn_expires_at);
    expect(await app.sql('select action from manette.match_actions where match_id = $1', [id])).toEqual([{ action: 'delai_depasse' }]);
  });
});

describe('each sweep run is recorded', () => {
  it('by whom and through which path: the Node host\'s api.sweep_expired_turns(), or the SQL function as postgres', async () => {
    const login = (await runAsApi<{ login: string }>(app.pool, 'select session_user::text as login'))[0]!.login;
    await runAsApi(app.pool, 'select api.sweep_expired_turns()');
    await query(app.databaseUrl, 'select manette.sweep_expired_turns()');
    const rows = await app.sql('select ran_by, path, application_name, applied, turns from manette.sweep_runs order by id');
    expect(rows.slice(-2)).toEqual([
      { ran_by: login, path: 'api', application_name: null, applied: 0, turns: 0 },
      { ran_by: 'postgres', path: 'sql', application_name: null, applied: 0, turns: 0 },
    ]);
  });

  it('the last 1000 runs are kept', async () => {
    await app.sql(`insert into manette.sweep_runs (ran_at, ran_by, path, applied, turns)
                   select now() - interval '1 hour', 'postgres', 'sql', 0, 0 from generate_series(1, 1100)`);
    await query(app.databaseUrl, 'select manette.sweep_expired_turns()');
    const n = (await app.sql<{ n: number }>('select count(*)::int as n from manette.sweep_runs'))[0]!.n;
    expect(n).toBe(1000);
    const [last] = await app.sql('select ran_by, path from manette.sweep_runs order by id desc limit 1');
    expect(last).toEqual({ ran_by: 'postgres', path: 'sql' });
  });
});

describe('the sweep scheduled with pg_cron, as on a Supabase project (the twin\'s pg_cron)', () => {
  it('as postgres, the scheduled sweep ends an abandoned match nobody reads, at its expiry', async () => {
    // Scheduled exactly as docs/matches.md says, in the SQL editor as postgres.
    await query(app.databaseUrl, SWEEP_JOB);
    const [job] = await app.sql('select jobname, schedule, username, active from cron.job');
    expect(job).toEqual({ jobname: 'manette-sweep-expired-turns', schedule: '1 seconds', username: 'postgres', active: true });
    scheduler = startCronScheduler({
      adminUrl: twinAdminUrlOf(app.databaseUrl),
      userUrl: (user) => (user === 'postgres' ? app.databaseUrl : undefined),
    });
    const { id } = await match();
    const start = await rowOf(id);
    // Nobody reads it: the job ends it.
    const end = await waitFor(async () => { const r = await rowOf(id); return r.status === 'terminee' && r; }, 'the sweep to end the match');
    expect(end.ended_at).toEqual(start.turn_expires_at);
    // The job ran as postgres, not the superuser, through pg_cron's connection.
    const [run] = await app.sql(`select ran_by, path, application_name from manette.sweep_runs order by id desc limit 1`);
    expect(run).toEqual({ ran_by: 'postgres', path: 'sql', application_name: 'pg_cron' });
    // The run that ended it: one match changed, one expired turn applied.
    expect(await app.sql(`select ran_by, applied, turns from manette.sweep_runs where applied > 0`))
      .toEqual([{ ran_by: 'postgres', applied: 1, turns: 1 }]);
    const details = await app.sql(`select username, status, return_message from cron.job_run_details where status <> 'running' and status <> 'starting'`);
    expect(details.length).toBeGreaterThan(0);
    expect(new Set(details.map((d) => JSON.stringify(d)))).toEqual(new Set([JSON.stringify({ username: 'postgres', status: 'succeeded', return_message: '1 row' })]));
  }, 60_000);

  it('old cron.job_run_details rows are deleted by the documented hourly job, run as postgres', async () => {
    await query(app.databaseUrl, CLEANUP_JOB);
    // Its schedule: minute 17 of every hour (UTC).
    const hourly = parseSchedule('17 * * * *');
    expect(hourly.kind === 'cron' && hourly.matches(new Date('2026-11-28T10:17:00Z'))).toBe(true);
    expect(hourly.kind === 'cron' && hourly.matches(new Date('2026-11-28T10:18:00Z'))).toBe(false);
    // Rows from two days ago, as a second-level job leaves them (written by pg_cron itself).
    const admin = new pg.Client({ connectionString: twinAdminUrlOf(app.databaseUrl) });
    await admin.connect();
    // Run by the test only: a test running at minute 17 would otherwise see the scheduler
    // run it first (pg_cron's alter_job(active := false), as the superuser).
    await admin.query(`update cron.job set active = false where jobname = 'manette-clean-cron-runs'`);
    await admin.query(`insert into cron.job_run_details (jobid, username, command, status, return_message, start_time, end_time)
                       select 1, 'postgres', 'select manette.sweep_expired_turns()', 'succeeded', '1 row', t, t
                       from generate_series(now() - interval '2 days', now() - interval '25 hours', interval '1 minute') t`);
    await admin.end();
    const count = async () => (await app.sql<{ old: number; recent: number }>(
      `select count(*) filter (where end_time < now() - interval '1 day')::int as old,
              count(*) filter (where end_time >= now() - interval '1 day')::int as recent from cron.job_run_details`))[0]!;
    const before = await count();
    expect(before.old).toBe(1381);
    const run = await scheduler!.runJob('manette-clean-cron-runs');
    expect(run).toMatchObject({ status: 'succeeded', return_message: 'DELETE 1381' });
    const after = await count();
    expect(after.old).toBe(0);
    expect(after.recent).toBeGreaterThanOrEqual(before.recent);
  });

  it('unscheduled, the sweep stops: an abandoned match stays en_cours again', async () => {
    await query(app.databaseUrl, `select cron.unschedule('manette-sweep-expired-turns')`);
    await scheduler!.stop();
    scheduler = undefined;
    const { id } = await match();
    await waitFor(async () => (await rowOf(id)).expired, 'the turn to expire');
    expect((await rowOf(id)).status).toBe('en_cours');
  });
});
