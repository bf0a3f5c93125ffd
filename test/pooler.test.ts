// The API and the admin tooling behind a real pooler that drops startup options, as
// Supabase's does (Supavisor forwards none but search_path): Debian's PgBouncer with
// `ignore_startup_parameters = extra_float_digits, options` (twin/pooler/pgbouncer.ts), in
// session mode with the URL's user `postgres` (the Node server on the session pooler) and in
// transaction mode with a login manette_api (the Edge Function on the transaction pooler,
// docs/deploy.md). The identity is read from the database itself: a game's rule function
// reports the role and statement_timeout its request ran with, a trigger records the role
// of the admin tooling's writes.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { havePgBouncer, PGBOUNCER, startPgBouncer, type PoolMode, type RunningPooler } from '../twin/pooler/pgbouncer.js';
import { API_LOGIN_PASSWORD, client, freshDatabase, loginApiRole, minimalGame, startTestApp, type TestApp } from './support/harness.js';
import { runManette } from './support/manette-cli.js';

if (!havePgBouncer) console.warn(`pooler.test.ts: ${PGBOUNCER} not found, skipped (apt-get install pgbouncer)`);

/** The façade's deadline here: short, so that a request past it does not hold the test long. */
const DEADLINE_MS = 1_000;

// A game's rule function (README, "Writing a rule function") that reports what its
// request's transaction runs with: the role set (`none` when none was), statement_timeout.
// `dormir` sleeps past the deadline first.
const SETUP_SQL = `
create schema jeu_sonde;
create function jeu_sonde.regles(partie jsonb, joueur_id uuid, action text, donnees jsonb)
returns jsonb language plpgsql as $$
begin
  if action = 'dormir' then perform pg_sleep((donnees->>'secondes')::float8); end if;
  return jsonb_build_object('etat_plateau', jsonb_build_object(
      'role', current_setting('role'), 'statement_timeout', current_setting('statement_timeout')),
    'numero_tour', coalesce((partie->>'numero_tour')::integer, 0) + 1);
end
$$;
grant usage on schema jeu_sonde to manette_rules;
grant execute on function jeu_sonde.regles(jsonb, uuid, text, jsonb) to manette_rules;

-- The role every write of a key runs under (apply creates one, \`keys create\` too).
create table public.key_writes (role text not null, game_slug text);
grant insert on public.key_writes to public;
create function public.record_key_write() returns trigger language plpgsql as $$
begin
  insert into public.key_writes (role, game_slug)
  values (current_setting('role'), (select g.slug from manette.games g where g.id = new.game_id));
  return new;
end
$$;
create trigger record_key_write after insert on manette.api_keys for each row execute function public.record_key_write();
`;

const GAME = (slug: string) => minimalGame(slug, {
  modes: { sonde: { equipes: 2, joueurs_par_equipe: 1, regles: 'jeu_sonde.regles', elo_ecart_initial: 10000 } },
});

/** The real CLI on `databaseUrl`, in English. */
const cli = (args: string[], databaseUrl: string) => runManette(args, databaseUrl, 'en_US.UTF-8');

