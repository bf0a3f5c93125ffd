// Guest play and linking (docs/accounts.md, "Guest play and linking"; issue 23) over real
// HTTP: POST /players/invite, POST /players/lier, and the purge of unused guests by the real
// sweep. ID tokens are signed by keys this file serves as the Google key set.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import pg from 'pg';
import { pino } from 'pino';
import { serveGoogleKeys, type GoogleKeys } from './support/google-keys.js';
import { client, minimalGame, startTestApp, type Reply, type TestApp } from './support/harness.js';
import { startTurnSweeper } from '../api/turn-sweeper.js';
import { parseGameConfig } from '../api/config/game-config.js';

let app: TestApp;
let jwks: GoogleKeys;
let api: ReturnType<typeof client>;
const GOOGLE_CLIENT = 'client-789.apps.googleusercontent.com';

beforeAll(async () => {
  jwks = await serveGoogleKeys();
  // TRUST_PROXY: each test invites from its own client address (X-Forwarded-For), so the
  // limit of guest creations per address is tested alone.
  app = await startTestApp({ MANETTE_GOOGLE_JWKS_URL: jwks.jwksUrl, TRUST_PROXY: '1' });
  api = client(app.baseUrl, await app.applyGame(minimalGame('jeu-invites', {
    google: { client_id: GOOGLE_CLIENT },
    tables: { notes: { colonnes: { texte: { type: 'text' } }, lecture: 'proprietaire', ecriture: 'joueurs' } },
    classements: { score: {} },
    monnaies: { or: { nom: 'Or', depart: 100 } },
    objets: { potion: { nom: 'Potion' } },
    boutique: [{ code: 'potion', nom: 'Potion', prix: 10, devise: 'or', contenu: { objets: { potion: 1 } } }],
    modes: { '1v1': { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', recompenses: { victoire: { monnaies: { or: 50 } } } } },
  })));
});
afterAll(async () => {
  await app?.close();
  jwks?.close();
});

/** Every reply of this file goes through here: whatever happens, never a 5xx. */
const replies: Reply[] = [];
function seen(r: Reply): Reply {
  replies.push(r);
  expect(r.status, JSON.stringify(r.body)).toBeLessThan(500);
  return r;
}
let address = 0;
/** A client address of its own (X-Forwarded-For), for one test's invites. */
const newAddress = () => `192.0.2.${++address}`;
const invite = async (body: unknown, ip: string) => seen(await api.post('/players/invite', body, { headers: { 'x-forwarded-for': ip } }));
const lier = async (token: string | undefined, body: unknown) => seen(await api.post('/players/lier', body, { token }));
interface Guest { id: string; token: string; pseudo: string }
async function guest(ip: string, appareil_id?: string): Promise<Guest> {
  const r = await invite(appareil_id === undefined ? {} : { appareil_id }, ip);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.token).toMatch(/^pt_[A-Za-z0-9_-]{43,}$/);
  expect(r.body.data.joueur.invite).toBe(true);
  return { id: r.body.data.joueur.id, token: r.body.token, pseudo: r.body.data.joueur.pseudo };
}
const deviceId = () => `appareil-${Math.random().toString(36).slice(2)}-${Date.now()}`;
const idToken = (sub: string, claims: Record<string, unknown> = {}) => new SignJWT({ email_verified: true, ...claims })
  .setProtectedHeader({ alg: 'RS256', kid: 'test-key' }).setIssuer('https://accounts.google.com')
  .setAudience(GOOGLE_CLIENT).setSubject(sub).setIssuedAt().setExpirationTime('1h').sign(jwks.privateKey);
function expectError(r: Reply, status: number, error: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body).toMatchObject({ ok: false, error });
  expect(typeof r.body.message).toBe('string');
}
/** The stored row of a player, all of it (a refusal must leave it as it was). */
const row = async (id: string) => (await app.sql('select * from manette.players where id = $1', [id]))[0];
/** What a player sees of its own data. */
async function dataOf(token: string) {
  const get = async (p: string) => {
    const r = seen(await api.get(p, { token }));
    expect(r.status, `${p} ${JSON.stringify(r.body)}`).toBe(200);
    return r.body;
  };
  return {
    notes: (await get('/tables/notes')).data.map((l: any) => ({ id: l.id, joueur_id: l.joueur_id, donnees: l.donnees })),
    // (the scores show the pseudo, which linking may change)
    score: (await get('/leaderboards/score/scores')).data.map(({ pseudo: _p, ...e }: any) => e),
    portefeuille: await get('/economie/portefeuille'),
    inventaire: await get('/economie/inventaire'),
    historique: await get('/economie/historique'),
  };
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a guest plays, then links', () => {
  it('keeps its id, rows, score, economy and match through linking, then logs in by e-mail', async () => {
    const ip = newAddress();
    const appareil = deviceId();
    const g = await guest(ip, appareil);
    expect(g.pseudo).toMatch(/^invite_\d{6}$/);
    // The same appareil_id again: the same guest, a new session.
    const back = await guest(ip, appareil);
    expect(back.id).toBe(g.id);
    expect(back.token).not.toBe(g.token);

    // Plays: a row, a score, a purchase, a match won (with its reward).
    expect(seen(await api.post('/tables/notes', { donnees: { texte: 'de l’invité' } }, { token: g.token })).status).toBe(201);
    expect(seen(await api.post('/leaderboards/score/submit', { valeur: 42 }, { token: g.token })).status).toBe(200);
    expect(seen(await api.post('/shop/acheter', { code: 'potion' }, { token: g.token })).status).toBe(200);
    const rival = await api.register(`Rival_${address}`);
    expect(seen(await api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1000 }, { token: g.token })).status).toBe(200);
    const m = seen(await api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1000 }, { token: rival.token })).body;
    expect(m.status).toBe('matched');
    const guestFirst = m.participants[0].joueur_id === g.id;
    const [x, o] = guestFirst ? [g.token, rival.token] : [rival.token, g.token];
    for (const [t, c] of [[x, 0], [o, 3], [x, 1], [o, 4], [x, 2]] as [string, number][]) {
      const r = seen(await api.post('/match/action', { partie_id: m.partie_id, action: 'jouer', donnees: { case: c } }, { token: t }));
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    }
    const before = await dataOf(g.token);
    expect(before.notes).toHaveLength(1);
    expect(before.historique.data.mouvements.length).toBeGreaterThanOrEqual(2);

    // Links with an e-mail, a password and a chosen pseudo.
    const linked = await lier(g.token, { pseudo: `Lie_${address}`, email: `lie${address}@example.test`, password: 'mot-de-passe-lie' });
    expect(linked.status, JSON.stringify(linked.body)).toBe(200);
    expect(linked.body).toEqual({ ok: true, data: { joueur: expect.objectContaining({
      id: g.id, pseudo: `Lie_${address}`, email: `lie${address}@example.test`, invite: false }) } });
    // The session stays valid and sees the same data.
    const me = seen(await api.get('/players/me', { token: g.token }));
    expect(me.body.data.joueur).toMatchObject({ id: g.id, invite: false });
    expect(await dataOf(g.token)).toEqual(before);
    // Logs in by e-mail: the same player, the same data.
    const login = seen(await api.post('/players/login', { identifiant: `lie${address}@example.test`, password: 'mot-de-passe-lie' }));
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    expect(login.body.data.joueur).toMatchObject({ id: g.id, invite: false });
    expect(await dataOf(login.body.token)).toEqual(before);
    const match = (await app.sql('select count(*)::int as n from manette.match_players where match_id = $1 and player_id = $2', [m.partie_id, g.id]))[0];
    expect(match!.n).toBe(1);
    // Its appareil_id no longer opens it: a new guest.
    const after = await guest(ip, appareil);
    expect(after.id).not.toBe(g.id);
  });

  it('links to Google: the identity and its verified e-mail; a Google login then opens the same player', async () => {
    const g = await guest(newAddress());
    const token = await idToken('sub-guest-lie', { email: 'guest.lie@gmail.test', name: 'Guest Lie' });
    const r = await lier(g.token, { id_token: token });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.joueur).toMatchObject({ id: g.id, email: 'guest.lie@gmail.test', invite: false, pseudo: g.pseudo });
    const login = seen(await api.post('/players/google', { id_token: token }));
    expect(login.status).toBe(200);
    expect(login.body.data.joueur.id).toBe(g.id);
    expect(await row(g.id)).toMatchObject({ google_sub: 'sub-guest-lie', guest: false, device_hash: null, password_hash: null });
  });
});

