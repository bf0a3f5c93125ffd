// What `manette doctor` checks on a database (docs/deploy.md, "manette doctor"): each
// check reads the catalog or Manette's tables as the URL's user (a project's `postgres`,
// never a superuser), changes nothing, and says each problem with its fix. The console's
// overview reads the sweep's check (sweepCheck) too.
import pg from 'pg';
import { createPool, verifyApiIdentity } from '../db/pool.js';
import { say, type Lang, type Text } from './locale.js';

/** Manette's roles (supabase/schema/roles.sql; test/doctor.test.ts keeps the two equal). */
export const MANETTE_ROLES = [
  'manette_admin', 'manette_api', 'manette_engine', 'manette_eraser',
  'manette_leaderboard_counter', 'manette_realtime', 'manette_rows_owner', 'manette_rules',
] as const;

/** Manette's policies on realtime.messages (supabase/schema/tables/realtime.messages.sql; kept equal by test/doctor.test.ts). */
export const REALTIME_POLICIES = [
  'Manette rooms are read by their players',
  'Manette rooms are written by their players when the game allows',
  'Manette topics are never deleted by clients',
  'Manette topics are never updated by clients',
  'Manette topics are read only by those Manette lets read',
  'Manette topics are written only by those Manette lets write',
  'Manette\'s server sends on Manette\'s topics',
] as const;

/** The job docs/matches.md tells a Supabase project to schedule, and the cleanup of pg_cron's log. */
export const SWEEP_JOB_SQL = `select cron.schedule('manette-sweep-expired-turns', '1 seconds', 'select manette.sweep_expired_turns()');`;
export const CLEANUP_JOB_SQL = `select cron.schedule('manette-clean-cron-runs', '17 * * * *', $$delete from cron.job_run_details where end_time < now() - interval '1 day'$$);`;

/** How long without a recorded sweep counts as "no sweep runs" (the sweep runs every second). */
export const SWEEP_RECENT_S = 60;
/** The Free plan's database size (0.5 GB); --size-limit-mb for another plan. */
export const FREE_PLAN_DB_MB = 500;
/** Realtime creates partitions from yesterday to three days ahead; today and the next two must be there. */
export const PARTITION_DAYS_AHEAD = 2;

export interface Problem { problem: string; fix: string }
export interface DoctorCheck { check: string; ok: boolean; summary: string; problems: Problem[] }
export interface DoctorReport { healthy: boolean; problems: number; checks: DoctorCheck[] }
export interface DoctorOptions {
  lang: Lang;
  /** The URL the API connects with (e.g. the transaction pooler's), checked as the API's requests run. */
  apiUrl?: string;
  /** The API's role (MANETTE_DB_ROLE), manette_api by default. */
  apiRole?: string;
  sizeLimitMb?: number;
}

type Q = <T extends pg.QueryResultRow>(text: string, values?: unknown[]) => Promise<T[]>;

const check = (name: string, summary: string, problems: Problem[]): DoctorCheck => ({ check: name, ok: problems.length === 0, summary, problems });
const p = (lang: Lang, problem: Text, fix: Text, vars: Record<string, string | number> = {}): Problem =>
  ({ problem: say(problem, lang, vars), fix: say(fix, lang, vars) });
const mb = (bytes: number) => Math.round(bytes / 1024 / 1024 * 10) / 10;

