// `manette doctor` (docs/deploy.md, "manette doctor") against the twin: healthy, then in each
// broken state it detects, each made as a project's `postgres` (or, for what only Supabase
// may change, the twin's superuser) and each said with its fix; where the fix is a SQL
// statement, the test runs that statement as `postgres` and doctor is healthy again. The
// real CLI in a child process; the API's path through a real PgBouncer when installed.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyGameFile } from '../api/config/apply.js';
import { CLEANUP_JOB_SQL, MANETTE_ROLES, REALTIME_POLICIES, SWEEP_JOB_SQL } from '../api/cli/doctor-checks.js';
import { havePgBouncer, startPgBouncer, type RunningPooler } from '../twin/pooler/pgbouncer.js';
import { installCronStandIn, startCronScheduler, type CronScheduler } from '../twin/cron/scheduler.js';
import { freshDatabase, query, twinAdminUrlOf } from './support/harness.js';
import { runManette, runManetteJson } from './support/manette-cli.js';
import { mkdtemp, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';

const REPO = path.resolve(import.meta.dirname, '..');
const EN = 'C';
const GAME = { jeu: 'docteur', nom: 'Docteur', modes: { duel: { equipes: 2, joueurs_par_equipe: 1, regles: 'tour_par_tour', delai_tour_s: 30 } } };

let url: string;
let adminUrl: string;
let dir: string;
let scheduler: CronScheduler | undefined;
const poolers: RunningPooler[] = [];
const roles: string[] = [];

beforeAll(async () => {
  url = await freshDatabase();
  adminUrl = twinAdminUrlOf(url);
  dir = await mkdtemp(path.join(tmpdir(), 'manette-doctor-'));
  await writeFile(path.join(dir, 'game.json'), JSON.stringify(GAME));
  await applyGameFile(url, path.join(dir, 'game.json'));
}, 60_000);
afterAll(async () => {
  await scheduler?.stop();
  for (const p of poolers) await p.stop();
  for (const r of roles) await query(url, `drop role if exists ${r}`).catch(() => {});
  await rm(dir, { recursive: true, force: true });
});

interface Check { check: string; ok: boolean; summary: string; problems: { problem: string; fix: string }[] }
async function doctor(args: string[] = []): Promise<{ code: number; checks: Check[]; problems: Check['problems'] }> {
  const r = await runManetteJson(['doctor', '--db-url', url, ...args], 'postgres://unused:1/none', EN);
  expect(r.body.ok, JSON.stringify(r.body)).toBe(true);
  const checks = r.body.data.checks as Check[];
  const problems = checks.flatMap((c) => c.problems);
  expect(r.code).toBe(problems.length ? 1 : 0);
  expect(r.body.data.healthy).toBe(problems.length === 0);
  return { code: r.code, checks, problems };
}
const failing = (checks: Check[]) => checks.filter((c) => !c.ok).map((c) => c.check);
/** The SQL between the backticks of a fix (the statement to run as postgres). */
const sqlOf = (fix: string) => /`([^`]+;)`/.exec(fix)?.[1] ?? fix.slice(fix.indexOf('select cron.schedule'));
const asAdmin = (text: string) => query(adminUrl, text);
/** A sweep as pg_cron or a Node host would run it: recorded in manette.sweep_runs. */
const sweep = () => query(url, 'select manette.sweep_expired_turns()');

it('knows Manette\'s roles and its policies on realtime.messages as supabase/schema says them', async () => {
  const rolesSql = await readFile(path.join(REPO, 'supabase/schema/roles.sql'), 'utf8');
  expect([...rolesSql.matchAll(/^create role (\w+)/gm)].map((m) => m[1]).sort()).toEqual([...MANETTE_ROLES].sort());
  const messages = await readFile(path.join(REPO, 'supabase/schema/tables/realtime.messages.sql'), 'utf8');
  expect([...messages.matchAll(/^create policy "([^"]+)"/gm)].map((m) => m[1]).sort()).toEqual([...REALTIME_POLICIES].sort());
});

describe('a database with a timed mode', () => {
  it('without any sweep: the sweep problem, with the pg_cron job to schedule; text and exit code 1', async () => {
    const r = await doctor();
    expect(failing(r.checks)).toEqual(['sweep']);
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]!.problem).toBe('1 mode(s) have a turn timer (delai_tour_s) and no sweep is recorded: an abandoned match nobody reads stays en_cours.');
    expect(r.problems[0]!.fix).toContain('enable the pg_cron extension');
    expect(r.problems[0]!.fix).toContain(SWEEP_JOB_SQL);
    const text = await runManette(['doctor', '--db-url', url], 'postgres://unused:1/none', EN);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('✗ sweep of expired turns (within the last 60 seconds)');
    expect(text.stdout).toContain(`  fix: On a Supabase project (Edge Function): enable the pg_cron extension`);
    expect(text.stdout).toContain('1 problem(s) found.');
    const fr = await runManette(['doctor', '--db-url', url], 'postgres://unused:1/none', 'fr_FR.UTF-8');
    expect(fr.stdout).toContain('  correction : Sur un projet Supabase (Edge Function) : active l’extension pg_cron');
  });

  it('pg_cron enabled, no job: the fix is the job; scheduled as postgres and run by the twin\'s pg_cron, the sweep is healthy, then its log\'s cleanup is asked for', async () => {
    await installCronStandIn(adminUrl);
    let r = await doctor();
    expect(failing(r.checks)).toEqual(['sweep']);
    expect(r.problems[0]!.fix).toBe(`In the SQL editor, as \`postgres\`: ${SWEEP_JOB_SQL}`);
    await query(url, SWEEP_JOB_SQL);
    scheduler = startCronScheduler({ adminUrl, userUrl: (u) => (u === 'postgres' ? url : undefined) });
    await waitFor(async () => (await query(url, `select 1 from manette.sweep_runs where application_name = 'pg_cron'`)).length > 0);
    r = await doctor();
    expect(failing(r.checks)).toEqual(['cron_log']);
    expect(r.problems[0]!.fix).toBe(`As \`postgres\`: ${CLEANUP_JOB_SQL}`);
    await query(url, CLEANUP_JOB_SQL);
    r = await doctor();
    expect(r.problems).toEqual([]);
    expect(r.code).toBe(0);
  });

  it('the job stopped: no sweep in the last minute is a problem again', async () => {
    await query(url, `select cron.unschedule('manette-sweep-expired-turns')`);
    await scheduler!.stop();
    scheduler = undefined;
    // A minute without a sweep, without waiting it: the runs are moved back by two minutes.
    await query(url, `update manette.sweep_runs set ran_at = ran_at - interval '2 minutes'`);
    const r = await doctor();
    expect(failing(r.checks)).toEqual(['sweep']);
    expect(r.problems[0]!.problem).toMatch(/^1 mode\(s\) have a turn timer \(delai_tour_s\) and the last sweep ran 1\d\d s ago/);
    expect(r.problems[0]!.fix).toBe(`In the SQL editor, as \`postgres\`: ${SWEEP_JOB_SQL}`);
  });

  it('the job fails (its user cannot log in): the failure is said', async () => {
    await query(url, SWEEP_JOB_SQL);
    scheduler = startCronScheduler({ adminUrl, userUrl: () => undefined });
    await waitFor(async () => (await query(url, `select 1 from cron.job_run_details where status = 'failed'`)).length > 0);
    const r = await doctor();
    expect(r.problems[0]!.fix).toMatch(/^The pg_cron job manette-sweep-expired-turns fails: "connection failed: no login for role "postgres" on the twin"/);
    await scheduler.stop();
    scheduler = undefined;
    await query(url, `select cron.unschedule('manette-sweep-expired-turns')`);
    await query(url, `delete from cron.job_run_details`);
  });
});

