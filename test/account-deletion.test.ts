// Data export and account deletion (issue 23; docs/accounts.md, "Export and deletion"),
// over real HTTP on a real database: a player with rows, files, an avatar, scores, matches
// and an economy exports all of it, then deletes the account with the password; a scan of
// every table of the database (found in the catalog, every column cast to text) finds no
// trace of the pseudo, e-mail, file content, row data, avatar bytes or Google id, except in
// realtime.messages (Supabase Realtime's own transient log of broadcasts). The same token
// again gets the same 200; login is refused. A wrong password changes nothing; a Google
// account deletes with a fresh ID token of its own; a guest with `{}`; bad inputs get the
// envelope; simultaneous deletions erase once. Last, the backend running a deletion is
// killed with SIGKILL mid-way (on a Postgres of the test's own): the account is whole
// afterwards, and a retry deletes it. No timed assertion.
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveGoogleKeys, type GoogleKeys } from './support/google-keys.js';
import { client, startTestApp, twinAdminUrlOf, type Reply, type TestApp } from './support/harness.js';
import { startEmbeddedPostgres, type RunningPostgres } from '../twin/postgres/embedded.js';
import { migrate } from '../api/db/migrate.js';
import { freePort } from './support/net.js';

const GOOGLE_CLIENT = 'client-del.apps.googleusercontent.com';
const GAME = {
  jeu: 'suppression', nom: 'Suppression',
  google: { client_id: GOOGLE_CLIENT },
  tables: { notes: { colonnes: { texte: { type: 'text' } }, lecture: 'proprietaire', ecriture: 'joueurs' } },
  classements: { points: {} },
  monnaies: { or: { nom: 'Or', depart: 100 } },
  objets: { potion: { nom: 'Potion' } },
  boutique: [{ code: 'potion', nom: 'Potion', prix: 10, devise: 'or', contenu: { objets: { potion: 1 } } }],
  modes: { duel: { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', elo: 'serveur', elo_ecart_initial: 10000 } },
};
const PASSWORD = 'motdepasse-solide';
// A valid 1×1 PNG, with bytes of its own after IEND (so that its bytes are this player's only).
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

let app: TestApp;
let jwks: GoogleKeys;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  jwks = await serveGoogleKeys();
  app = await startTestApp({ MANETTE_GOOGLE_JWKS_URL: jwks.jwksUrl });
  api = client(app.baseUrl, await app.applyGame(GAME));
});
afterAll(async () => {
  await app?.close();
  jwks?.close();
});

const uniq = () => randomBytes(5).toString('hex');
interface Player { id: string; pseudo: string; email: string; token: string }
async function register(prefix: string, c = api): Promise<Player> {
  const pseudo = `${prefix}_${uniq()}`;
  const r = await c.register(pseudo, { password: PASSWORD });
  return { id: r.data.joueur.id, pseudo, email: `${pseudo.toLowerCase()}@example.test`, token: r.token };
}
function ok(r: Reply, status = 200) {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  return r.body;
}
function envelope(r: Reply, status: number, error: string) {
  expect([r.status, r.body?.ok, r.body?.error], JSON.stringify(r.body)).toEqual([status, false, error]);
  expect(typeof r.body.message).toBe('string');
}
const supprimer = (p: { token: string }, body: unknown, c = api) => c.post('/players/me/supprimer', body, { token: p.token });
const exportOf = (p: { token: string }) => api.get('/players/me/export', { token: p.token });

const idToken = (sub: string, opts: { aud?: string; iat?: number } = {}) => {
  const jwt = new SignJWT({ email_verified: true, email: `${sub}@gmail.test`, name: 'Gaston' })
    .setProtectedHeader({ alg: 'RS256', kid: 'test-key' }).setIssuer('https://accounts.google.com')
    .setAudience(opts.aud ?? GOOGLE_CLIENT).setSubject(sub);
  if (opts.iat !== undefined) jwt.setIssuedAt(opts.iat).setExpirationTime(opts.iat + 7200);
  else jwt.setIssuedAt().setExpirationTime('1h');
  return jwt.sign(jwks.privateKey);
};

/**
 * Every table of the database (the catalog's ordinary and partitioned tables outside
 * Postgres' own schemas), each row cast to text whole: the tables holding `needle`
 * (case-insensitive). As the database's superuser, so that nothing is hidden by a policy
 * or a grant.
 */