/** Every check on the database of `databaseUrl` (as its user). Never throws for a problem found; throws if the database cannot be reached. */
export async function runDoctor(databaseUrl: string, opts: DoctorOptions): Promise<DoctorReport> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'manette doctor' });
  await client.connect();
  const q: Q = async (text, values) => (await client.query(text, values)).rows;
  const checks: DoctorCheck[] = [];
  try {
    const { lang } = opts;
    const [schema] = await q<{ manette: boolean; runs: boolean }>(
      `select to_regnamespace('manette') is not null as manette, to_regclass('manette.sweep_runs') is not null as runs`);
    if (!schema!.manette || !schema!.runs) {
      checks.push(check('schema', say({ fr: 'schéma de Manette', en: 'Manette’s schema' }, lang), [p(lang,
        { fr: 'Cette base n’a pas (toutes) les migrations de Manette.', en: 'This database lacks (some of) Manette’s migrations.' },
        { fr: 'Applique-les : `supabase db push` (projet Supabase) ou `npx manette start`.', en: 'Apply them: `supabase db push` (a Supabase project) or `npx manette start`.' })]));
      return report(checks);
    }
    checks.push(await rolesCheck(q, lang));
    checks.push(await grantsCheck(q, lang));
    if (opts.apiUrl) checks.push(await apiRoleCheck(opts.apiUrl, opts.apiRole, lang));
    checks.push(await partitionsCheck(q, lang));
    checks.push(await policiesCheck(q, lang));
    checks.push(await sweepCheck(q, lang));
    checks.push(await cronLogCheck(q, lang));
    checks.push(await settingsCheck(q, lang));
    checks.push(await sizeCheck(q, lang, opts.sizeLimitMb ?? FREE_PLAN_DB_MB));
    return report(checks);
  } finally {
    await client.end();
  }
}

function report(checks: DoctorCheck[]): DoctorReport {
  const problems = checks.reduce((n, c) => n + c.problems.length, 0);
  return { healthy: problems === 0, problems, checks };
}

async function rolesCheck(q: Q, lang: Lang): Promise<DoctorCheck> {
  const problems: Problem[] = [];
  const [me] = await q<{ user: string; superuser: boolean }>(
    `select current_user::text as user, rolsuper as superuser from pg_roles where rolname = current_user`);
  if (me!.superuser) {
    problems.push(p(lang,
      { fr: 'Connecté en superutilisateur ({u}) : Manette ne s’exécute jamais ainsi, et un projet Supabase n’en donne pas.', en: 'Connected as a superuser ({u}): Manette never runs as one, and a Supabase project gives none.' },
      { fr: 'Connecte-toi en `postgres` (l’URL de connexion du projet).', en: 'Connect as `postgres` (the project’s connection string).' }, { u: me!.user }));
  }
  const [pgRole] = await q<{ superuser: boolean | null }>(`select (select rolsuper from pg_roles where rolname = 'postgres') as superuser`);
  if (pgRole!.superuser) {
    problems.push(p(lang,
      { fr: 'Le rôle `postgres` est superutilisateur : sur Supabase il ne l’est pas, et la sécurité par ligne ne s’appliquerait pas à ce qu’il lance (pg_cron).', en: 'The role `postgres` is a superuser: on Supabase it is not, and row level security would not apply to what it runs (pg_cron).' },
      { fr: 'En superutilisateur : `alter role postgres nosuperuser;`', en: 'As a superuser: `alter role postgres nosuperuser;`' }));
  }
  const rows = await q<{ role: string; exists: boolean; login: boolean; super: boolean; bypass: boolean; admin: boolean }>(
    `select r.name as role, x.oid is not null as exists, coalesce(x.rolcanlogin, false) as login,
            coalesce(x.rolsuper, false) as super, coalesce(x.rolbypassrls, false) as bypass,
            exists (select 1 from pg_auth_members m join pg_roles pr on pr.oid = m.member
                    where m.roleid = x.oid and pr.rolname = 'postgres' and m.admin_option) as admin
       from unnest($1::text[]) r(name) left join pg_roles x on x.rolname = r.name order by r.name`, [[...MANETTE_ROLES]]);
  for (const r of rows) {
    if (!r.exists) {
      problems.push(p(lang, { fr: 'Le rôle {r} n’existe pas.', en: 'The role {r} does not exist.' },
        { fr: 'Applique les migrations de Manette (`supabase db push`) : elles le créent.', en: 'Apply Manette’s migrations (`supabase db push`): they create it.' }, { r: r.role }));
      continue;
    }
    if (r.super || r.bypass) {
      problems.push(p(lang, { fr: 'Le rôle {r} contourne la sécurité par ligne (SUPERUSER ou BYPASSRLS).', en: 'The role {r} bypasses row level security (SUPERUSER or BYPASSRLS).' },
        { fr: '`alter role {r} nosuperuser nobypassrls;`', en: '`alter role {r} nosuperuser nobypassrls;`' }, { r: r.role }));
    }
    if (!r.admin) {
      problems.push(p(lang, { fr: '`postgres` n’est pas membre de {r} avec ADMIN OPTION (les migrations, `manette apply` et les commandes d’admin agissent par lui).', en: '`postgres` is not a member of {r} with ADMIN OPTION (the migrations, `manette apply` and the admin commands act through it).' },
        { fr: 'En `postgres` (qui a créé le rôle) : `grant {r} to postgres with admin option;`', en: 'As `postgres` (which created the role): `grant {r} to postgres with admin option;`' }, { r: r.role }));
    }
  }
  return check('roles', say({ fr: 'rôles de Manette ({n}), `postgres` non superutilisateur', en: 'Manette’s roles ({n}), `postgres` not a superuser' }, lang, { n: MANETTE_ROLES.length }), problems);
}