describe.skipIf(!havePgBouncer)('behind PgBouncer, which drops startup options like Supabase\'s pooler', () => {
  let databaseUrl: string;
  let dir: string;
  const poolers: RunningPooler[] = [];

  beforeAll(async () => {
    databaseUrl = await freshDatabase();
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    try {
      await admin.query(SETUP_SQL);
      await loginApiRole(admin, API_LOGIN_PASSWORD);
    } finally {
      await admin.end();
    }
    dir = await mkdtemp(path.join(tmpdir(), 'manette-pooler-'));
  });
  afterAll(async () => {
    for (const p of poolers) await p.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** PgBouncer in `mode` in front of the test database, for its URL's user and manette_api. */
  async function pooler(mode: PoolMode): Promise<RunningPooler> {
    const url = new URL(databaseUrl);
    const p = await startPgBouncer({
      databaseUrl, mode,
      users: [{ name: decodeURIComponent(url.username), password: decodeURIComponent(url.password) }, { name: 'manette_api', password: API_LOGIN_PASSWORD }],
    });
    poolers.push(p);
    return p;
  }

  for (const [mode, user] of [['session', 'postgres'], ['transaction', 'manette_api']] as const) {
    describe(`${mode} mode, the URL's user being ${user === 'postgres' ? 'the database\'s own' : 'a login manette_api'}`, () => {
      let p: RunningPooler;
      let app: TestApp;
      const logs: string[] = [];

      beforeAll(async () => {
        p = await pooler(mode);
        const poolUrl = new URL(p.url(databaseUrl));
        if (user === 'manette_api') {
          poolUrl.username = 'manette_api';
          poolUrl.password = API_LOGIN_PASSWORD;
        }
        app = await startTestApp({}, databaseUrl, { poolUrl: poolUrl.toString(), deadlineMs: DEADLINE_MS, logs });
      });
      afterAll(async () => { await app?.close(); });

      it('a player registers and plays; the SQL ran as manette_api within the time limit', async () => {
        const api = client(app.baseUrl, await app.applyGame(GAME(`sonde-${mode}`)));
        const [a, b] = [await api.register(`Sonde${mode}A`), await api.register(`Sonde${mode}B`)];
        await api.post('/matchmaking/join', { mode_jeu: 'sonde', elo_actuel: 1000 }, { token: a.token });
        const joined = await api.post('/matchmaking/join', { mode_jeu: 'sonde', elo_actuel: 1000 }, { token: b.token });
        expect(joined.body.status, JSON.stringify(joined.body)).toBe('matched');
        const played = await api.post('/match/action', { partie_id: joined.body.partie_id, action: 'sonder' }, { token: a.token });
        expect(played.status, JSON.stringify(played.body)).toBe(200);
        expect(played.body.partie.etat_plateau).toEqual({ role: 'manette_api', statement_timeout: `${DEADLINE_MS / 1000}s` });
      });

      it('a request whose SQL runs past the limit is cancelled by Postgres: 503 unavailable with Retry-After', async () => {
        const api = client(app.baseUrl, await app.applyGame(GAME(`sonde-lent-${mode}`)));
        const [a, b] = [await api.register(`Lent${mode}A`), await api.register(`Lent${mode}B`)];
        await api.post('/matchmaking/join', { mode_jeu: 'sonde', elo_actuel: 1000 }, { token: a.token });
        const joined = await api.post('/matchmaking/join', { mode_jeu: 'sonde', elo_actuel: 1000 }, { token: b.token });
        logs.length = 0;
        const slow = await api.post('/match/action', { partie_id: joined.body.partie_id, action: 'dormir', donnees: { secondes: 4 * DEADLINE_MS / 1000 } }, { token: a.token });
        expect(slow.status).toBe(503);
        expect(slow.body).toMatchObject({ ok: false, error: 'unavailable' });
        expect(slow.headers.get('retry-after')).toBe('1');
        // Postgres cancelled it (statement_timeout, SQLSTATE 57014), not the client giving up.
        const failed = logs.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request failed');
        expect(failed.map((l) => l.err?.code)).toEqual(['57014']);
        // Nothing of it was kept: the match has no action.
        expect(await app.sql('select count(*)::int as n from manette.match_actions where match_id = $1', [joined.body.partie_id])).toEqual([{ n: 0 }]);
      });

      it('`manette apply` and an admin command run as manette_admin', async () => {
        // The admin tooling connects as the URL's user (here postgres, the only one that may).
        const url = p.url(databaseUrl);
        const file = path.join(dir, `admin-${mode}.json`);
        await writeFile(file, JSON.stringify(minimalGame(`admin-${mode}`)));
        const applied = await cli(['apply', file], url);
        expect(applied.code, applied.stdout + applied.stderr).toBe(0);
        const created = await cli(['keys', 'create', `admin-${mode}`, '--json'], url);
        expect(created.code, created.stdout + created.stderr).toBe(0);
        expect(await app.sql('select role from public.key_writes where game_slug = $1', [`admin-${mode}`]))
          .toEqual([{ role: 'manette_admin' }, { role: 'manette_admin' }]);
      });
    });
  }
});