async function tablesHolding(needles: string[]): Promise<Record<string, string[]>> {
  const db = new pg.Client({ connectionString: twinAdminUrlOf(app.databaseUrl) });
  await db.connect();
  try {
    const tables = (await db.query<{ name: string }>(`
      select format('%I.%I', n.nspname, c.relname) as name
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relkind in ('r', 'p') and not c.relispartition
        and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname !~ '^pg_'
      order by 1`)).rows.map((r) => r.name);
    expect(tables).toContain('manette.players');
    expect(tables).toContain('realtime.messages');
    const found: Record<string, string[]> = {};
    for (const table of tables) {
      const { rows } = await db.query<{ hits: string[] }>(
        `select array(select n from unnest($1::text[]) n
                      where exists (select 1 from ${table} t where strpos(lower(t::text), lower(n)) > 0)) as hits`, [needles]);
      if (rows[0]!.hits.length) found[table] = rows[0]!.hits;
    }
    return found;
  } finally {
    await db.end();
  }
}

/** What the database holds of a player, counted table by table (as `postgres`). */
async function holdings(id: string) {
  const [r] = await app.sql(`select
      (select count(*) from manette.table_rows where player_id = $1)::int as lignes,
      (select count(*) from manette.files where player_id = $1)::int as fichiers,
      (select count(*) from manette.avatars where player_id = $1)::int as avatars,
      (select count(*) from manette.leaderboard_entries where player_id = $1)::int as scores,
      (select count(*) from manette.ratings where player_id = $1)::int as elo,
      (select count(*) from manette.ledger where player_id = $1)::int as ledger,
      (select count(*) from manette.balances where player_id = $1)::int as balances,
      (select count(*) from manette.inventory where player_id = $1)::int as inventory,
      (select count(*) from manette.sessions where player_id = $1 and revoked_at is null)::int as sessions,
      (select count(*) from manette.match_players where player_id = $1)::int as parties,
      (select deleted_at is not null from manette.players where id = $1) as supprime`, [id]);
  return r!;
}

/** A match of `duel` between a and b (a plays first), through matchmaking. */
async function duel(a: Player, b: Player): Promise<string> {
  ok(await api.post('/matchmaking/join', { mode_jeu: 'duel', elo_actuel: 1000 }, { token: a.token }));
  const m = ok(await api.post('/matchmaking/join', { mode_jeu: 'duel', elo_actuel: 1000 }, { token: b.token }));
  expect(m.status).toBe('matched');
  return m.partie_id as string;
}
const play = (p: Player, partie_id: string, c: number) =>
  api.post('/match/action', { partie_id, action: 'jouer', donnees: { case: c } }, { token: p.token });