async function grantsCheck(q: Q, lang: Lang): Promise<DoctorCheck> {
  const problems: Problem[] = [];
  // Every api.* function is the API's to execute; nothing else of Manette is anyone's but its roles'.
  const missing = await q<{ fn: string }>(
    `select p.oid::regprocedure::text as fn from pg_proc p where p.pronamespace = 'api'::regnamespace
       and not has_function_privilege('manette_api', p.oid, 'execute') order by 1`);
  for (const m of missing) {
    problems.push(p(lang, { fr: 'Le rôle de l’API ne peut pas exécuter {f} : l’appel correspondant échouera.', en: 'The API’s role may not execute {f}: its endpoint will fail.' },
      { fr: '`grant execute on function {f} to manette_api;`', en: '`grant execute on function {f} to manette_api;`' }, { f: m.fn }));
  }
  const open = await q<{ what: string; kind: string; grantee: string }>(
    `select p.oid::regprocedure::text as what, 'function' as kind, case when a.grantee = 0 then 'public' else a.grantee::regrole::text end as grantee
       from pg_proc p, aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a
      where p.pronamespace in ('api'::regnamespace, 'manette'::regnamespace, 'manette_admin'::regnamespace)
        and a.privilege_type = 'EXECUTE'
        and (a.grantee = 0 or a.grantee in (select oid from pg_roles where rolname in ('anon', 'authenticated', 'service_role')))
     union all
     select c.oid::regclass::text, 'table', case when a.grantee = 0 then 'public' else a.grantee::regrole::text end
       from pg_class c, aclexplode(c.relacl) a
      where c.relnamespace in ('manette'::regnamespace, 'manette_admin'::regnamespace) and c.relkind in ('r', 'p', 'v', 'm', 'S')
        and (a.grantee = 0 or a.grantee in (select oid from pg_roles where rolname in ('anon', 'authenticated', 'service_role')))
     group by 1, 2, 3 order by 1, 3`);
  for (const o of open) {
    problems.push(o.kind === 'function'
      ? p(lang, { fr: '{g} peut exécuter {w} : seuls les rôles de Manette le doivent.', en: '{g} may execute {w}: only Manette’s roles should.' },
        { fr: '`revoke all on function {w} from {g};`', en: '`revoke all on function {w} from {g};`' }, { g: o.grantee, w: o.what })
      : p(lang, { fr: '{g} a des droits sur la table {w} : seuls les rôles de Manette le doivent.', en: '{g} has privileges on the table {w}: only Manette’s roles should.' },
        { fr: '`revoke all on table {w} from {g};`', en: '`revoke all on table {w} from {g};`' }, { g: o.grantee, w: o.what }));
  }
  const [usage] = await q<{ api: boolean; engine_sweep: boolean; postgres_sweep: boolean }>(
    `select has_schema_privilege('manette_api', 'api', 'usage') as api,
            has_function_privilege('manette_engine', 'manette.sweep_expired_turns(integer)', 'execute') as engine_sweep,
            has_function_privilege('postgres', 'manette.sweep_expired_turns(integer)', 'execute') as postgres_sweep`);
  if (!usage!.api) {
    problems.push(p(lang, { fr: 'Le rôle de l’API n’a pas USAGE sur le schéma api : aucune requête ne passera.', en: 'The API’s role has no USAGE on the schema api: no request will get through.' },
      { fr: '`grant usage on schema api to manette_api;`', en: '`grant usage on schema api to manette_api;`' }));
  }
  if (!usage!.engine_sweep || !usage!.postgres_sweep) {
    problems.push(p(lang, { fr: 'Le balayage des tours expirés ne peut pas être exécuté par {r} (serveur Node ou pg_cron).', en: 'The sweep of expired turns may not be executed by {r} (the Node host or pg_cron).' },
      { fr: '`grant execute on function manette.sweep_expired_turns(integer) to manette_engine;`', en: '`grant execute on function manette.sweep_expired_turns(integer) to manette_engine;`' },
      { r: !usage!.engine_sweep ? 'manette_engine' : 'postgres' }));
  }
  return check('grants', say({ fr: 'droits : l’API exécute api.*, rien d’ouvert à public, anon, authenticated', en: 'grants: the API executes api.*, nothing open to public, anon, authenticated' }, lang), problems);
}

