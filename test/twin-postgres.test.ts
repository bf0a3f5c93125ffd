// The local database is a twin of a hosted Supabase database (twin/postgres/provision):
// what Manette's SQL meets there is what it meets on a project. Checked as `postgres`, the
// role everything of Manette runs as.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { emptyDatabase, query } from './support/harness.js';

describe('the twin of a hosted Supabase database', () => {
  it('postgres has the hosted attributes and memberships; supabase_admin is the superuser', async () => {
    const url = await emptyDatabase('twin_roles');
    expect(await query(url, `select rolname, rolsuper, rolcreatedb, rolcreaterole, rolcanlogin, rolreplication, rolbypassrls
      from pg_roles where rolname in ('postgres', 'supabase_admin') order by rolname`)).toEqual([
      { rolname: 'postgres', rolsuper: false, rolcreatedb: true, rolcreaterole: true, rolcanlogin: true, rolreplication: true, rolbypassrls: true },
      { rolname: 'supabase_admin', rolsuper: true, rolcreatedb: true, rolcreaterole: true, rolcanlogin: true, rolreplication: true, rolbypassrls: true },
    ]);
    const member = async (role: string) => (await query(url, `select pg_has_role('postgres', $1, 'member') as m`, [role]))[0]!.m;
    for (const role of ['anon', 'authenticated', 'service_role', 'pg_read_all_data', 'pg_signal_backend', 'pg_monitor']) {
      expect(await member(role), role).toBe(true);
    }
    for (const role of ['supabase_admin', 'supabase_realtime_admin', 'supabase_auth_admin']) {
      expect(await member(role), role).toBe(false);
    }
    expect(await query(url, `select current_user as u, (select setting from pg_settings where name = 'TimeZone') as tz`))
      .toEqual([{ u: 'postgres', tz: 'UTC' }]);
    // supautils' privileged_role_allowed_configs: a superuser-only setting postgres may set.
    expect(await query(url, `select set_config('session_replication_role', 'replica', false) as r`)).toEqual([{ r: 'replica' }]);
    await expect(query(url, `select set_config('log_min_messages', 'debug1', false)`)).rejects.toThrow(/permission denied/);
  });

  it('has Supabase\'s schemas: extensions (with pgTAP, by the superuser), auth helpers reading request.jwt.claims', async () => {
    const url = await emptyDatabase('twin_schemas');
    expect(await query(url, `select nspname, pg_get_userbyid(nspowner) as owner from pg_namespace
      where nspname in ('extensions', 'auth', 'realtime') order by 1`)).toEqual([
      { nspname: 'auth', owner: 'supabase_admin' },
      { nspname: 'extensions', owner: 'postgres' },
      { nspname: 'realtime', owner: 'supabase_admin' },
    ]);
    expect(await query(url, `select e.extname, n.nspname, pg_get_userbyid(e.extowner) as owner
      from pg_extension e join pg_namespace n on n.oid = e.extnamespace where extname = 'pgtap'`))
      .toEqual([{ extname: 'pgtap', nspname: 'extensions', owner: 'supabase_admin' }]);
    const claims = JSON.stringify({ sub: '0b4c4a5e-1f7a-4d6e-9a53-2f3c5e6d7a8b', role: 'authenticated', email: 'a@b.test' });
    expect(await query(url, `select set_config('request.jwt.claims', $1, false), auth.uid()::text as uid, auth.role() as role,
      auth.email() as email, auth.jwt()->>'sub' as sub`, [claims])).toEqual([{
      set_config: claims, uid: '0b4c4a5e-1f7a-4d6e-9a53-2f3c5e6d7a8b', role: 'authenticated', email: 'a@b.test', sub: '0b4c4a5e-1f7a-4d6e-9a53-2f3c5e6d7a8b',
    }]);
    // postgres uses auth and realtime, it does not create in them.
    expect(await query(url, `select has_schema_privilege('auth', 'create') as auth, has_schema_privilege('realtime', 'create') as realtime,
      has_schema_privilege('extensions', 'create') as ext`)).toEqual([{ auth: false, realtime: false, ext: true }]);
  });

  it('realtime.messages is Realtime\'s: partitioned by day, owned by supabase_realtime_admin, partitions ahead', async () => {
    const url = await emptyDatabase('twin_rt');
    expect(await query(url, `select c.relkind, pg_get_userbyid(c.relowner) as owner, c.relrowsecurity as rls,
      pg_get_partkeydef(c.oid) as key, (select pg_get_constraintdef(k.oid) from pg_constraint k where k.conrelid = c.oid and k.contype = 'p') as pk
      from pg_class c where c.oid = 'realtime.messages'::regclass`)).toEqual([{
      relkind: 'p', owner: 'supabase_realtime_admin', rls: true, key: 'RANGE (inserted_at)', pk: 'PRIMARY KEY (id, inserted_at)',
    }]);
    const days = (await query<{ relname: string }>(url, `select c.relname from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent = 'realtime.messages'::regclass order by 1`)).map((r) => r.relname);
    const day = (offset: number) => `messages_${new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10).replaceAll('-', '_')}`;
    for (const d of [-1, 0, 1, 2, 3]) expect(days).toContain(day(d));
    expect(days.length).toBeGreaterThanOrEqual(5);
  });

  it('realtime.send inserts as its caller, adds payload.id, is executable by every role, and never raises', async () => {
    const url = await emptyDatabase('twin_send');
    expect(await query(url, `select p.prosecdef as definer, pg_get_userbyid(p.proowner) as owner,
      has_function_privilege('anon', p.oid, 'execute') as anon, has_function_privilege('authenticated', p.oid, 'execute') as auth
      from pg_proc p where p.oid = 'realtime.send(jsonb, text, text, boolean)'::regprocedure`))
      .toEqual([{ definer: false, owner: 'supabase_realtime_admin', anon: true, auth: true }]);
    await query(url, `select realtime.send('{"a": 1}', 'ev', 'room-1', true)`);
    const [row] = await query(url, `select id::text, payload, event, topic, private, extension from realtime.messages where topic = 'room-1'`);
    expect(row).toEqual({ id: row!.payload.id, payload: { a: 1, id: row!.payload.id }, event: 'ev', topic: 'room-1', private: true, extension: 'broadcast' });
    // As authenticated, with no policy letting it insert: a warning, the caller goes on, nothing is stored.
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const warnings: string[] = [];
    c.on('notice', (n) => warnings.push(n.message ?? ''));
    try {
      await c.query('begin');
      await c.query('set local role authenticated');
      await c.query(`select realtime.send('{"b": 2}', 'ev', 'room-2', true)`);
      await c.query('commit');
    } finally {
      await c.end();
    }
    expect(warnings.join()).toMatch(/WarnSendingBroadcastMessage: new row violates row-level security policy/);
    expect(await query(url, `select count(*)::int as n from realtime.messages where topic = 'room-2'`)).toEqual([{ n: 0 }]);
  });

  it('postgres manages policies on realtime.messages (supautils policy_grants) and nothing else of Realtime\'s', async () => {
    const url = await emptyDatabase('twin_policies');
    await query(url, `create policy "a studio's policy" on realtime.messages for select to authenticated using (true)`);
    await query(url, `alter policy "a studio's policy" on realtime.messages using (topic = 'x')`);
    await query(url, `drop policy "a studio's policy" on realtime.messages`);
    expect(await query(url, `select pg_has_role('postgres', 'supabase_realtime_admin', 'member') as m`)).toEqual([{ m: false }]);
    await expect(query(url, 'alter table realtime.messages disable row level security')).rejects.toThrow(/must be owner/);
    await expect(query(url, 'drop table realtime.messages')).rejects.toThrow(/must be owner/);
    await expect(query(url, `create or replace function realtime.topic() returns text language sql as $$ select 'x' $$`))
      .rejects.toThrow(/permission denied|must be owner/);
  });
});