describe('export, then deletion with the password', () => {
  it('the export holds everything; afterwards no table but realtime.messages holds a trace; retry 200; login refused', async () => {
    const ana = await register('efface');
    const bob = await register('reste');
    const marks = { row: `ligne-${uniq()}`, file: `fichier-${uniq()}`, avatar: `avatar-${uniq()}` };
    const avatar = Buffer.concat([PNG, Buffer.from(marks.avatar)]);

    // Rows, files, avatar, score, economy.
    for (let i = 0; i < 3; i++) ok(await api.post('/tables/notes', { donnees: { texte: `${marks.row} ${i}` } }, { token: ana.token }), 201);
    ok(await api.post('/tables/notes', { donnees: { texte: 'bob' } }, { token: bob.token }), 201);
    ok(await api.post('/storage/upload', { nom: 'save.txt', mime_type: 'text/plain', contenu: marks.file }, { token: ana.token }), 201);
    ok(await api.post('/storage/upload', { nom: 'save.txt', mime_type: 'text/plain', contenu: 'bob' }, { token: bob.token }), 201);
    ok(await api.post('/players/avatar', { mime_type: 'image/png', contenu: avatar.toString('base64') }, { token: ana.token }));
    ok(await api.post('/leaderboards/points/submit', { valeur: 42 }, { token: ana.token }));
    ok(await api.post('/leaderboards/points/submit', { valeur: 7 }, { token: bob.token }));
    ok(await api.post('/shop/acheter', { code: 'potion' }, { token: ana.token }));
    // A finished match (ana wins), then an ongoing one.
    const done = await duel(ana, bob);
    for (const [p, c] of [[ana, 0], [bob, 3], [ana, 1], [bob, 4], [ana, 2]] as const) ok(await play(p, done, c));
    const live = await duel(ana, bob);
    const first = ok(await api.get(`/match/state?partie_id=${live}`, { token: ana.token })).partie.tour_joueur;
    ok(await play(first === ana.id ? ana : bob, live, 4));

    // The export.
    const ex = ok(await exportOf(ana)).data;
    expect(Object.keys(ex).sort()).toEqual(['avatar', 'connexions', 'economie', 'elo', 'exporte_le', 'fichiers', 'joueur',
      'lignes', 'parties', 'reinitialisations', 'scores', 'sessions']);
    expect(ex.joueur).toMatchObject({ id: ana.id, pseudo: ana.pseudo, email: ana.email, invite: false, google_sub: null, suspension: null });
    expect(ex.sessions).toHaveLength(1);
    expect(JSON.stringify(ex)).not.toMatch(/argon2|pt_[A-Za-z0-9_-]{43}|token/);
    expect(ex.lignes.map((l: any) => [l.table, l.donnees.texte]).sort())
      .toEqual([0, 1, 2].map((i) => ['notes', `${marks.row} ${i}`]));
    expect(ex.fichiers).toEqual([expect.objectContaining({ nom: 'save.txt', mime_type: 'text/plain', contenu: marks.file, taille: marks.file.length })]);
    expect(ex.avatar).toMatchObject({ mime_type: 'image/png', contenu: avatar.toString('base64') });
    expect(ex.scores).toEqual([expect.objectContaining({ classement: 'points', valeur: 42 })]);
    expect(ex.elo).toEqual([expect.objectContaining({ mode_jeu: 'duel', parties: 1 })]);
    expect(ex.parties.map((m: any) => m.id).sort()).toEqual([done, live].sort());
    const exDone = ex.parties.find((m: any) => m.id === done);
    expect(exDone).toMatchObject({ mode_jeu: 'duel', statut: 'terminee', equipe: 1, gagnant_id: ana.id });
    expect(exDone.actions.map((a: any) => a.donnees.case)).toEqual([0, 1, 2]);
    expect(ex.parties.find((m: any) => m.id === live)).toMatchObject({ statut: 'en_cours', termine_le: null });
    expect(ex.economie.portefeuille).toEqual([expect.objectContaining({ code: 'or', solde: 90 })]);
    expect(ex.economie.inventaire).toEqual([expect.objectContaining({ code: 'potion', quantite: 1 })]);
    expect(ex.economie.historique.map((l: any) => `${l.raison}:${l.code}:${l.delta}`).sort())
      .toEqual(['achat:or:-10', 'achat:potion:1', 'depart:or:100'].sort());
    expect(ex.connexions).toEqual([]); // registered, never logged in
    // An export of bob is bob's.
    const exBob = ok(await exportOf(bob)).data;
    expect(exBob.joueur.id).toBe(bob.id);
    expect(exBob.fichiers.map((f: any) => f.contenu)).toEqual(['bob']);

    const bobBefore = await holdings(bob.id);
    const needles = [ana.pseudo, ana.email, marks.row, marks.file, Buffer.from(marks.avatar).toString('hex')];
    const before = await tablesHolding(needles);
    expect(before['manette.players']).toEqual(expect.arrayContaining([ana.pseudo, ana.email]));
    expect(before['manette.files']).toEqual([marks.file]);
    expect(before['manette.avatars']).toEqual([Buffer.from(marks.avatar).toString('hex')]);

    // Deletion.
    expect(ok(await supprimer(ana, { password: PASSWORD }))).toEqual({ ok: true, data: { supprime: true } });
    const after = await tablesHolding(needles);
    // The one exception: realtime.messages, Supabase Realtime's own log of what was broadcast
    // (the matches' participants with their pseudos), owned by supabase_realtime_admin on a
    // hosted project and emptied by Realtime itself (docs/accounts.md).
    expect(Object.keys(after).filter((t) => t !== 'realtime.messages')).toEqual([]);
    // And there, only the pseudo (a broadcast names participants by pseudo, never by e-mail).
    expect([ana.pseudo]).toEqual(expect.arrayContaining(after['realtime.messages'] ?? []));
    expect(await holdings(ana.id)).toEqual({
      lignes: 0, fichiers: 0, avatars: 0, scores: 0, elo: 0, ledger: 0, balances: 0, inventory: 0, sessions: 0, parties: 2, supprime: true,
    });
    // The ongoing match was abandoned: bob won it. Bob's data as it was (his rating moved with that win).
    const state = ok(await api.get(`/match/state?partie_id=${live}`, { token: bob.token }));
    expect(state.partie).toMatchObject({ statut: 'terminee', gagnant_id: bob.id });
    expect({ ...(await holdings(bob.id)) }).toEqual(bobBefore);
    // The finished match still shows two participants, ana anonymous.
    const hist = ok(await api.get(`/match/state?partie_id=${done}`, { token: bob.token }));
    expect(hist.partie.participants.map((p: any) => p.pseudo)).toEqual([expect.stringMatching(/^supprime-[0-9a-f]{32}$/), bob.pseudo]);

    // The same token again: the same 200. Nothing else opens with it; login is refused.
    expect(ok(await supprimer(ana, { password: PASSWORD }))).toEqual({ ok: true, data: { supprime: true } });
    expect(ok(await supprimer(ana, {}))).toEqual({ ok: true, data: { supprime: true } });
    envelope(await exportOf(ana), 401, 'invalid_token');
    envelope(await api.get('/players/me', { token: ana.token }), 401, 'invalid_token');
    envelope(await api.post('/players/login', { identifiant: ana.pseudo, password: PASSWORD }), 401, 'invalid_credentials');
    envelope(await api.post('/players/login', { email: ana.email, password: PASSWORD }), 401, 'invalid_credentials');
    // Her pseudo and e-mail are free again.
    ok(await api.post('/players/register', { pseudo: ana.pseudo, email: ana.email, password: PASSWORD }), 201);
  });
});