async function apiRoleCheck(apiUrl: string, apiRole: string | undefined, lang: Lang): Promise<DoctorCheck> {
  const pool = createPool(apiUrl, { role: apiRole, max: 1 });
  const problems: Problem[] = [];
  try {
    await verifyApiIdentity(pool);
    const [row] = (await pool.query('select session_user::text as u')).rows as { u: string }[];
    return check('api_role', say({ fr: 'l’API par son URL (connectée en {u}, agit en {r})', en: 'the API through its URL (logs in as {u}, acts as {r})' }, lang,
      { u: row?.u ?? '?', r: pool.role }), problems);
  } catch (err) {
    problems.push(p(lang, { fr: 'Le rôle de l’API ne passe pas par cette URL : {m}', en: 'The API’s role does not get through this URL: {m}' },
      { fr: 'Suis le message ; l’URL est celle de DATABASE_URL de l’API (pooler de transactions, port 6543, utilisateur `<rôle>.<ref>`), docs/deploy.md.', en: 'Follow the message; the URL is the API’s DATABASE_URL (the transaction pooler, port 6543, user `<role>.<ref>`), docs/deploy.md.' },
      { m: (err as Error).message }));
    return check('api_role', say({ fr: 'l’API par son URL', en: 'the API through its URL' }, lang), problems);
  } finally {
    await pool.end().catch(() => {});
  }
}

async function partitionsCheck(q: Q, lang: Lang): Promise<DoctorCheck> {
  const problems: Problem[] = [];
  const rows = await q<{ day: string; present: boolean }>(
    `select to_char(d, 'YYYY-MM-DD') as day,
            exists (select 1 from pg_inherits i join pg_class c on c.oid = i.inhrelid
                    where i.inhparent = to_regclass('realtime.messages') and c.relname = 'messages_' || to_char(d, 'YYYY_MM_DD')) as present
       from generate_series((now() at time zone 'utc')::date, (now() at time zone 'utc')::date + $1::int, interval '1 day') d order by d`,
    [PARTITION_DAYS_AHEAD]);
  const [table] = await q<{ exists: boolean }>(`select to_regclass('realtime.messages') is not null as exists`);
  if (!table!.exists) {
    problems.push(p(lang, { fr: 'La table realtime.messages n’existe pas : Realtime n’est pas installé sur cette base.', en: 'The table realtime.messages does not exist: Realtime is not set up on this database.' },
      { fr: 'Un projet Supabase l’a ; ailleurs, Manette ne peut pas diffuser ses salons.', en: 'A Supabase project has it; elsewhere, Manette cannot broadcast its rooms.' }));
  } else {
    const absent = rows.filter((r) => !r.present).map((r) => r.day);
    if (absent.length) {
      problems.push(p(lang,
        { fr: 'Partitions de realtime.messages absentes pour {d} : les messages de ces jours-là (realtime.send) seront perdus.', en: 'Partitions of realtime.messages missing for {d}: that day’s messages (realtime.send) will be lost.' },
        { fr: 'Realtime les crée lui-même (de la veille à trois jours plus tard) quand il tourne sur le projet : vérifie que Realtime est actif (Dashboard → Realtime) et qu’un client s’y connecte, puis relance `manette doctor`.', en: 'Realtime creates them itself (yesterday to three days ahead) while it runs for the project: check that Realtime is on (Dashboard → Realtime) and a client connects to it, then run `manette doctor` again.' },
        { d: absent.join(', ') }));
    }
  }
  return check('realtime_partitions', say({ fr: 'partitions de realtime.messages (aujourd’hui et {n} jours suivants)', en: 'realtime.messages partitions (today and the next {n} days)' }, lang, { n: PARTITION_DAYS_AHEAD }), problems);
}