describe('refusals change nothing', () => {
  it('email_taken, pseudo_taken, google_taken, already_linked and a bad id_token leave the guest as it was', async () => {
    const ip = newAddress();
    const owner = await api.register(`Owner_${address}`);
    const googler = seen(await api.post('/players/google', { id_token: await idToken('sub-deja', { email: 'deja@gmail.test', name: 'Deja' }) }));
    expect(googler.status).toBe(200);
    const g = await guest(ip, deviceId());
    const stored = await row(g.id);

    expectError(await lier(g.token, { email: `OWNER_${address}@example.test`.toUpperCase(), password: 'mot-de-passe-x' }), 409, 'email_taken');
    expectError(await lier(g.token, { email: 'libre@example.test', pseudo: `owner_${address}`, password: 'mot-de-passe-x' }), 409, 'pseudo_taken');
    expectError(await lier(g.token, { id_token: await idToken('sub-deja') }), 409, 'google_taken');
    const otherAudience = await new SignJWT({}).setProtectedHeader({ alg: 'RS256', kid: 'test-key' })
      .setIssuer('https://accounts.google.com').setAudience('autre-client').setSubject('sub-x').setIssuedAt()
      .setExpirationTime('1h').sign(jwks.privateKey);
    expectError(await lier(g.token, { id_token: otherAudience }), 401, 'invalid_credentials');
    expectError(await lier(g.token, { id_token: 'pas-un-jeton' }), 401, 'invalid_credentials');
    expectError(await lier(owner.token, { email: 'autre@example.test', password: 'mot-de-passe-x' }), 409, 'already_linked');
    expectError(await lier(googler.body.token, { id_token: await idToken('sub-autre') }), 409, 'already_linked');
    expect(await row(g.id)).toEqual(stored);
    expect(await row(owner.data.joueur.id)).toMatchObject({ google_sub: null, guest: false });

    // Still a guest that can link; linking twice is already_linked.
    expect((await lier(g.token, { email: `guest${address}@example.test`, password: 'mot-de-passe-x' })).status).toBe(200);
    const linked = await row(g.id);
    expectError(await lier(g.token, { email: `guest${address}b@example.test`, password: 'mot-de-passe-y' }), 409, 'already_linked');
    expect(await row(g.id)).toEqual(linked);
  });

  it('bad inputs get the envelope and create or change nothing', async () => {
    const ip = newAddress();
    const g = await guest(ip);
    const stored = await row(g.id);
    const count = async () => (await app.sql('select count(*)::int as n from manette.players'))[0]!.n as number;
    const players = await count();
    for (const body of [{ appareil_id: 'court' }, { appareil_id: 'avec des espaces dedans' }, { appareil_id: 1234567890123456 },
      { appareil_id: 'x'.repeat(129) }, { appareil_id: null }]) {
      expectError(await invite(body, ip), 400, 'validation_failed');
    }
    const badKey = seen(await api.post('/players/invite', {}, { key: 'sk_live_' + 'Z'.repeat(40), headers: { 'x-forwarded-for': ip } }));
    expectError(badKey, 401, 'invalid_key');
    const fields = (r: Reply) => (r.body.details as Array<{ champ: string }>).map((d) => d.champ).sort();
    const mix = await lier(g.token, { email: 'a@example.test', password: 'mot-de-passe-x', id_token: await idToken('sub-mix') });
    expectError(mix, 400, 'validation_failed');
    expect(fields(mix)).toEqual(['email', 'password']);
    const empty = await lier(g.token, {});
    expectError(empty, 400, 'validation_failed');
    expect(fields(empty)).toEqual(['email', 'password']);
    expectError(await lier(g.token, { email: 'a@example.test' }), 400, 'validation_failed');
    expectError(await lier(g.token, { pseudo: 'Seul', id_token: 'x' }), 400, 'validation_failed');
    expectError(await lier(g.token, { email: 'pas-une-adresse', password: 'mot-de-passe-x' }), 400, 'validation_failed');
    expectError(await lier(g.token, { email: 'a@example.test', password: 'court' }), 400, 'validation_failed');
    expectError(await lier(g.token, { email: 'a@example.test', password: 'mot-de-passe-x', pseudo: 'a b' }), 400, 'validation_failed');
    expectError(await lier(g.token, { id_token: '' }), 400, 'validation_failed');
    expectError(await lier(undefined, { email: 'a@example.test', password: 'mot-de-passe-x' }), 401, 'missing_player');
    expectError(await lier('pt_' + 'x'.repeat(43), { email: 'a@example.test', password: 'mot-de-passe-x' }), 401, 'invalid_token');
    const english = seen(await api.post('/players/lier', {}, { token: g.token, headers: { 'accept-language': 'en' } }));
    expect(english.body.details[0].message).toBe('email and password, id_token, or fournisseur and jeton (one of the three)');
    expect(await count()).toBe(players);
    expect(await row(g.id)).toEqual(stored);
  });
});

