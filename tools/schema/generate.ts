// The present tense of Manette's SQL: applies every migration of supabase/migrations, one
// transaction each, as `postgres` on a freshly provisioned twin database (twin/postgres),
// then writes what the catalogs hold, object by object, into supabase/schema/. The
// folder is what developers read and edit: `npm run migration` (tools/schema/migration.ts)
// writes the migration an edit needs, and the check (`npm run schema -- --check`,
// test/schema-snapshot.test.ts) keeps the two from diverging.
//
// Only what the migrations made is written: every object whose oid was not in the database
// before the first migration (the twin's `auth`, `extensions`, `realtime` objects are left
// out), plus Manette's policies and triggers on a table it does not own (realtime.messages).
//
// Deterministic: the same migrations give the same bytes (every list is sorted, no oid, no
// timestamp, no database name; type names are printed with search_path = '', so qualified).
// The migration that last changed a function is found by applying the migrations one at a
// time and comparing pg_get_functiondef after each: no parsing of migration text.
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { readMigrations, MIGRATIONS_DIR } from '../../api/db/migrate.js';

/** A snapshot: relative path → file content. */
export type Snapshot = Map<string, string>;

const GENERATED = '-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).\n';

/** The folders the generator owns inside supabase/schema/ (README.md is written by hand). */
export const SNAPSHOT_ENTRIES = ['functions', 'tables', 'views', 'types', 'sequences', 'schemas.sql', 'roles.sql'];

/** Roles that are Manette's (created by its migrations; roles are cluster-wide, so by name). */
const MANETTE_ROLE = /^manette/;

type Q = <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => Promise<R[]>;

/**
 * Applies the migrations to `databaseUrl` (a provisioned database with no migration, as
 * `postgres`) and returns the snapshot. The database is left migrated.
 */
export async function generateSnapshot(databaseUrl: string, migrationsDir: string = MIGRATIONS_DIR): Promise<Snapshot> {
  const db = await SnapshotDatabase.open(databaseUrl);
  try {
    await db.applyMigrations(migrationsDir);
    return await db.snapshot();
  } finally {
    await db.close();
  }
}

/**
 * A provisioned database being migrated, one transaction per migration, that can print its
 * snapshot at any point (tools/schema/migration.ts applies its generated SQL after the
 * folder's migrations, then prints it again).
 */
export class SnapshotDatabase {
  /** signature → migrations after which its pg_get_functiondef text changed */
  private readonly definedIn = new Map<string, string[]>();
  private last = new Map<string, string>();
  readonly q: Q;

  private constructor(readonly client: pg.Client, private readonly before: Before) {
    this.q = async (text, values) => (await client.query(text, values)).rows;
  }

  static async open(databaseUrl: string): Promise<SnapshotDatabase> {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      return new SnapshotDatabase(client, await existingOids(async (text, values) => (await client.query(text, values)).rows));
    } catch (err) {
      await client.end();
      throw err;
    }
  }

  async applyMigrations(migrationsDir: string = MIGRATIONS_DIR): Promise<void> {
    for (const m of await readMigrations([migrationsDir])) await this.applyMigration(path.basename(m.file), m.sql);
  }

  /** Applies one migration (named `file`) in its own transaction, as the runner would. */
  async applyMigration(file: string, sql: string | string[]): Promise<void> {
    await this.client.query('begin');
    try {
      for (const s of Array.isArray(sql) ? sql : [sql]) await this.client.query(s);
      await this.client.query('commit');
    } catch (err) {
      await this.client.query('rollback').catch(() => {});
      throw new Error(`migration ${file} failed: ${(err as Error).message}`);
    }
    const now = await functionHashes(this.q, this.before.proc);
    for (const [sig, hash] of now) {
      if (this.last.get(sig) !== hash) this.definedIn.set(sig, [...(this.definedIn.get(sig) ?? []), file]);
    }
    this.last = now;
  }

  /** The snapshot of the database as it is now. */
  async snapshot(): Promise<Snapshot> {
    const q = this.q;
    await this.client.query(`set search_path = ''`);
    try {
      const out: Snapshot = new Map();
      const triggers = await snapshotTriggers(q, this.before);
      await dumpFunctions(q, this.before, this.definedIn, triggers, out);
      await dumpTables(q, this.before, triggers, out);
      await dumpViews(q, this.before, out);
      await dumpTypes(q, this.before, out);
      await dumpSequences(q, this.before, out);
      out.set('schemas.sql', await dumpSchemas(q, this.before));
      out.set('roles.sql', await dumpRoles(q));
      return new Map([...out.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    } finally {
      await this.client.query('reset search_path');
    }
  }

  async close(): Promise<void> {
    await this.client.end();
  }
}

/** Writes a snapshot into `dir`, replacing what the generator owns there (not README.md). */
export async function writeSnapshot(dir: string, snapshot: Snapshot): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const entry of SNAPSHOT_ENTRIES) await rm(path.join(dir, entry), { recursive: true, force: true });
  for (const [rel, text] of snapshot) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), text);
  }
}