async function policiesCheck(q: Q, lang: Lang): Promise<DoctorCheck> {
  const problems: Problem[] = [];
  const rows = await q<{ policyname: string }>(`select policyname from pg_policies where schemaname = 'realtime' and tablename = 'messages'`);
  const have = new Set(rows.map((r) => r.policyname));
  for (const name of REALTIME_POLICIES.filter((n) => !have.has(n))) {
    problems.push(p(lang, { fr: 'La politique « {n} » de realtime.messages manque : les salons de Manette ne sont plus gardés comme prévu.', en: 'The policy "{n}" on realtime.messages is missing: Manette’s rooms are not guarded as they should be.' },
      { fr: 'Recrée-la depuis la migration de Manette qui la définit (supabase/schema/tables/realtime.messages.sql dans le dépôt de Manette), en `postgres`.', en: 'Create it again from Manette’s migration that defines it (supabase/schema/tables/realtime.messages.sql in Manette’s repository), as `postgres`.' }, { n: name }));
  }
  const [rls] = await q<{ on: boolean | null }>(`select relrowsecurity as on from pg_class where oid = to_regclass('realtime.messages')`);
  if (rls && rls.on === false) {
    problems.push(p(lang, { fr: 'La sécurité par ligne est désactivée sur realtime.messages : tout client lit tous les salons.', en: 'Row level security is off on realtime.messages: every client reads every room.' },
      { fr: 'En superutilisateur (support Supabase) : `alter table realtime.messages enable row level security;`', en: 'As a superuser (Supabase support): `alter table realtime.messages enable row level security;`' }));
  }
  return check('realtime_policies', say({ fr: 'politiques de Manette sur realtime.messages ({n})', en: 'Manette’s policies on realtime.messages ({n})' }, lang, { n: REALTIME_POLICIES.length }), problems);
}

export interface SweepState {
  /** Modes (game/mode) with delai_tour_s. */
  timed_modes: number;
  /** The last recorded sweep: when, by which login role and path; null if none is kept. */
  last_run: { ran_at: string; ran_by: string; path: string; seconds_ago: number } | null;
  /** pg_cron (or the twin's stand-in) is installed on this database. */
  cron: boolean;
  /** The job that calls manette.sweep_expired_turns, if one is scheduled. */
  cron_job: { jobname: string | null; schedule: string; username: string; active: boolean } | null;
  /** The last run of that job ended in failure: its message. */
  cron_failure: string | null;
}

/** What is known of the sweep of expired turns (the console reads it too). Runs as `postgres` or manette_admin. */
export async function sweepState(q: Q): Promise<SweepState> {
  const [row] = await q<{ timed_modes: number; last: SweepState['last_run']; cron: boolean }>(
    `select (select count(*)::int from manette.modes where turn_timeout_s is not null) as timed_modes,
            (select jsonb_build_object('ran_at', to_char(r.ran_at at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'ran_by', r.ran_by, 'path', r.path,
                                       'seconds_ago', floor(extract(epoch from clock_timestamp() - r.ran_at))::int)
               from manette.sweep_runs r order by r.id desc limit 1) as last,
            to_regclass('cron.job') is not null as cron`);
  let job: SweepState['cron_job'] = null;
  let failure: string | null = null;
  if (row!.cron) {
    const [j] = await q<{ jobid: string; jobname: string | null; schedule: string; username: string; active: boolean }>(
      `select jobid::text, jobname, schedule, username, active from cron.job where command ilike '%sweep_expired_turns%' order by active desc, jobid limit 1`);
    if (j) {
      job = { jobname: j.jobname, schedule: j.schedule, username: j.username, active: j.active };
      const [last] = await q<{ status: string; return_message: string | null }>(
        `select status, return_message from cron.job_run_details where jobid = $1 and status in ('succeeded', 'failed') order by runid desc limit 1`, [j.jobid]);
      if (last?.status === 'failed') failure = last.return_message ?? '';
    }
  }
  return { timed_modes: row!.timed_modes, last_run: row!.last, cron: row!.cron, cron_job: job, cron_failure: failure };
}