describe('what deletion refuses', () => {
  it('a wrong password: 401 invalid_credentials, nothing changed, and it counts as a failed login', async () => {
    const p = await register('garde');
    ok(await api.post('/storage/upload', { nom: 'a.txt', mime_type: 'text/plain', contenu: 'garde' }, { token: p.token }), 201);
    const before = await holdings(p.id);
    envelope(await supprimer(p, { password: 'pas-le-bon-mot' }), 401, 'invalid_credentials');
    envelope(await supprimer(p, {}), 401, 'invalid_credentials');
    envelope(await supprimer(p, { id_token: await idToken('quelquun') }), 401, 'invalid_credentials');
    expect(await holdings(p.id)).toEqual(before);
    ok(await exportOf(p));
    const [n] = await app.sql('select count(*)::int as n from manette.login_attempts where player_id = $1 and succeeded = false', [p.id]);
    expect(n!.n).toBe(3); // the account has a password: every try counts against the login's budget
    ok(await api.post('/players/login', { identifiant: p.pseudo, password: PASSWORD }));
  });

  it('the endpoint cannot guess passwords faster than login: too_many_attempts after 10 failures', async () => {
    const p = await register('devine');
    for (let i = 0; i < 10; i++) envelope(await supprimer(p, { password: `faux-${i}` }), 401, 'invalid_credentials');
    const r = await supprimer(p, { password: PASSWORD });
    envelope(r, 429, 'too_many_attempts');
    expect((await holdings(p.id)).supprime).toBe(false);
    envelope(await api.post('/players/login', { identifiant: p.pseudo, password: PASSWORD }), 429, 'too_many_attempts');
  });

  it('bad inputs get the envelope and change nothing', async () => {
    const p = await register('mauvais');
    const before = await holdings(p.id);
    envelope(await supprimer(p, { password: 123 }), 400, 'validation_failed');
    envelope(await supprimer(p, { password: '' }), 400, 'validation_failed');
    envelope(await supprimer(p, { password: 'x'.repeat(129) }), 400, 'validation_failed');
    envelope(await supprimer(p, { password: PASSWORD, id_token: 'x' }), 400, 'validation_failed');
    envelope(await supprimer(p, { id_token: 'pas-un-jeton' }), 401, 'invalid_credentials');
    envelope(await api.request('POST', '/players/me/supprimer', { raw: '{"password":', token: p.token, headers: { 'content-type': 'application/json' } }), 400, 'invalid_json');
    envelope(await api.post('/players/me/supprimer', { password: PASSWORD }), 401, 'missing_player');
    envelope(await api.post('/players/me/supprimer', { password: PASSWORD }, { token: 'pt_' + 'x'.repeat(43) }), 401, 'invalid_token');
    envelope(await api.post('/players/me/supprimer', { password: PASSWORD }, { token: p.token, key: null }), 401, 'missing_key');
    envelope(await api.get('/players/me/export'), 401, 'missing_player');
    envelope(await api.get('/players/me/export', { token: p.token, key: 'sk_live_inconnue' }), 401, 'invalid_key');
    expect(await holdings(p.id)).toEqual(before);
    // GET /players/me is still the profile, beside /players/me/export.
    expect(ok(await api.get('/players/me', { token: p.token })).data.joueur.id).toBe(p.id);
  });
});