describe('concurrency', () => {
  it('20 simultaneous invites with one appareil_id make one guest, each with its own session', async () => {
    const ip = newAddress();
    const appareil = deviceId();
    // The façade's pool connections open first, so the requests really meet in the database.
    await Promise.all(Array.from({ length: 20 }, () => app.pool.query('select pg_sleep(0.05)')));
    const all = await Promise.all(Array.from({ length: 20 }, () => invite({ appareil_id: appareil }, ip)));
    for (const r of all) expect(r.status, JSON.stringify(r.body)).toBe(200);
    const ids = new Set(all.map((r) => r.body.data.joueur.id));
    expect(ids.size).toBe(1);
    expect(new Set(all.map((r) => r.body.token)).size).toBe(20);
    const [id] = [...ids];
    const stored = await app.sql(`select id from manette.players where device_hash = sha256(convert_to($1, 'UTF8'))`, [appareil]);
    expect(stored.map((s) => s.id)).toEqual([id]);
    const sessions = await app.sql('select count(*)::int as n from manette.sessions where player_id = $1', [id]);
    expect(sessions[0]!.n).toBe(20);
    // One creation counted against the address.
    const counted = await app.sql(`select count(*)::int as n from manette.login_attempts where identifier = 'INVITE:CREATION' and client_net = $1`, [ip]);
    expect(counted[0]!.n).toBe(1);
  });

  it('10 simultaneous links of two guests to one e-mail: exactly one wins, the other guest is unchanged', async () => {
    const ip = newAddress();
    const a = await guest(ip);
    const b = await guest(ip);
    const storedA = await row(a.id);
    const storedB = await row(b.id);
    const email = `course${address}@example.test`;
    await Promise.all(Array.from({ length: 20 }, () => app.pool.query('select pg_sleep(0.05)')));
    const all = await Promise.all(Array.from({ length: 10 }, (_, i) =>
      lier((i % 2 ? a : b).token, { email, password: `mot-de-passe-${i}` })));
    const wins = all.filter((r) => r.status === 200);
    expect(wins).toHaveLength(1);
    for (const r of all.filter((x) => x.status !== 200)) {
      expect(r.status, JSON.stringify(r.body)).toBe(409);
      expect(['email_taken', 'already_linked']).toContain(r.body.error);
    }
    const winner = wins[0]!.body.data.joueur.id as string;
    const loser = winner === a.id ? b.id : a.id;
    expect((await app.sql('select id from manette.players where lower(email) = $1', [email])).map((s) => s.id)).toEqual([winner]);
    expect(await row(loser)).toEqual(loser === a.id ? storedA : storedB);
    // The winner's password is one of the requests', and it logs in with it.
    const i = all.indexOf(wins[0]!);
    const login = seen(await api.post('/players/login', { identifiant: email, password: `mot-de-passe-${i}` }));
    expect(login.body.data?.joueur?.id).toBe(winner);
  });
});