/** The sweep's problem, if any: modes have timers and no sweep ran in the last SWEEP_RECENT_S seconds. */
export function sweepProblems(s: SweepState, lang: Lang): Problem[] {
  if (s.timed_modes === 0) return [];
  if (s.last_run && s.last_run.seconds_ago <= SWEEP_RECENT_S) return [];
  const problems: Problem[] = [];
  const when = s.last_run
    ? say({ fr: 'le dernier balayage date de {s} s ({at})', en: 'the last sweep ran {s} s ago ({at})' }, lang, { s: s.last_run.seconds_ago, at: s.last_run.ran_at })
    : say({ fr: 'aucun balayage n’est enregistré', en: 'no sweep is recorded' }, lang);
  const fix = !s.cron
    ? say({ fr: 'Sur un projet Supabase (Edge Function) : active l’extension pg_cron (Database → Extensions), puis dans l’éditeur SQL, en `postgres` : {job} ; sur un hôte Node, `manette start` balaie tout seul : vérifie qu’il tourne.',
      en: 'On a Supabase project (Edge Function): enable the pg_cron extension (Database → Extensions), then in the SQL editor, as `postgres`: {job}; on a Node host, `manette start` sweeps by itself: check that it runs.' }, lang, { job: SWEEP_JOB_SQL })
    : !s.cron_job
      ? say({ fr: 'Dans l’éditeur SQL, en `postgres` : {job}', en: 'In the SQL editor, as `postgres`: {job}' }, lang, { job: SWEEP_JOB_SQL })
      : !s.cron_job.active
        ? say({ fr: 'La tâche pg_cron {n} est inactive : planifie-la de nouveau, en `postgres` : {job}', en: 'The pg_cron job {n} is inactive: schedule it again, as `postgres`: {job}' }, lang, { n: s.cron_job.jobname ?? '?', job: SWEEP_JOB_SQL })
        : s.cron_failure !== null
          ? say({ fr: 'La tâche pg_cron {n} échoue : « {m} » (cron.job_run_details). Elle doit tourner en `postgres` : planifie-la de nouveau en `postgres` : {job}', en: 'The pg_cron job {n} fails: "{m}" (cron.job_run_details). It must run as `postgres`: schedule it again as `postgres`: {job}' }, lang, { n: s.cron_job.jobname ?? '?', m: s.cron_failure, job: SWEEP_JOB_SQL })
          : say({ fr: 'La tâche pg_cron {n} est planifiée mais ne tourne pas : vérifie cron.job_run_details et que pg_cron est actif.', en: 'The pg_cron job {n} is scheduled but does not run: check cron.job_run_details and that pg_cron runs.' }, lang, { n: s.cron_job.jobname ?? '?' });
  problems.push({
    problem: say({ fr: '{n} mode(s) ont un délai de tour (delai_tour_s) et {when} : une partie abandonnée que personne ne lit reste en_cours.',
      en: '{n} mode(s) have a turn timer (delai_tour_s) and {when}: an abandoned match nobody reads stays en_cours.' }, lang, { n: s.timed_modes, when }),
    fix,
  });
  return problems;
}

async function sweepCheck(q: Q, lang: Lang): Promise<DoctorCheck> {
  const s = await sweepState(q);
  const summary = s.timed_modes === 0
    ? say({ fr: 'balayage des tours expirés : aucun mode n’a de délai de tour', en: 'sweep of expired turns: no mode has a turn timer' }, lang)
    : say({ fr: 'balayage des tours expirés (dans les {s} dernières secondes)', en: 'sweep of expired turns (within the last {s} seconds)' }, lang, { s: SWEEP_RECENT_S });
  return check('sweep', summary, sweepProblems(s, lang));
}