describe('deletion by Google, by a guest, and at once', () => {
  it('a Google account: a fresh ID token of its own deletes it; a stale one, another account’s or another audience’s does not', async () => {
    const sub = `g-${uniq()}`;
    const login = ok(await api.post('/players/google', { id_token: await idToken(sub) }));
    const g = { token: login.token as string, id: login.data.joueur.id as string };
    const now = Math.floor(Date.now() / 1000);
    envelope(await supprimer(g, { id_token: await idToken(sub, { iat: now - 3600 }) }), 401, 'invalid_credentials');
    envelope(await supprimer(g, { id_token: await idToken(`autre-${uniq()}`) }), 401, 'invalid_credentials');
    envelope(await supprimer(g, { id_token: await idToken(sub, { aud: 'autre.apps.googleusercontent.com' }) }), 401, 'invalid_credentials');
    envelope(await supprimer(g, {}), 401, 'invalid_credentials');
    envelope(await supprimer(g, { password: 'quelconque' }), 401, 'invalid_credentials');
    expect((await holdings(g.id)).supprime).toBe(false);
    expect(ok(await exportOf(g)).data.joueur.google_sub).toBe(sub);
    expect(ok(await supprimer(g, { id_token: await idToken(sub) }))).toEqual({ ok: true, data: { supprime: true } });
    expect(await tablesHolding([sub])).toEqual({});
    // The same Google account logs in again as a new player.
    const again = ok(await api.post('/players/google', { id_token: await idToken(sub) }));
    expect(again.data.joueur.id).not.toBe(g.id);
  });

  it('a guest (neither password nor Google) deletes with {}', async () => {
    const appareil_id = `appareil-${uniq()}-suppression`;
    const invited = ok(await api.post('/players/invite', { appareil_id }));
    const token = invited.token as string;
    const pseudo = invited.data.joueur.pseudo as string;
    const guest = { token, id: invited.data.joueur.id as string };
    ok(await api.post('/tables/notes', { donnees: { texte: 'invite' } }, { token }), 201);
    expect(ok(await exportOf(guest)).data.joueur).toMatchObject({ pseudo, invite: true });
    expect(ok(await supprimer(guest, {}))).toEqual({ ok: true, data: { supprime: true } });
    expect(await holdings(guest.id)).toMatchObject({ lignes: 0, sessions: 0, supprime: true });
    expect(ok(await supprimer(guest, {}))).toEqual({ ok: true, data: { supprime: true } });
    // The device no longer opens that guest: the same appareil_id makes a new one.
    const again = ok(await api.post('/players/invite', { appareil_id }));
    expect(again.data.joueur.id).not.toBe(guest.id);
  });

  it('many simultaneous deletions with the same token: all 200, one erasure', async () => {
    const p = await register('ensemble');
    ok(await api.post('/tables/notes', { donnees: { texte: 'x' } }, { token: p.token }), 201);
    const replies = await Promise.all(Array.from({ length: 8 }, (_, i) => supprimer(p, i % 2 ? { password: PASSWORD } : { password: PASSWORD })));
    for (const r of replies) expect(ok(r)).toEqual({ ok: true, data: { supprime: true } });
    const [row] = await app.sql('select pseudo, deleted_at from manette.players where id = $1', [p.id]);
    expect(row!.pseudo).toMatch(/^supprime-/);
    expect(await holdings(p.id)).toMatchObject({ lignes: 0, sessions: 0, supprime: true });
  });
});