describe('broken states, each fixed by its own fix', () => {
  beforeAll(async () => { await sweep(); });

  it('healthy', async () => {
    await sweep();
    expect((await doctor()).problems).toEqual([]);
  });

  it('a grant the API needs, dropped', async () => {
    await query(url, 'revoke execute on function api.match_state(jsonb, jsonb) from manette_api');
    await sweep();
    const r = await doctor();
    expect(failing(r.checks)).toEqual(['grants']);
    expect(r.problems).toEqual([{
      problem: 'The API’s role may not execute api.match_state(jsonb,jsonb): its endpoint will fail.',
      fix: '`grant execute on function api.match_state(jsonb,jsonb) to manette_api;`',
    }]);
    await query(url, sqlOf(r.problems[0]!.fix));
    await sweep();
    expect((await doctor()).problems).toEqual([]);
  });

  it('a function of Manette opened to anon, and a table to authenticated', async () => {
    await query(url, 'grant execute on function manette.sweep_expired_turns(integer) to anon');
    await query(url, 'grant select on manette.players to authenticated');
    await sweep();
    const r = await doctor();
    expect(r.problems.map((p) => p.problem)).toEqual([
      'authenticated has privileges on the table manette.players: only Manette’s roles should.',
      'anon may execute manette.sweep_expired_turns(integer): only Manette’s roles should.',
    ]);
    for (const p of r.problems) await query(url, sqlOf(p.fix));
    await sweep();
    expect((await doctor()).problems).toEqual([]);
  });

  it('the sweep no longer executable by manette_engine', async () => {
    await query(url, 'revoke execute on function manette.sweep_expired_turns(integer) from manette_engine');
    await sweep();
    const r = await doctor();
    expect(r.problems.map((p) => p.problem)).toEqual(['The sweep of expired turns may not be executed by manette_engine (the Node host or pg_cron).']);
    await query(url, sqlOf(r.problems[0]!.fix));
    await sweep();
    expect((await doctor()).problems).toEqual([]);
  });

  it('a partition of realtime.messages missing (tomorrow\'s)', async () => {
    const { day, from, to } = (await asAdmin(`select to_char(d, 'YYYY_MM_DD') as day, d::text as from, (d + 1)::text as to
                                               from (select (now() at time zone 'utc')::date + 1 as d) x`) as { day: string; from: string; to: string }[])[0]!;
    await asAdmin(`drop table realtime.messages_${day}`);
    try {
      await sweep();
      const r = await doctor();
      expect(failing(r.checks)).toEqual(['realtime_partitions']);
      expect(r.problems[0]!.problem).toBe(`Partitions of realtime.messages missing for ${day.replaceAll('_', '-')}: that day’s messages (realtime.send) will be lost.`);
      expect(r.problems[0]!.fix).toContain('Realtime creates them itself');
    } finally {
      // What Realtime does when it runs for the project (the twin's provisioning, 30_realtime.sql).
      await asAdmin(`create table realtime.messages_${day} partition of realtime.messages for values from ('${from}') to ('${to}')`);
    }
    await sweep();
    expect((await doctor()).problems).toEqual([]);
  });

  it('a policy of Manette on realtime.messages dropped', async () => {
    const name = 'Manette topics are never deleted by clients';
    const [pol] = await query<{ cmd: string; roles: string[]; qual: string | null; permissive: string }>(url,
      `select cmd, roles::text[] as roles, qual, permissive from pg_policies where schemaname = 'realtime' and tablename = 'messages' and policyname = $1`, [name]);
    await asAdmin(`drop policy "${name}" on realtime.messages`);
    try {
      await sweep();
      const r = await doctor();
      expect(failing(r.checks)).toEqual(['realtime_policies']);
      expect(r.problems[0]!.problem).toBe(`The policy "${name}" on realtime.messages is missing: Manette’s rooms are not guarded as they should be.`);
    } finally {
      await asAdmin(`create policy "${name}" on realtime.messages as ${pol!.permissive} for ${pol!.cmd} to ${pol!.roles.join(', ')} using (${pol!.qual})`);
    }
    await sweep();
    expect((await doctor()).problems).toEqual([]);
  });

  it('connected as a superuser', async () => {
    await sweep();
    const r = await runManetteJson(['doctor', '--db-url', adminUrl], 'postgres://unused:1/none', EN);
    const checks = r.body.data.checks as Check[];
    expect(failing(checks)).toEqual(['roles']);
    expect(checks.find((c) => c.check === 'roles')!.problems[0]!.problem).toBe('Connected as a superuser (supabase_admin): Manette never runs as one, and a Supabase project gives none.');
    expect(r.code).toBe(1);
  });

  it('the database near the plan\'s size', async () => {
    await sweep();
    const r = await doctor(['--size-limit-mb', '20']);
    expect(failing(r.checks)).toEqual(['size']);
    expect(r.problems[0]!.problem).toMatch(/^The database takes [\d.]+ MB, over 80% of the plan’s 20 MB \(realtime\.messages: [\d.]+ MB\)/);
  });

  it('old rows in cron.job_run_details', async () => {
    await asAdmin(`insert into cron.job_run_details (jobid, username, command, status, start_time, end_time)
                   values (1, 'postgres', 'select 1', 'succeeded', now() - interval '3 days', now() - interval '3 days')`);
    await sweep();
    const r = await doctor();
    expect(failing(r.checks)).toEqual(['cron_log']);
    expect(r.problems[0]!.problem).toBe('cron.job_run_details keeps 1 rows older than two days.');
    await query(url, `delete from cron.job_run_details where end_time < now() - interval '1 day'`);
    await sweep();
    expect((await doctor()).problems).toEqual([]);
  });
});