/** The generated files of a snapshot folder (README.md and anything else hand-written left out). */
export async function readSnapshotFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of SNAPSHOT_ENTRIES) {
    const full = path.join(dir, entry);
    if (entry.endsWith('.sql')) {
      if (existsSync(full)) files.push(entry);
      continue;
    }
    if (existsSync(full)) files.push(...(await readdir(full)).map((n) => `${entry}/${n}`));
  }
  return files.sort();
}

// == What was there before ======================================================

interface Before { proc: number[]; cls: Set<number>; type: Set<number>; nsp: Set<number>; policy: Set<number>; trigger: Set<number> }

async function existingOids(q: Q): Promise<Before> {
  const ids = async (table: string) => (await q<{ oid: number }>(`select oid::int8 as oid from ${table}`)).map((r) => Number(r.oid));
  return {
    proc: await ids('pg_proc'),
    cls: new Set(await ids('pg_class')),
    type: new Set(await ids('pg_type')),
    nsp: new Set(await ids('pg_namespace')),
    policy: new Set(await ids('pg_policy')),
    trigger: new Set(await ids('pg_trigger')),
  };
}

async function functionHashes(q: Q, beforeProcs: number[]): Promise<Map<string, string>> {
  const rows = await q<{ sig: string; hash: string }>(`
    select p.oid::regprocedure::text as sig, md5(pg_get_functiondef(p.oid)) as hash
    from pg_proc p
    where p.prokind in ('f', 'p') and not (p.oid::int8 = any ($1::int8[]))`, [beforeProcs]);
  return new Map(rows.map((r) => [r.sig, r.hash]));
}

// == Rendering helpers ============================================================

const ident = (s: string) => (/^[a-z_][a-z0-9_$]*$/.test(s) && !RESERVED.has(s) ? s : `"${s.replaceAll('"', '""')}"`);
// Enough of Postgres' reserved words for the names Manette uses (quote_ident does the rest in SQL).
const RESERVED = new Set(['user', 'table', 'order', 'group', 'select', 'from', 'where', 'limit', 'offset', 'end', 'check', 'default', 'primary', 'references', 'all', 'to', 'on', 'in', 'is', 'as', 'for', 'when', 'then', 'case', 'else', 'and', 'or', 'not', 'null', 'true', 'false', 'create', 'grant', 'column', 'constraint', 'unique', 'foreign', 'current_user', 'session_user', 'window', 'with', 'having', 'union', 'into', 'only', 'some', 'any', 'array', 'both', 'leading', 'trailing', 'desc', 'asc', 'distinct', 'do', 'fetch', 'initially', 'lateral', 'placing', 'returning', 'symmetric', 'variadic', 'analyse', 'analyze', 'cast', 'collate', 'deferrable', 'except', 'intersect', 'localtime', 'localtimestamp', 'current_date', 'current_time', 'current_timestamp', 'current_role', 'current_catalog']);
const fileName = (schema: string, name: string) => `${schema}.${name}.sql`.replace(/[^A-Za-z0-9_.$-]/g, '_');

interface AclRow { grantee: string; privilege: string; grantable: boolean }