// == a write racing the erasure (issue 31) ==========================================
// A request that authenticated before the erasure must commit before it (and be erased)
// or fail after it: never commit after it, attached to the tombstone. The race is made
// deterministic: a trigger of this test's own (BEFORE INSERT, for this player only) makes
// the write wait on an advisory lock the test holds, after the request authenticated and
// before its row exists; the deletion runs meanwhile; then the lock is released.
describe('a write racing the erasure', () => {
  it.each([
    ['a row', 'table_rows', (p: Player) => api.post('/tables/notes', { donnees: { texte: 'écrit pendant la suppression' } }, { token: p.token }), 'tables_create'],
    ['a file', 'files', (p: Player) => api.post('/storage/upload', { nom: 'course.txt', mime_type: 'text/plain', contenu: 'envoyé pendant la suppression' }, { token: p.token }), 'storage_upload'],
    ['a score', 'leaderboard_entries', (p: Player) => api.post('/leaderboards/points/submit', { valeur: 7 }, { token: p.token }), 'leaderboards_submit'],
    ['a purchase', 'ledger', (p: Player) => api.post('/shop/acheter', { code: 'potion' }, { token: p.token }), 'shop_acheter'],
  ] as const)('%s sent with the token before the deletion is erased with the account, or refused: never left on the tombstone', async (_what, table, send, fn) => {
    const p = await register('course');
    const admin = new pg.Client({ connectionString: twinAdminUrlOf(app.databaseUrl) });
    await admin.connect();
    const holder = new pg.Client({ connectionString: twinAdminUrlOf(app.databaseUrl) });
    await holder.connect();
    const key = 310_000 + Math.floor(Math.random() * 10_000);
    const trigger = `course_${table}`;
    try {
      await admin.query(`create or replace function public.${trigger}() returns trigger language plpgsql as $f$
        begin
          if new.player_id = '${p.id}' then perform pg_advisory_xact_lock(${key}); end if;
          return new;
        end $f$`);
      await admin.query(`create trigger ${trigger} before insert on manette.${table} for each row execute function public.${trigger}()`);
      await holder.query('select pg_advisory_lock($1)', [key]);
      const write = send(p);
      const waiting = async (name: string) => {
        const { rows } = await admin.query(`select 1 from pg_stat_activity
          where query like $1 and wait_event_type = 'Lock' and pid <> pg_backend_pid()`, [`%${name}(%`]);
        return rows.length > 0;
      };
      for (const end = Date.now() + 20_000; !(await waiting(fn)) && Date.now() < end;) await new Promise((r) => setTimeout(r, 25));
      expect(await waiting(fn), 'the write waits, authenticated, before its row exists').toBe(true);
      let deleted: Reply | undefined;
      const deletion = supprimer(p, { password: PASSWORD }).then((r) => { deleted = r; return r; });
      // Today the deletion completes while the write waits; fixed, it waits for the write.
      for (const end = Date.now() + 5_000; deleted === undefined && !(await waiting('players_supprimer')) && Date.now() < end;) {
        await new Promise((r) => setTimeout(r, 25));
      }
      await holder.query('select pg_advisory_unlock($1)', [key]);
      const [w, d] = await Promise.all([write, deletion]);
      expect(ok(d)).toEqual({ ok: true, data: { supprime: true } });
      if (w.status >= 300) envelope(w, 401, 'invalid_token');
      expect(await holdings(p.id)).toMatchObject({ lignes: 0, fichiers: 0, scores: 0, ledger: 0, inventory: 0, balances: 0, sessions: 0, supprime: true });
    } finally {
      await admin.query(`drop trigger if exists ${trigger} on manette.${table}`).catch(() => {});
      await holder.end().catch(() => {});
      await admin.end().catch(() => {});
    }
  }, 60_000);
});

