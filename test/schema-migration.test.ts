// `npm run migration` without a database: the version of a new file, and the plan it makes
// from two snapshots (tools/schema/version.ts, tools/schema/units.ts). The command itself,
// on a twin, is in test/schema-snapshot.test.ts.
import { describe, expect, it } from 'vitest';
import { nextMigrationVersion, versionAt, versionTime, MIGRATION_NAME } from '../tools/schema/version.js';
import { parseUnits, planMigration, splitStatements, type SignatureOf } from '../tools/schema/units.js';

describe('nextMigrationVersion', () => {
  const now = new Date('2026-11-28T15:08:48.731Z');

  it('is the current UTC second as YYYYMMDDHHMMSS when every file is older', () => {
    expect(versionAt(now)).toBe('20261128150848');
    expect(nextMigrationVersion([], now)).toBe('20261128150848');
    expect(nextMigrationVersion(['20261122000100_foundation.sql', '20261128150847_x.sql'], now)).toBe('20261128150848');
  });

  it('is one second after the latest file when that one is not older than now', () => {
    expect(nextMigrationVersion(['20261128150848_same_second.sql'], now)).toBe('20261128150849');
    expect(nextMigrationVersion(['20261122000100_a.sql', '20261130001000_b.sql', '20261123000100_c.sql'], now)).toBe('20261130001001');
    // Across a minute, a day, a year.
    expect(nextMigrationVersion(['20261130235959'], now)).toBe('20261201000000');
    expect(nextMigrationVersion(['20271231235959_z.sql'], now)).toBe('20280101000000');
  });

  it('moves a latest version that is not a real time on as a number', () => {
    expect(versionTime('20261122000099')).toBeUndefined();
    expect(nextMigrationVersion(['20991122000099_odd.sql'], now)).toBe('20991122000100');
  });

  it('ignores what is not a migration file', () => {
    expect(nextMigrationVersion(['README.md', '.gitkeep'], now)).toBe('20261128150848');
  });

  it('names: lower-case letters, digits and _', () => {
    expect(MIGRATION_NAME.test('match_action_reason2')).toBe(true);
    for (const bad of ['Match', 'a-b', 'a b', '', 'é']) expect(MIGRATION_NAME.test(bad)).toBe(false);
  });
});

describe('the plan of npm run migration', () => {
  const sig: SignatureOf = async (create) => {
    const m = /FUNCTION (\S+)\(/i.exec(create)!;
    return { sig: `${m[1]}(text)`, kind: 'function' };
  };
  const fn = (body: string, grants = 'grant execute on function manette.f(text) to manette_engine;') => `-- Written by npm run schema
-- manette.f(x text)
-- Current definition from supabase/migrations/20261122000100_a.sql
-- Calls: manette.g
CREATE OR REPLACE FUNCTION manette.f(x text)
 RETURNS text
 LANGUAGE sql
AS $function$ select ${body}; -- a ; in a body $function$;
alter function manette.f(text) owner to postgres;
revoke all on function manette.f(text) from public;
${grants}
`;
  const table = (extra = '', policy = 'using (true)') => `-- Written by npm run schema

create table manette.t (
  id uuid not null${extra}
);

alter table manette.t owner to postgres;

revoke all on table manette.t from public;
grant select on table manette.t to manette_engine;

-- Policies
create policy "Everyone reads" on manette.t
  as permissive for select to manette_engine
  ${policy};

-- Triggers
-- Fires: manette.f() after insert (trigger t_ins)
CREATE TRIGGER t_ins AFTER INSERT ON manette.t FOR EACH ROW EXECUTE FUNCTION manette.f();
`;
  const plan = async (from: Record<string, string>, to: Record<string, string>) =>
    planMigration(await parseUnits(new Map(Object.entries(from)), sig), await parseUnits(new Map(Object.entries(to)), sig));

  it('splits statements outside strings, dollar quotes and comments, without their leading comments', () => {
    expect(splitStatements(`-- a\nselect 'a;b';\n/* c; */ select $x$ ; $x$; select "q;";`))
      .toEqual([`select 'a;b'`, 'select $x$ ; $x$', 'select "q;"']);
  });

  it('nothing for header comments only', async () => {
    const edited = fn('1').replace('-- Calls: manette.g', '-- Calls: manette.h\n-- Called by: x');
    expect(await plan({ 'functions/manette.f.sql': fn('1') }, { 'functions/manette.f.sql': edited }))
      .toEqual({ statements: [], byHand: [] });
  });

  it('a body: its create or replace only', async () => {
    const p = await plan({ 'functions/manette.f.sql': fn('1') }, { 'functions/manette.f.sql': fn('2') });
    expect(p.byHand).toEqual([]);
    expect(p.statements.map((s) => s.sql)).toEqual([expect.stringMatching(/^CREATE OR REPLACE FUNCTION manette\.f\(x text\)[\s\S]* select 2; -- a ; in a body \$function\$$/)]);
  });

  it('grants: revoke from the old grantees, then the new grants', async () => {
    const p = await plan({ 'functions/manette.f.sql': fn('1') },
      { 'functions/manette.f.sql': fn('1', 'grant execute on function manette.f(text) to manette_admin;') });
    expect(p.statements.map((s) => s.sql)).toEqual([
      'revoke all on function manette.f(text) from manette_engine',
      'revoke all on function manette.f(text) from public',
      'grant execute on function manette.f(text) to manette_admin',
    ]);
  });

  it('a removed function is dropped by its exact signature, after its trigger', async () => {
    const p = await plan({ 'functions/manette.f.sql': fn('1'), 'tables/manette.t.sql': table() },
      { 'tables/manette.t.sql': table().replace(/-- Triggers[\s\S]*$/, '') });
    expect(p.statements.map((s) => s.sql)).toEqual(['drop trigger t_ins on manette.t', 'drop function manette.f(text)']);
  });

  it('a policy: dropped first, created after the functions', async () => {
    const p = await plan({ 'functions/manette.f.sql': fn('1'), 'tables/manette.t.sql': table() },
      { 'functions/manette.f.sql': fn('2'), 'tables/manette.t.sql': table('', 'using (false)') });
    expect(p.statements.map((s) => s.sql.split('\n')[0])).toEqual([
      'drop policy "Everyone reads" on manette.t',
      'CREATE OR REPLACE FUNCTION manette.f(x text)',
      'create policy "Everyone reads" on manette.t',
    ]);
  });

  it('a column is left to write by hand, named', async () => {
    const p = await plan({ 'tables/manette.t.sql': table() }, { 'tables/manette.t.sql': table(',\n  score integer') });
    expect(p.statements).toEqual([]);
    expect(p.byHand).toEqual(['changed: tables/manette.t.sql: create table manette.t (', '    - id uuid not null', '    + id uuid not null,', '    + score integer']);
  });
});