/** `grant` lines for an object's effective privileges (the owner's own rights left out). */
function grantLines(kind: string, object: string, owner: string, acl: AclRow[], revokePublicFirst = true): string {
  const byGrantee = new Map<string, { privs: string[]; grantable: string[] }>();
  for (const a of acl) {
    if (a.grantee === owner) continue;
    const g = byGrantee.get(a.grantee) ?? { privs: [], grantable: [] };
    (a.grantable ? g.grantable : g.privs).push(a.privilege);
    byGrantee.set(a.grantee, g);
  }
  const lines = revokePublicFirst ? [`revoke all on ${kind} ${object} from public;`] : [];
  for (const [grantee, g] of [...byGrantee.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (g.privs.length) lines.push(`grant ${g.privs.sort().join(', ').toLowerCase()} on ${kind} ${object} to ${grantee};`);
    if (g.grantable.length) lines.push(`grant ${g.grantable.sort().join(', ').toLowerCase()} on ${kind} ${object} to ${grantee} with grant option;`);
  }
  return lines.join('\n');
}

/** SQL giving an object's effective privileges as json rows ({grantee, privilege, grantable}). */
const ACL_JSON = (acl: string, kind: string, owner: string) => `
  coalesce((select json_agg(json_build_object(
      'grantee', case when a.grantee = 0 then 'public' else quote_ident(pg_get_userbyid(a.grantee)) end,
      'privilege', a.privilege_type, 'grantable', a.is_grantable)
    order by a.grantee::regrole::text, a.privilege_type)
   from aclexplode(coalesce(${acl}, acldefault('${kind}', ${owner}))) a), '[]')`;

const comment = (what: string, text: string | null) => (text == null ? '' : `comment on ${what} is ${literal(text)};\n`);
const literal = (s: string) => `'${s.replaceAll("'", "''")}'`;

// == Triggers (shared by functions' and tables' headers) ===========================

/** A trigger of the snapshot: Manette's triggers (on its tables, and on the platform's). */
interface SnapshotTrigger {
  oid: number; name: string; table: string; fn: string; timing: string; events: string[]; forEach: string;
}

const TRIGGER_EVENTS: [number, string][] = [[4, 'insert'], [16, 'update'], [8, 'delete'], [32, 'truncate']];

async function snapshotTriggers(q: Q, before: Before): Promise<SnapshotTrigger[]> {
  const rows = await q<{ oid: number; name: string; table: string; fn: string; type: number }>(`
    select t.oid::int8 as oid, t.tgname as name, quote_ident(n.nspname) || '.' || quote_ident(c.relname) as table,
           quote_ident(pn.nspname) || '.' || quote_ident(p.proname) as fn, t.tgtype::int as type
    from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
    join pg_proc p on p.oid = t.tgfoid join pg_namespace pn on pn.oid = p.pronamespace
    where not t.tgisinternal and not (t.oid::int8 = any ($1::int8[]))
    order by 3, 2`, [[...before.trigger]]);
  return rows.map((r) => ({
    oid: Number(r.oid), name: r.name, table: r.table, fn: r.fn,
    timing: r.type & 2 ? 'before' : r.type & 64 ? 'instead of' : 'after',
    events: TRIGGER_EVENTS.filter(([bit]) => r.type & bit).map(([, e]) => e),
    forEach: r.type & 1 ? '' : ' for each statement',
  }));
}

/** `manette.match_rate() after update` (+ ` on <table>` when asked): what a trigger runs, and when. */
const firesText = (t: SnapshotTrigger, withTable: boolean) =>
  `${t.fn}() ${t.timing} ${t.events.join(' or ')}${t.forEach}${withTable ? ` on ${t.table}` : ''} (trigger ${ident(t.name)})`;

/**
 * The tables a function body writes and how (insert into / update / delete from / merge
 * into / truncate): text, as `-- Calls:` is (a name in a string or a comment counts too).
 */
function writesOf(body: string): Map<string, Set<string>> {
  const writes = new Map<string, Set<string>>();
  const upsert = /\bon\s+conflict\b[^;]*?\bdo\s+update\b/i.test(body);
  const re = /\b(insert\s+into|update|delete\s+from|merge\s+into|truncate(?:\s+table)?)\s+(?:only\s+)?([a-z_][a-z0-9_]*)\.([a-z_][a-z0-9_]*)\b/gi;
  for (const m of body.matchAll(re)) {
    const verb = m[1]!.toLowerCase();
    const table = `${m[2]!.toLowerCase()}.${m[3]!.toLowerCase()}`;
    const events = writes.get(table) ?? new Set<string>();
    if (verb.startsWith('insert')) { events.add('insert'); if (upsert) events.add('update'); }
    else if (verb === 'update') events.add('update');
    else if (verb.startsWith('delete')) events.add('delete');
    else if (verb.startsWith('merge')) { events.add('insert'); events.add('update'); events.add('delete'); }
    else events.add('truncate');
    writes.set(table, events);
  }
  return writes;
}

// == Functions ====================================================================

async function dumpFunctions(q: Q, before: Before, definedIn: Map<string, string[]>, triggers: SnapshotTrigger[], out: Snapshot): Promise<void> {
  const rows = await q<{
    schema: string; name: string; sig: string; args: string; def: string | null; kind: string;
    owner: string; acl: AclRow[]; comment: string | null;
  }>(`
    select n.nspname as schema, p.proname as name, p.oid::regprocedure::text as sig,
           pg_get_function_identity_arguments(p.oid) as args,
           case when p.prokind in ('f', 'p') then pg_get_functiondef(p.oid) end as def, p.prokind as kind,
           quote_ident(pg_get_userbyid(p.proowner)) as owner,
           ${ACL_JSON('p.proacl', 'f', 'p.proowner')} as acl,
           obj_description(p.oid, 'pg_proc') as comment
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where not (p.oid::int8 = any ($1::int8[]))
      and not exists (select 1 from pg_depend d
                      where d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e')
    order by n.nspname, p.proname, pg_get_function_identity_arguments(p.oid)`, [before.proc]);
  // Which of these functions a body names (schema.name followed by a parenthesis): where to
  // read next. Text, not dependency tracking (plpgsql bodies have none): a name in a string
  // or a comment counts too.
  const known = new Set(rows.map((r) => `${r.schema}.${r.name}`));
  const callsOf = (r: (typeof rows)[number]) => {
    const body = r.def!.slice(r.def!.indexOf('\nAS '));
    return [...new Set([...body.matchAll(/\b([a-z_][a-z0-9_]*)\.([a-z_][a-z0-9_]*)\s*\(/g)].map((m) => `${m[1]}.${m[2]}`))]
      .filter((n) => known.has(n) && n !== `${r.schema}.${r.name}`).sort();
  };
  // Who calls each function (the inverse of `-- Calls:`), and the triggers that run it.
  const calledBy = new Map<string, Set<string>>();
  for (const r of rows) {
    if (r.def == null) continue;
    for (const callee of callsOf(r)) calledBy.set(callee, (calledBy.get(callee) ?? new Set()).add(`${r.schema}.${r.name}`));
  }
  const byTrigger = new Map<string, string[]>();
  for (const t of triggers) byTrigger.set(t.fn, [...(byTrigger.get(t.fn) ?? []), `trigger ${ident(t.name)} on ${t.table}`]);
  // The triggers a body's writes fire (by table and event).
  const firesOf = (r: (typeof rows)[number]) => {
    const body = r.def!.slice(r.def!.indexOf('\nAS '));
    const fires: SnapshotTrigger[] = [];
    for (const [table, events] of writesOf(body)) {
      for (const t of triggers) {
        const tableName = t.table.replaceAll('"', '');
        if (tableName === table && t.events.some((e) => events.has(e)) && !fires.includes(t)) fires.push(t);
      }
    }
    return fires.sort((a, b) => (a.table + a.name < b.table + b.name ? -1 : 1));
  };
  const calledByLine = (name: string) => {
    const callers = [...(calledBy.get(name) ?? [])].sort();
    const trig = [...(byTrigger.get(`${ident(name.split('.')[0]!)}.${ident(name.split('.')[1]!)}`) ?? [])].sort();
    return callers.length + trig.length ? `\n-- Called by: ${[...callers, ...trig].join(', ')}` : '';
  };
  const files = new Map<string, string[]>();
  for (const r of rows) {
    if (r.def == null) throw new Error(`schema snapshot: ${r.sig} is a ${r.kind === 'a' ? 'aggregate' : 'window function'}, which the generator does not render yet`);
    const history = definedIn.get(r.sig) ?? [];
    const lastIn = history.at(-1);
    const what = r.kind === 'p' ? 'procedure' : 'function';
    const parts = [
      `-- ${r.schema}.${r.name}(${r.args})`,
      `-- Current definition from supabase/migrations/${lastIn ?? '?'}`
        + (history.length > 1 ? `\n-- Earlier versions in: ${history.slice(0, -1).join(', ')}` : '')
        + (callsOf(r).length ? `\n-- Calls: ${callsOf(r).join(', ')}` : '')
        + calledByLine(`${r.schema}.${r.name}`)
        + firesOf(r).map((t) => `\n-- Fires: ${firesText(t, true)}`).join(''),
      `${r.def.trimEnd()};`,
      `alter ${what} ${r.sig} owner to ${r.owner};`,
      grantLines(what, r.sig, r.owner, r.acl),
      comment(`${what} ${r.sig}`, r.comment).trimEnd(),
    ].filter(Boolean);
    const f = `functions/${fileName(r.schema, r.name)}`;
    files.set(f, [...(files.get(f) ?? []), parts.join('\n') + '\n']);
  }
  for (const [f, defs] of files) out.set(f, GENERATED + '\n' + defs.join('\n'));
}

// == Tables ======================================================================

async function dumpTables(q: Q, before: Before, snapshotTriggers: SnapshotTrigger[], out: Snapshot): Promise<void> {
  // New tables, and tables of the twin that got a policy or a trigger from a migration.
  const tables = await q<{
    oid: number; schema: string; name: string; kind: string; owner: string; rls: boolean; force: boolean;
    partkey: string | null; options: string[] | null; acl: AclRow[]; comment: string | null; partition: boolean;
  }>(`
    select c.oid::int8 as oid, n.nspname as schema, c.relname as name, c.relkind as kind,
           quote_ident(pg_get_userbyid(c.relowner)) as owner, c.relrowsecurity as rls,
           c.relforcerowsecurity as force,
           case when c.relkind = 'p' then pg_get_partkeydef(c.oid) end as partkey, c.reloptions as options,
           ${ACL_JSON('c.relacl', 'r', 'c.relowner')} as acl, obj_description(c.oid, 'pg_class') as comment,
           c.relispartition as partition
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ('r', 'p')
    order by n.nspname, c.relname`);
  for (const t of tables) {
    const isNew = !before.cls.has(Number(t.oid));
    const qname = `${ident(t.schema)}.${ident(t.name)}`;
    const policies = await q<{ oid: number; name: string; permissive: boolean; cmd: string; roles: string[]; qual: string | null; check: string | null }>(`
      select p.oid::int8 as oid, p.polname as name, p.polpermissive as permissive, p.polcmd as cmd,
             array(select case when r = 0 then 'public' else quote_ident(pg_get_userbyid(r)) end
                   from unnest(p.polroles) r order by 1) as roles,
             pg_get_expr(p.polqual, p.polrelid) as qual, pg_get_expr(p.polwithcheck, p.polrelid) as check
      from pg_policy p where p.polrelid = $1 order by p.polname`, [t.oid]);
    const triggers = await q<{ oid: number; def: string; enabled: string; name: string }>(`
      select t.oid::int8 as oid, pg_get_triggerdef(t.oid, true) as def, t.tgenabled as enabled, t.tgname as name
      from pg_trigger t where t.tgrelid = $1 and not t.tgisinternal order by t.tgname`, [t.oid]);
    const newPolicies = policies.filter((p) => !before.policy.has(Number(p.oid)));
    const newTriggers = triggers.filter((tr) => !before.trigger.has(Number(tr.oid)));
    if (!isNew && newPolicies.length === 0 && newTriggers.length === 0) continue;
    if (isNew && t.partition) continue; // partitions are made at run time (table_rows per game), not by migrations

    const sections: string[] = [];
    if (isNew) {
      const cols = await q<{ name: string; type: string; notnull: boolean; def: string | null; identity: string; generated: string; collation: string | null; comment: string | null }>(`
        select a.attname as name, format_type(a.atttypid, a.atttypmod) as type, a.attnotnull as notnull,
               pg_get_expr(d.adbin, d.adrelid) as def, a.attidentity as identity, a.attgenerated as generated,
               case when a.attcollation <> ty.typcollation then quote_ident(co.collname) end as collation,
               col_description(a.attrelid, a.attnum) as comment
        from pg_attribute a
        join pg_type ty on ty.oid = a.atttypid
        left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
        left join pg_collation co on co.oid = a.attcollation
        where a.attrelid = $1 and a.attnum > 0 and not a.attisdropped
        order by a.attnum`, [t.oid]);
      const constraints = await q<{ name: string; def: string }>(`
        select c.conname as name, pg_get_constraintdef(c.oid, true) as def
        from pg_constraint c where c.conrelid = $1
        order by case c.contype when 'p' then 0 when 'u' then 1 when 'f' then 2 when 'c' then 3 else 4 end, c.conname`, [t.oid]);
      const body = [
        ...cols.map((c) => {
          let s = `  ${ident(c.name)} ${c.type}`;
          if (c.collation) s += ` collate ${c.collation}`;
          if (c.identity) s += ` generated ${c.identity === 'a' ? 'always' : 'by default'} as identity`;
          if (c.generated === 's') s += ` generated always as (${c.def}) stored`;
          else if (c.def != null) s += ` default ${c.def}`;
          if (c.notnull) s += ' not null';
          return s;
        }),
        ...constraints.map((c) => `  constraint ${ident(c.name)} ${c.def}`),
      ];
      let create = `create table ${qname} (\n${body.join(',\n')}\n)`;
      if (t.partkey) create += ` partition by ${t.partkey}`;
      if (t.options?.length) create += ` with (${[...t.options].sort().join(', ')})`;
      sections.push(`${create};`);
      sections.push([
        `alter table ${qname} owner to ${t.owner};`,
        ...(t.rls ? [`alter table ${qname} enable row level security;`] : []),
        ...(t.force ? [`alter table ${qname} force row level security;`] : []),
      ].join('\n'));
      const grants = grantLines('table', qname, t.owner, t.acl);
      const colGrants = await q<{ col: string; acl: AclRow[] }>(`
        select a.attname as col,
          (select json_agg(json_build_object(
              'grantee', case when x.grantee = 0 then 'public' else quote_ident(pg_get_userbyid(x.grantee)) end,
              'privilege', x.privilege_type, 'grantable', x.is_grantable) order by x.grantee::regrole::text, x.privilege_type)
           from aclexplode(a.attacl) x) as acl
        from pg_attribute a where a.attrelid = $1 and a.attnum > 0 and not a.attisdropped and a.attacl is not null
        order by a.attnum`, [t.oid]);
      const colLines = colGrants.flatMap((c) => grantLines(`table`, qname, t.owner, c.acl ?? [], false)
        .split('\n').filter(Boolean).map((l) => l.replace(/^grant (.*?) on table/, (_m, p: string) => `grant ${p.split(', ').map((x) => `${x} (${ident(c.col)})`).join(', ')} on table`)));
      sections.push([grants, ...colLines].join('\n'));
      const comments = comment(`table ${qname}`, t.comment)
        + cols.map((c) => comment(`column ${qname}.${ident(c.name)}`, c.comment)).join('');
      if (comments) sections.push(comments.trimEnd());
      const indexes = await q<{ def: string }>(`
        select pg_get_indexdef(i.indexrelid) as def
        from pg_index i join pg_class ic on ic.oid = i.indexrelid
        where i.indrelid = $1
          and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid and c.conrelid = i.indrelid)
        order by ic.relname`, [t.oid]);
      if (indexes.length) sections.push(`-- Indexes\n${indexes.map((i) => `${i.def};`).join('\n')}`);
    } else {
      sections.push(`-- ${qname} belongs to the platform (the twin provisions it as Supabase does); `
        + 'only what Manette\'s migrations added to it is here.');
    }
    const ps = isNew ? policies : newPolicies;
    if (ps.length) {
      const cmds: Record<string, string> = { r: 'select', a: 'insert', w: 'update', d: 'delete', '*': 'all' };
      sections.push(`-- Policies\n${ps.map((p) => {
        let s = `create policy ${ident(p.name)} on ${qname}\n  as ${p.permissive ? 'permissive' : 'restrictive'} for ${cmds[p.cmd] ?? p.cmd} to ${p.roles.join(', ')}`;
        if (p.qual != null) s += `\n  using (${p.qual})`;
        if (p.check != null) s += `\n  with check (${p.check})`;
        return `${s};`;
      }).join('\n')}`);
    }
    const ts = isNew ? triggers : newTriggers;
    const firesLine = (oid: number) => {
      const t = snapshotTriggers.find((x) => x.oid === Number(oid));
      return t ? `-- Fires: ${firesText(t, false)}\n` : '';
    };
    if (ts.length) {
      const state: Record<string, string> = { D: 'disable', R: 'enable replica', A: 'enable always' };
      sections.push(`-- Triggers\n${ts.map((tr) => `${firesLine(tr.oid)}${tr.def};${state[tr.enabled] ? `\nalter table ${qname} ${state[tr.enabled]} trigger ${ident(tr.name)};` : ''}`).join('\n')}`);
    }
    out.set(`tables/${fileName(t.schema, t.name)}`, `${GENERATED}\n${sections.join('\n\n')}\n`);
  }
}

// == Views ========================================================================

async function dumpViews(q: Q, before: Before, out: Snapshot): Promise<void> {
  const views = await q<{ oid: number; schema: string; name: string; kind: string; def: string; owner: string; options: string[] | null; acl: AclRow[]; comment: string | null }>(`
    select c.oid::int8 as oid, n.nspname as schema, c.relname as name, c.relkind as kind,
           pg_get_viewdef(c.oid, true) as def, quote_ident(pg_get_userbyid(c.relowner)) as owner,
           c.reloptions as options, ${ACL_JSON('c.relacl', 'r', 'c.relowner')} as acl,
           obj_description(c.oid, 'pg_class') as comment
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ('v', 'm') order by n.nspname, c.relname`);
  for (const v of views) {
    if (before.cls.has(Number(v.oid))) continue;
    const qname = `${ident(v.schema)}.${ident(v.name)}`;
    const kind = v.kind === 'm' ? 'materialized view' : 'view';
    const opts = v.options?.length ? ` with (${[...v.options].sort().join(', ')})` : '';
    out.set(`views/${fileName(v.schema, v.name)}`, [
      GENERATED,
      `create ${kind} ${qname}${opts} as\n${v.def.trimEnd().replace(/;$/, '')};`,
      `alter ${kind} ${qname} owner to ${v.owner};`,
      grantLines('table', qname, v.owner, v.acl),
      comment(`${kind} ${qname}`, v.comment),
    ].join('\n').trimEnd() + '\n');
  }
}

// == Types and sequences ==========================================================

async function dumpTypes(q: Q, before: Before, out: Snapshot): Promise<void> {
  const types = await q<{ oid: number; schema: string; name: string; kind: string; relid: number; owner: string; base: string | null; notnull: boolean; def: string | null; comment: string | null }>(`
    select t.oid::int8 as oid, n.nspname as schema, t.typname as name, t.typtype as kind, t.typrelid::int8 as relid,
           quote_ident(pg_get_userbyid(t.typowner)) as owner,
           case when t.typtype = 'd' then format_type(t.typbasetype, t.typtypmod) end as base,
           t.typnotnull as notnull, t.typdefault as def, obj_description(t.oid, 'pg_type') as comment
    from pg_type t join pg_namespace n on n.oid = t.typnamespace
    left join pg_class c on c.oid = t.typrelid
    where t.typtype in ('c', 'e', 'd') and (t.typtype <> 'c' or c.relkind = 'c')
    order by n.nspname, t.typname`);
  for (const t of types) {
    if (before.type.has(Number(t.oid))) continue;
    const qname = `${ident(t.schema)}.${ident(t.name)}`;
    let create: string;
    if (t.kind === 'c') {
      const cols = await q<{ name: string; type: string }>(`
        select a.attname as name, format_type(a.atttypid, a.atttypmod) as type from pg_attribute a
        where a.attrelid = $1 and a.attnum > 0 and not a.attisdropped order by a.attnum`, [t.relid]);
      create = `create type ${qname} as (\n${cols.map((c) => `  ${ident(c.name)} ${c.type}`).join(',\n')}\n);`;
    } else if (t.kind === 'e') {
      const labels = await q<{ label: string }>(`select enumlabel as label from pg_enum where enumtypid = $1 order by enumsortorder`, [t.oid]);
      create = `create type ${qname} as enum (${labels.map((l) => literal(l.label)).join(', ')});`;
    } else {
      const checks = await q<{ name: string; def: string }>(`
        select conname as name, pg_get_constraintdef(oid, true) as def from pg_constraint where contypid = $1 order by conname`, [t.oid]);
      create = `create domain ${qname} as ${t.base}${t.def != null ? ` default ${t.def}` : ''}${t.notnull ? ' not null' : ''}`
        + checks.map((c) => `\n  constraint ${ident(c.name)} ${c.def}`).join('') + ';';
    }
    out.set(`types/${fileName(t.schema, t.name)}`, [GENERATED, create, `alter type ${qname} owner to ${t.owner};`, comment(`type ${qname}`, t.comment)]
      .join('\n').trimEnd() + '\n');
  }
}

async function dumpSequences(q: Q, before: Before, out: Snapshot): Promise<void> {
  const seqs = await q<{ oid: number; schema: string; name: string; owner: string; owned_by: string | null; type: string; start: string; inc: string; min: string; max: string; cache: string; cycle: boolean; acl: AclRow[] }>(`
    select c.oid::int8 as oid, n.nspname as schema, c.relname as name, quote_ident(pg_get_userbyid(c.relowner)) as owner,
           (select quote_ident(tn.nspname) || '.' || quote_ident(t.relname) || '.' || quote_ident(a.attname)
            from pg_depend d join pg_class t on t.oid = d.refobjid join pg_namespace tn on tn.oid = t.relnamespace
            join pg_attribute a on a.attrelid = d.refobjid and a.attnum = d.refobjsubid
            where d.classid = 'pg_class'::regclass and d.objid = c.oid and d.deptype = 'a') as owned_by,
           format_type(s.seqtypid, null) as type, s.seqstart::text as start, s.seqincrement::text as inc,
           s.seqmin::text as min, s.seqmax::text as max, s.seqcache::text as cache, s.seqcycle as cycle,
           ${ACL_JSON('c.relacl', 's', 'c.relowner')} as acl
    from pg_class c join pg_namespace n on n.oid = c.relnamespace join pg_sequence s on s.seqrelid = c.oid
    where c.relkind = 'S'
      and not exists (select 1 from pg_depend d where d.classid = 'pg_class'::regclass and d.objid = c.oid and d.deptype = 'i')
    order by n.nspname, c.relname`);
  for (const s of seqs) {
    if (before.cls.has(Number(s.oid))) continue;
    const qname = `${ident(s.schema)}.${ident(s.name)}`;
    out.set(`sequences/${fileName(s.schema, s.name)}`, [
      GENERATED,
      `create sequence ${qname} as ${s.type} increment by ${s.inc} minvalue ${s.min} maxvalue ${s.max} start with ${s.start} cache ${s.cache}${s.cycle ? ' cycle' : ''};`,
      `alter sequence ${qname} owner to ${s.owner};`,
      ...(s.owned_by ? [`alter sequence ${qname} owned by ${s.owned_by};`] : []),
      grantLines('sequence', qname, s.owner, s.acl),
    ].join('\n') + '\n');
  }
}

// == Schemas, default privileges, roles ==========================================

async function dumpSchemas(q: Q, before: Before): Promise<string> {
  const schemas = await q<{ oid: number; name: string; owner: string; acl: AclRow[]; comment: string | null }>(`
    select n.oid::int8 as oid, n.nspname as name, quote_ident(pg_get_userbyid(n.nspowner)) as owner,
           ${ACL_JSON('n.nspacl', 'n', 'n.nspowner')} as acl, obj_description(n.oid, 'pg_namespace') as comment
    from pg_namespace n order by n.nspname`);
  const parts = [GENERATED.trimEnd(), '-- Manette\'s schemas, their owners and privileges.'];
  for (const s of schemas) {
    if (before.nsp.has(Number(s.oid))) continue;
    parts.push([
      `create schema ${ident(s.name)} authorization ${s.owner};`,
      grantLines('schema', ident(s.name), s.owner, s.acl),
      comment(`schema ${ident(s.name)}`, s.comment).trimEnd(),
    ].filter(Boolean).join('\n'));
  }
  // What Manette's roles were granted on the platform's schemas (auth, realtime, ...).
  const outside = schemas.filter((s) => before.nsp.has(Number(s.oid)) && s.acl.some((a) => MANETTE_ROLE.test(a.grantee)));
  if (outside.length) {
    parts.push('-- Privileges of Manette\'s roles on the platform\'s schemas.\n' + outside.map((s) =>
      grantLines('schema', ident(s.name), s.owner, s.acl.filter((a) => MANETTE_ROLE.test(a.grantee)), false)).join('\n'));
  }
  const defaults = await q<{ role: string; schema: string | null; kind: string; acl: AclRow[] }>(`
    select quote_ident(pg_get_userbyid(d.defaclrole)) as role, n.nspname as schema, d.defaclobjtype as kind,
      (select json_agg(json_build_object(
          'grantee', case when x.grantee = 0 then 'public' else quote_ident(pg_get_userbyid(x.grantee)) end,
          'privilege', x.privilege_type, 'grantable', x.is_grantable) order by x.grantee::regrole::text, x.privilege_type)
       from aclexplode(d.defaclacl) x) as acl
    from pg_default_acl d left join pg_namespace n on n.oid = d.defaclnamespace
    order by 1, 2, 3`);
  const kinds: Record<string, string> = { r: 'tables', S: 'sequences', f: 'functions', T: 'types', n: 'schemas' };
  const ours = new Set(schemas.filter((s) => !before.nsp.has(Number(s.oid))).map((s) => s.name));
  const manetteDefaults = defaults.filter((d) => (d.schema != null && ours.has(d.schema)) || MANETTE_ROLE.test(d.role));
  if (manetteDefaults.length) {
    parts.push('-- Default privileges in Manette\'s schemas (as shown by \\ddp).\n' + manetteDefaults.map((d) =>
      `-- for role ${d.role}${d.schema ? ` in schema ${ident(d.schema)}` : ''}, ${kinds[d.kind] ?? d.kind}: `
      + (d.acl ?? []).map((a) => `${a.grantee} ${a.privilege.toLowerCase()}${a.grantable ? ' (grantable)' : ''}`).join(', ')).join('\n'));
  }
  return parts.join('\n\n') + '\n';
}

async function dumpRoles(q: Q): Promise<string> {
  const roles = await q<{ name: string; login: boolean; bypassrls: boolean; inherit: boolean; createrole: boolean; createdb: boolean; config: string[] | null; comment: string | null }>(`
    select quote_ident(r.rolname) as name, r.rolcanlogin as login, r.rolbypassrls as bypassrls, r.rolinherit as inherit,
           r.rolcreaterole as createrole, r.rolcreatedb as createdb, r.rolconfig as config,
           shobj_description(r.oid, 'pg_authid') as comment
    from pg_roles r where r.rolname ~ '^manette' order by r.rolname`);
  const members = await q<{ role: string; member: string; admin: boolean }>(`
    select quote_ident(pg_get_userbyid(m.roleid)) as role, quote_ident(pg_get_userbyid(m.member)) as member,
           bool_or(m.admin_option) as admin
    from pg_auth_members m
    where pg_get_userbyid(m.roleid) ~ '^manette' or pg_get_userbyid(m.member) ~ '^manette'
    group by 1, 2 order by 1, 2`); // one line per pair (Postgres 16+ keeps one row per grantor)
  const parts = [GENERATED.trimEnd(), '-- Manette\'s roles (roles are cluster-wide: every role named manette*) and their memberships.'];
  parts.push(roles.map((r) => [
    `create role ${r.name} ${r.login ? 'login' : 'nologin'} ${r.bypassrls ? 'bypassrls' : 'nobypassrls'}`
      + `${r.inherit ? '' : ' noinherit'}${r.createrole ? ' createrole' : ''}${r.createdb ? ' createdb' : ''};`,
    ...[...(r.config ?? [])].sort().map((c) => {
      const i = c.indexOf('=');
      return `alter role ${r.name} set ${c.slice(0, i)} = ${literal(c.slice(i + 1))};`;
    }),
  ].join('\n')).join('\n'));
  parts.push(members.map((m) => `grant ${m.role} to ${m.member}${m.admin ? ' with admin option' : ''};`).join('\n'));
  return parts.join('\n\n') + '\n';
}

/** The generated files of a folder, read: relative path → text. */
export async function readSnapshotDir(dir: string): Promise<Snapshot> {
  const files = await readSnapshotFiles(dir);
  return new Map(await Promise.all(files.map(async (f) => [f, await readFile(path.join(dir, f), 'utf8')] as [string, string])));
}

/**
 * How the generated files of folder `actual` differ from those of `expected`: one line per
 * file missing, extra or changed (empty when they are the same bytes).
 */
export async function diffSnapshotDirs(expected: string, actual: string): Promise<string[]> {
  return diffSnapshot(await readSnapshotDir(expected), actual);
}

/** How the generated files of folder `actual` differ from the snapshot `expected` (see diffSnapshotDirs). */
export async function diffSnapshot(expected: Snapshot, actual: string): Promise<string[]> {
  const have = await readSnapshotDir(actual);
  const want = [...expected.keys()].sort();
  const problems: string[] = [];
  for (const f of want) if (!have.has(f)) problems.push(`missing: ${f}`);
  for (const f of have.keys()) if (!expected.has(f)) problems.push(`not generated any more: ${f}`);
  for (const f of want) {
    const a = expected.get(f)!, b = have.get(f);
    if (b !== undefined && a !== b) {
      const al = a.split('\n'), bl = b.split('\n');
      const i = al.findIndex((l, k) => l !== bl[k]);
      problems.push(`changed: ${f} (line ${i + 1}: generated ${JSON.stringify(al[i] ?? '')}, checked in ${JSON.stringify(bl[i] ?? '')})`);
    }
  }
  return problems;
}