// == kill -9 of the backend running a deletion =====================================
// On a Postgres of this test's own (killing a backend restarts every connection of its
// cluster). The deletion is made long (many rows and files), and is held at a known point:
// this test holds a lock on one of the player's balance rows, which manette.player_erase
// deletes last, after the sessions, rows, files, avatar, scores, ratings and ledger. The
// backend waiting for it (pg_stat_activity) is killed with SIGKILL; the postmaster
// restarts the cluster; the account is whole (nothing of the transaction stayed), and a
// retry with the same token and password deletes it.
describe('a deletion killed mid-way', () => {
  let dir: string;
  let server: RunningPostgres;
  let own: TestApp;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'manette-deletion-kill-'));
    await chmod(dir, 0o755); // as root, Postgres runs as the `postgres` user and must reach it
    server = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: await freePort() });
    await migrate(server.url);
    // A long deadline: the deletion waits on a lock this test holds until it kills it.
    own = await startTestApp({}, server.url, { deadlineMs: 120_000 });
  }, 240_000);
  afterAll(async () => {
    await own?.close();
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('is all or nothing, and a retry completes it', async () => {
    const c = client(own.baseUrl, await own.applyGame(GAME));
    const p = await register('coupe', c);
    const ROWS = 400;
    const FILES = 40;
    await own.sql(`insert into manette.table_rows (game_id, table_id, player_id, data)
      select t.game_id, t.id, $1, jsonb_build_object('texte', 'ligne ' || i)
      from manette.data_tables t, generate_series(1, $2) i where t.name = 'notes'`, [p.id, ROWS]);
    for (let i = 0; i < FILES; i++) ok(await c.post('/storage/upload', { nom: `f${i}.txt`, mime_type: 'text/plain', contenu: 'x'.repeat(10_000) }, { token: p.token }), 201);
    ok(await c.post('/shop/acheter', { code: 'potion' }, { token: p.token }));
    const count = async () => (await own.sql(`select
        (select count(*) from manette.table_rows where player_id = $1)::int as lignes,
        (select count(*) from manette.files where player_id = $1)::int as fichiers,
        (select count(*) from manette.ledger where player_id = $1)::int as ledger,
        (select count(*) from manette.sessions where player_id = $1 and revoked_at is null)::int as sessions,
        (select pseudo from manette.players where id = $1) as pseudo`, [p.id]))[0];
    const whole = await count();
    expect(whole).toMatchObject({ lignes: ROWS, fichiers: FILES, sessions: 1, pseudo: p.pseudo });

    // Hold the player's balance row; start the deletion; find its backend waiting for that lock.
    const holder = new pg.Client({ connectionString: server.adminUrl });
    holder.on('error', () => {}); // the crash restart ends this connection too
    await holder.connect();
    await holder.query('begin');
    await holder.query('select * from manette.balances where player_id = $1 for update', [p.id]);
    let settled = 'pending';
    const deletion = supprimer(p, { password: PASSWORD }, c).catch((err: Error) => err);
    void deletion.then((r) => { settled = r instanceof Error ? r.message : `${r.status} ${JSON.stringify(r.body)}`; });
    // Watched from another connection: inside a transaction, pg_stat_activity is a snapshot.
    const watcher = new pg.Client({ connectionString: server.adminUrl });
    watcher.on('error', () => {});
    await watcher.connect();
    let pid: number | undefined;
    for (const end = Date.now() + 60_000; pid === undefined && settled === 'pending' && Date.now() < end;) {
      const rows = (await watcher.query<{ pid: number }>(
        `select pid from pg_stat_activity
         where query like '%players_supprimer(%' and wait_event_type = 'Lock' and pid <> pg_backend_pid()`)).rows;
      pid = rows[0]?.pid;
      if (pid === undefined) await new Promise((r) => setTimeout(r, 50));
    }
    if (pid === undefined) {
      const activity = (await watcher.query('select pid, state, wait_event_type, wait_event, left(query, 200) as q from pg_stat_activity')).rows;
      expect.fail(`no deletion waiting for the held balance row: ${settled}\n${JSON.stringify(activity, null, 1)}`);
    }
    process.kill(pid!, 'SIGKILL');

    // The request gets no success; the cluster comes back.
    const lost = await deletion;
    if (!(lost instanceof Error)) expect(lost.status).toBeGreaterThanOrEqual(500);
    await holder.end().catch(() => {});
    await watcher.end().catch(() => {});
    let back: any;
    for (const end = Date.now() + 60_000; back === undefined && Date.now() < end;) {
      back = await count().catch(() => undefined);
      if (back === undefined) await new Promise((r) => setTimeout(r, 100));
    }
    // All of it is there: nothing of the killed transaction stayed.
    expect(back).toEqual(whole);
    let me: Reply | undefined;
    for (const end = Date.now() + 60_000; (me === undefined || me.status >= 500) && Date.now() < end;) {
      me = await c.get('/players/me', { token: p.token });
      if (me.status >= 500) await new Promise((r) => setTimeout(r, 100));
    }
    expect(ok(me!).data.joueur.pseudo).toBe(p.pseudo);

    // A retry, same token and password: deleted, wholly.
    expect(ok(await supprimer(p, { password: PASSWORD }, c))).toEqual({ ok: true, data: { supprime: true } });
    expect(await count()).toMatchObject({ lignes: 0, fichiers: 0, ledger: 0, sessions: 0, pseudo: expect.stringMatching(/^supprime-/) });
  }, 240_000);
});