async function cronLogCheck(q: Q, lang: Lang): Promise<DoctorCheck> {
  const problems: Problem[] = [];
  const [cron] = await q<{ present: boolean }>(`select to_regclass('cron.job_run_details') is not null as present`);
  if (!cron!.present) return check('cron_log', say({ fr: 'journal de pg_cron : pg_cron n’est pas installé', en: 'pg_cron’s log: pg_cron is not installed' }, lang), problems);
  const [row] = await q<{ old: number; cleanup: boolean; sweep: boolean }>(
    `select (select count(*)::int from cron.job_run_details where end_time < now() - interval '2 days') as old,
            exists (select 1 from cron.job where active and command ilike '%delete from cron.job_run_details%') as cleanup,
            exists (select 1 from cron.job where active and command ilike '%sweep_expired_turns%') as sweep`);
  if (row!.sweep && !row!.cleanup) {
    problems.push(p(lang, { fr: 'Le balayage est planifié avec pg_cron mais rien ne nettoie cron.job_run_details (86 400 lignes par jour).', en: 'The sweep is scheduled with pg_cron but nothing cleans cron.job_run_details (86,400 rows a day).' },
      { fr: 'En `postgres` : {job}', en: 'As `postgres`: {job}' }, { job: CLEANUP_JOB_SQL }));
  } else if (row!.old > 0) {
    problems.push(p(lang, { fr: 'cron.job_run_details garde {n} lignes de plus de deux jours.', en: 'cron.job_run_details keeps {n} rows older than two days.' },
      { fr: 'En `postgres` : {job}', en: 'As `postgres`: {job}' }, { n: row!.old, job: CLEANUP_JOB_SQL }));
  }
  return check('cron_log', say({ fr: 'journal de pg_cron (cron.job_run_details) nettoyé', en: 'pg_cron’s log (cron.job_run_details) cleaned' }, lang), problems);
}

async function settingsCheck(q: Q, lang: Lang): Promise<DoctorCheck> {
  const problems: Problem[] = [];
  const [s] = await q<{ wal_level: string }>(`select current_setting('wal_level') as wal_level`);
  if (s!.wal_level !== 'logical') {
    problems.push(p(lang, { fr: 'wal_level vaut {v}, pas logical : Realtime ne peut pas lire les messages de la base (realtime.send).', en: 'wal_level is {v}, not logical: Realtime cannot read the database’s messages (realtime.send).' },
      { fr: 'Un projet Supabase l’a à logical ; ailleurs : `alter system set wal_level = logical;` puis redémarre Postgres.', en: 'A Supabase project has it logical; elsewhere: `alter system set wal_level = logical;` then restart Postgres.' }, { v: s!.wal_level }));
  }
  return check('settings', say({ fr: 'réglages : wal_level logical', en: 'settings: wal_level logical' }, lang), problems);
}

async function sizeCheck(q: Q, lang: Lang, limitMb: number): Promise<DoctorCheck> {
  const problems: Problem[] = [];
  const [s] = await q<{ db: string; messages: string | null }>(
    `select pg_database_size(current_database())::text as db,
            (select sum(pg_total_relation_size(i.inhrelid))::text from pg_inherits i where i.inhparent = to_regclass('realtime.messages')) as messages`);
  const db = Number(s!.db);
  const messages = Number(s!.messages ?? 0);
  if (db > limitMb * 1024 * 1024 * 0.8) {
    problems.push(p(lang, { fr: 'La base occupe {db} Mo, plus de 80 % des {l} Mo du forfait (realtime.messages : {m} Mo) ; au-delà, Supabase la passe en lecture seule.', en: 'The database takes {db} MB, over 80% of the plan’s {l} MB (realtime.messages: {m} MB); beyond it, Supabase makes it read-only.' },
      { fr: 'Regarde les plus grosses tables (`manette console`, Vue d’ensemble) ; passe au forfait supérieur ou donne `--size-limit-mb` du tien.', en: 'Look at the largest tables (`manette console`, Overview); move to a larger plan, or give yours with `--size-limit-mb`.' },
      { db: mb(db), l: limitMb, m: mb(messages) }));
  }
  return check('size', say({ fr: 'taille : base {db} Mo, realtime.messages {m} Mo, forfait {l} Mo', en: 'size: database {db} MB, realtime.messages {m} MB, plan {l} MB' }, lang,
    { db: mb(db), m: mb(messages), l: limitMb }), problems);
}