describe.skipIf(!havePgBouncer)('the API\'s role through the pooler (--api-url)', () => {
  it('a login that may act as manette_api gets through; one that may not is said, with the grant that fixes it', async () => {
    const login = `doctor_api_${Math.random().toString(36).slice(2, 8)}`;
    const password = 'doctor-test-password';
    await query(url, `create role ${login} login password '${password}' nosuperuser nobypassrls`);
    roles.push(login);
    const pooler = await startPgBouncer({ databaseUrl: url, mode: 'transaction', users: [{ name: login, password }] });
    poolers.push(pooler);
    const apiUrl = new URL(pooler.url(url));
    apiUrl.username = login;
    apiUrl.password = password;
    await sweep();
    let r = await doctor(['--api-url', apiUrl.toString()]);
    expect(failing(r.checks)).toEqual(['api_role']);
    expect(r.problems[0]!.problem).toContain(`the database user "${login}" may not act as "manette_api"`);
    expect(r.problems[0]!.problem).toContain(`\`grant manette_api to ${login}\``);
    await query(url, `grant manette_api to ${login}`);
    await sweep();
    r = await doctor(['--api-url', apiUrl.toString()]);
    expect(r.problems).toEqual([]);
    expect(r.checks.find((c) => c.check === 'api_role')!.summary).toBe(`the API through its URL (logs in as ${login}, acts as manette_api)`);
  });
});

async function waitFor(check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}