describe('limits', () => {
  it('30 new guests an hour per client address; returning guests and other addresses are not limited', async () => {
    const ip = newAddress();
    const appareil = deviceId();
    const first = await guest(ip, appareil);
    for (let i = 1; i < 30; i++) await guest(ip);
    const refused = await invite({}, ip);
    expectError(refused, 429, 'rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3500);
    expectError(await invite({ appareil_id: deviceId() }, ip), 429, 'rate_limited');
    // The guest of a known appareil_id comes back.
    expect((await guest(ip, appareil)).id).toBe(first.id);
    // Another address is not concerned.
    await guest(newAddress());
  });
});

describe('the purge of unused guests', () => {
  it('the real sweep erases a guest unused for invites_jours, and keeps a recent one and a linked one', async () => {
    const ip = newAddress();
    const appareil = deviceId();
    const old = await guest(ip, appareil);
    const recent = await guest(ip);
    const linked = await guest(ip);
    expect((await lier(linked.token, { email: `purge${address}@example.test`, password: 'mot-de-passe-x' })).status).toBe(200);
    expect(seen(await api.post('/tables/notes', { donnees: { texte: 'oublié' } }, { token: old.token })).status).toBe(201);
    // invites_jours is 90 (absent from the file): 91 days without use.
    await app.sql(`update manette.players set seen_at = now() - interval '91 days' where id = any($1)`, [[old.id, linked.id]]);
    await app.sql(`update manette.players set seen_at = now() - interval '89 days' where id = $1`, [recent.id]);

    const sweeper = startTurnSweeper(app.pool, pino({ level: 'silent' }), 100);
    try {
      // Polled, not timed: the test's own timeout is the only limit.
      while ((await app.sql('select 1 from manette.players where id = $1', [old.id])).length > 0) await sleep(50);
    } finally {
      await sweeper.stop();
    }
    expect(await app.sql('select 1 from manette.table_rows where player_id = $1', [old.id])).toEqual([]);
    expectError(seen(await api.get('/players/me', { token: old.token })), 401, 'invalid_token');
    expect(seen(await api.get('/players/me', { token: recent.token })).body.data.joueur).toMatchObject({ id: recent.id, invite: true });
    expect(seen(await api.get('/players/me', { token: linked.token })).body.data.joueur).toMatchObject({ id: linked.id, invite: false });
    // The appareil_id of the purged guest makes a new guest.
    expect((await guest(ip, appareil)).id).not.toBe(old.id);
  });
});

describe('invites_jours and the cost of the purge', () => {
  it('the game file takes invites_jours as an integer 1–3650, and keeps files without it unchanged', () => {
    const parse = (v: unknown) => parseGameConfig({ jeu: 'j', nom: 'J', invites_jours: v });
    expect(parse(1).ok && parse(3650).ok).toBe(true);
    for (const v of [0, 3651, 2.5, '30', null]) {
      const r = parse(v);
      expect(r.ok, String(v)).toBe(false);
      if (!r.ok) expect(r.error).toContain('invites_jours');
    }
    const without = parseGameConfig({ jeu: 'j', nom: 'J' });
    expect(without.ok && 'invites_jours' in without.config).toBe(false);
  });

  it('with nothing to purge, the sweep reads guests by the index players_guests_seen_idx only', async () => {
    // The plan the sweep's query gets when the planner must use an index if it can.
    const db = new pg.Client({ connectionString: app.databaseUrl });
    await db.connect();
    let plan: unknown;
    try {
      await db.query('begin');
      await db.query('set local enable_seqscan = off');
      plan = (await db.query(`explain (format json) select c.id from manette.games g cross join lateral (
          select pl.id, pl.seen_at from manette.players pl
          where pl.game_id = g.id and pl.guest and pl.seen_at < now() - make_interval(days => 90)
          order by pl.seen_at limit 20 for update of pl skip locked) c limit 20`)).rows;
      await db.query('rollback');
    } finally {
      await db.end();
    }
    const text = JSON.stringify(plan);
    expect(text).toContain('players_guests_seen_idx');
    expect(text).not.toMatch(/"Relation Name":"players"[^}]*"Node Type":"Seq Scan"|"Node Type":"Seq Scan"[^}]*"Relation Name":"players"/);
  });
});

describe('every reply of this file', () => {
  it('was an envelope, never a 5xx', () => {
    expect(replies.length).toBeGreaterThan(100);
    for (const r of replies) expect(typeof r.body === 'object' && r.body !== null && typeof r.body.ok === 'boolean', JSON.stringify(r.body)).toBe(true);
  });
});
