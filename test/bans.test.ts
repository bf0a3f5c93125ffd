// Bans (docs/accounts.md, Bans; docs/admin.md): `manette players ban|unban` run as a studio
// runs them (the real CLI in a child process on the test database), and what players see
// over real HTTP afterwards: the old token refused, the queue left, the match abandoned
// (the opponent wins), login and Google login refused with compte_suspendu (and its end
// date, in French and English), and everything back after `unban`. A ban racing with
// logins leaves no valid session. The guest and linking doors are at the end.
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveGoogleKeys, type GoogleKeys } from './support/google-keys.js';
import { client, minimalGame, startTestApp, type Reply, type TestApp } from './support/harness.js';
import { runManette, runManetteJson, cliTimeout } from './support/manette-cli.js';
import { banEnd } from '../api/cli/commands/players.js';

const FR = 'fr_FR.UTF-8';
const EN = 'en_US.UTF-8';
const GOOGLE_CLIENT = 'client-bans.apps.googleusercontent.com';
const PASSWORD = 'motdepasse-solide';

let app: TestApp;
let jwks: GoogleKeys;
let api: ReturnType<typeof client>;

const cli = (args: string[], lang = FR) => runManette(args, app.databaseUrl, lang, { MANETTE_OPERATOR: 'support-ana' });
const cliJson = (args: string[], lang = FR) => runManetteJson(args, app.databaseUrl, lang, { MANETTE_OPERATOR: 'support-ana' });

beforeAll(async () => {
  jwks = await serveGoogleKeys();
  app = await startTestApp({ MANETTE_GOOGLE_JWKS_URL: jwks.jwksUrl });
  api = client(app.baseUrl, await app.applyGame(minimalGame('bans', {
    google: { client_id: GOOGLE_CLIENT },
    modes: {
      '1v1': { equipes: 2, joueurs_par_equipe: 1, regles: 'libre' },
      solo: { equipes: 2, joueurs_par_equipe: 1, regles: 'libre' },
    },
  })));
});
afterAll(async () => {
  await app?.close();
  jwks?.close();
});

const login = (identifiant: string, password = PASSWORD, lang?: string) => api.post('/players/login', { identifiant, password },
  lang ? { headers: { 'accept-language': lang } } : {});
const idToken = (sub: string, name: string) => new SignJWT({ email_verified: true, name })
  .setProtectedHeader({ alg: 'RS256', kid: 'test-key' }).setIssuer('https://accounts.google.com')
  .setAudience(GOOGLE_CLIENT).setSubject(sub).setIssuedAt().setExpirationTime('1h').sign(jwks.privateKey);
const google = async (sub: string, name: string) => api.post('/players/google', { id_token: await idToken(sub, name) });
const suspension = async (pseudo: string) => (await app.sql(
  `select suspended_at is not null as suspendu, suspended_until, suspension_reason from manette.players p
   join manette.games g on g.id = p.game_id where g.slug = 'bans' and p.pseudo = $1`, [pseudo]))[0]!;
const liveSessions = async (id: string) => Number((await app.sql(
  'select count(*) as n from manette.sessions where player_id = $1 and revoked_at is null and expires_at > now()', [id]))[0]!.n);
const audits = async () => Number((await app.sql('select count(*) as n from manette.admin_audit'))[0]!.n);

function refused(r: Reply, until: string | null) {
  expect(r.status, JSON.stringify(r.body)).toBe(403);
  expect(r.body).toMatchObject({ ok: false, error: 'compte_suspendu', jusqu_a: until });
  expect(r.body.token).toBeUndefined();
}

describe('manette players ban / unban', () => {
  it('a player with a session, in a match, is banned: token refused, match abandoned, login refused; unban lets them back', async () => {
    const ana = await api.register('Ana');
    const bob = await api.register('Bob');
    expect((await api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1000 }, { token: ana.token })).status).toBe(200);
    const matched = await api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1000 }, { token: bob.token });
    expect(matched.body, JSON.stringify(matched.body)).toMatchObject({ status: 'matched' });
    const partie = matched.body.partie_id as string;
    expect((await api.get(`/players/me`, { token: ana.token })).status).toBe(200);
    const before = await audits();

    const r = await cli(['players', 'ban', 'bans', 'ana', '--raison', 'triche au morpion (ticket #12)']);
    expect(r, r.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toBe(`Ana (${ana.data.joueur.id}) est suspendu jusqu’à \`manette players unban\`.\n`
      + '1 session(s) révoquée(s), 1 partie(s) abandonnée(s) ; ses connexions sont refusées (403 compte_suspendu).\n');

    // The old token: 401 at once.
    expect((await api.get('/players/me', { token: ana.token })).body).toMatchObject({ ok: false, error: 'invalid_token' });
    // The match: over, Ana abandoned, Bob won (as Bob sees it).
    const state = await api.get(`/match/state?partie_id=${partie}`, { token: bob.token });
    expect(state.body.partie, JSON.stringify(state.body)).toMatchObject({ statut: 'terminee', gagnant_id: bob.data.joueur.id });
    // Login with the right password: 403 compte_suspendu, no end date; a wrong one: 401 as always.
    const refusal = await login('ana');
    refused(refusal, null);
    expect(refusal.body.message).toBe('Ce compte est suspendu.');
    refused(await login('ana@example.test', PASSWORD, 'en'), null);
    expect((await login('ana', 'pas-le-bon-mot-de-passe')).body).toMatchObject({ ok: false, error: 'invalid_credentials' });
    expect(await liveSessions(ana.data.joueur.id)).toBe(0);

    // Audited, by the operator.
    expect(await audits()).toBe(before + 1);
    const [audit] = await app.sql(`select command, operator, details from manette.admin_audit order by id desc limit 1`);
    expect(audit).toMatchObject({
      command: 'players ban', operator: 'support-ana',
      details: {
        joueur_id: ana.data.joueur.id, raison: 'triche au morpion (ticket #12)', jusqu_a: null,
        sessions_revoquees: 1, parties_abandonnees: 1,
        avant: { suspendu_le: null, jusqu_a: null, raison: null, sessions_actives: 1 },
        apres: { jusqu_a: null, raison: 'triche au morpion (ticket #12)', sessions_actives: 0 },
      },
    });
    expect(audit!.details.email).toBeUndefined();

    // Unban (English): login works again, the same player.
    const u = await cli(['players', 'unban', 'bans', 'ANA@example.test'], EN);
    expect(u).toMatchObject({ code: 0, stdout: `Ana (${ana.data.joueur.id}) is no longer suspended: it can log in again.\n` });
    const back = await login('ana');
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    expect(back.body.data.joueur.id).toBe(ana.data.joueur.id);
    expect((await api.get('/players/me', { token: back.body.token })).status).toBe(200);
    expect(await suspension('Ana')).toEqual({ suspendu: false, suspended_until: null, suspension_reason: null });
    const [unbanAudit] = await app.sql(`select command, details from manette.admin_audit order by id desc limit 1`);
    expect(unbanAudit).toMatchObject({ command: 'players unban', details: {
      avant: { jusqu_a: null, raison: 'triche au morpion (ticket #12)' }, apres: { suspendu_le: null, jusqu_a: null, raison: null } } });
    // A second unban: nothing to lift, nothing audited.
    const again = await cliJson(['players', 'unban', 'bans', 'ana']);
    expect(again.body).toEqual({ ok: true, data: { id: ana.data.joueur.id, pseudo: 'Ana', etait_suspendu: false } });
    expect(await audits()).toBe(before + 2);
  });

  it('a player waiting in a queue, banned until a date: out of the queue; the refusal names the date in French and English', async () => {
    const cyd = await api.register('Cyd');
    const joined = await api.post('/matchmaking/join', { mode_jeu: 'solo', elo_actuel: 1200 }, { token: cyd.token });
    expect(joined.body, JSON.stringify(joined.body)).toMatchObject({ status: 'waiting' });

    const r = await cliJson(['players', 'ban', 'bans', cyd.data.joueur.id, '--jusqu-a', '2099-06-15T20:30:00+02:00', '--raison', 'insultes'], EN);
    expect(r.body).toEqual({ ok: true, data: {
      id: cyd.data.joueur.id, pseudo: 'Cyd', suspendu_le: expect.any(String), jusqu_a: '2099-06-15T18:30:00.000Z', raison: 'insultes',
      sessions_revoquees: 1, parties_abandonnees: 0,
    } });
    expect((await app.sql('select count(*)::int as n from manette.queue_entries where player_id = $1', [cyd.data.joueur.id]))[0]!.n).toBe(0);
    expect((await api.get('/matchmaking/status', { token: cyd.token })).status).toBe(401);

    const fr = await login('cyd');
    refused(fr, '2099-06-15T18:30:00.000Z');
    expect(fr.body.message).toBe('Ce compte est suspendu jusqu’au 15 juin 2099 à 18:30 UTC.');
    const en = await login('cyd', PASSWORD, 'en');
    refused(en, '2099-06-15T18:30:00.000Z');
    expect(en.body.message).toBe('This account is suspended until 15 June 2099 at 18:30 UTC.');

    // The text answer says the date too.
    const text = await cli(['players', 'ban', 'bans', 'cyd', '--jusqu-a', '2099-06-16', '--raison', 'récidive'], EN);
    expect(text.stdout.split('\n')[0]).toBe(`Cyd (${cyd.data.joueur.id}) is suspended until 2099-06-16T00:00:00.000Z.`);

    // `players find` shows the suspension in force.
    const found = await cliJson(['players', 'find', 'bans', 'cyd']);
    expect(found.body.data).toMatchObject({ invite: false, supprime_le: null,
      suspension: { depuis: expect.any(String), jusqu_a: '2099-06-16T00:00:00.000Z', raison: 'récidive' } });
    const shown = await cli(['players', 'find', 'bans', 'cyd'], EN);
    expect(shown.stdout).toContain('suspended         : since ');
    expect(shown.stdout).toContain(', until 2099-06-16T00:00:00.000Z: récidive\n');
  });

  it('a temporary ban ends by itself at its date', async () => {
    const eli = await api.register('Eli');
    expect((await cli(['players', 'ban', 'bans', 'eli', '--jusqu-a', '2099-01-01', '--raison', 'spam'])).code).toBe(0);
    refused(await login('eli'), '2099-01-01T00:00:00.000Z');
    // Time passes (the end moved into the past, as the clock would): the door opens, no unban needed.
    await app.sql(`update manette.players set suspended_until = now() - interval '1 second' where id = $1`, [eli.data.joueur.id]);
    const back = await login('eli');
    expect(back.status, JSON.stringify(back.body)).toBe(200);
  });

  it('Google login of a banned player: 403 compte_suspendu; after unban the same player', async () => {
    const first = await google('sub-gus', 'Gus');
    expect(first.status).toBe(200);
    const id = first.body.data.joueur.id as string;
    expect((await cli(['players', 'ban', 'bans', id, '--raison', 'bot'])).code).toBe(0);
    expect((await api.get('/players/me', { token: first.body.token })).status).toBe(401);
    refused(await google('sub-gus', 'Gus'), null);
    expect(await liveSessions(id)).toBe(0);
    expect((await cli(['players', 'unban', 'bans', id])).code).toBe(0);
    const back = await google('sub-gus', 'Gus');
    expect(back.status).toBe(200);
    expect(back.body.data.joueur.id).toBe(id);
  });

  it('--jusqu-a: a past date or garbage is a clear error and nothing changes; a blank reason, an unknown player', async () => {
    await api.register('Dee');
    const before = await audits();
    const past = await cli(['players', 'ban', 'bans', 'dee', '--jusqu-a', '2020-01-01', '--raison', 'x']);
    expect(past.code).toBe(1);
    expect(past.stderr).toBe('--jusqu-a : 2020-01-01T00:00:00.000Z est déjà passé ; une date à venir est attendue (sans --jusqu-a : jusqu’à `manette players unban`). Rien n’a changé.\n');
    const pastEn = await cliJson(['players', 'ban', 'bans', 'dee', '--jusqu-a', '2021-05-01T10:00:00Z', '--raison', 'x'], EN);
    expect(pastEn).toMatchObject({ code: 1, body: { ok: false, error: 'invalid_input',
      message: '--jusqu-a: 2021-05-01T10:00:00.000Z is already past; a date in the future is expected (without --jusqu-a: until `manette players unban`). Nothing changed.' } });
    for (const garbage of ['demain', '2099-02-30']) {
      const g = await cliJson(['players', 'ban', 'bans', 'dee', '--jusqu-a', garbage, '--raison', 'x'], EN);
      expect(g, garbage).toMatchObject({ code: 1, body: { ok: false, error: 'invalid_input',
        message: `--jusqu-a: an ISO 8601 date expected, e.g. 2026-12-31 (midnight UTC) or 2026-12-31T18:00:00Z; got "${garbage}"` } });
    }
    const blank = await cliJson(['players', 'ban', 'bans', 'dee', '--raison', '  '], EN);
    expect(blank.body).toEqual({ ok: false, error: 'validation_failed', message: 'Some fields are invalid.',
      details: [{ champ: 'raison', message: '1 to 1000 characters' }] });
    const long = await cliJson(['players', 'ban', 'bans', 'dee', '--raison', 'x'.repeat(1001)]);
    expect(long.body).toMatchObject({ error: 'validation_failed', details: [{ champ: 'raison', message: 'de 1 à 1000 caractères' }] });
    const missing = await cli(['players', 'ban', 'bans', 'dee']);
    expect(missing.code).toBe(1);
    expect(missing.stderr.split('\n')[0]).toBe('erreur : l’option « --raison <texte> » est obligatoire');
    expect((await cliJson(['players', 'ban', 'bans', 'nobody', '--raison', 'x'])).body).toMatchObject({ error: 'player_not_found' });
    expect((await cliJson(['players', 'unban', 'nope', 'dee'])).body).toMatchObject({ error: 'game_not_found' });
    expect(await suspension('Dee')).toEqual({ suspendu: false, suspended_until: null, suspension_reason: null });
    expect(await audits()).toBe(before);
    expect((await login('dee')).status).toBe(200);
  }, cliTimeout(9));

  it('--jusqu-a reads ISO 8601 dates and date-times (the CLI’s own parser, every case)', () => {
    const now = new Date('2026-11-30T12:00:00Z');
    const at = (v: string) => banEnd(v, 'en', now).toISOString();
    expect(at('2026-12-31')).toBe('2026-12-31T00:00:00.000Z');
    expect(at('2026-12-31T18:00')).toBe('2026-12-31T18:00:00.000Z');
    expect(at('2026-12-31 18:00:30')).toBe('2026-12-31T18:00:30.000Z');
    expect(at('2026-12-31T18:00:00.250Z')).toBe('2026-12-31T18:00:00.250Z');
    expect(at('2026-12-31T18:00:00+02:00')).toBe('2026-12-31T16:00:00.000Z');
    expect(at('2026-12-31T18:00:00-0530')).toBe('2026-12-31T23:30:00.000Z');
    expect(at('2028-02-29')).toBe('2028-02-29T00:00:00.000Z');
    expect(at('2026-11-30T12:00:01Z')).toBe('2026-11-30T12:00:01.000Z');
    for (const bad of ['', 'demain', '2026-02-29', '2026-13-01', '2026-12-00', '2026-12-31T24:00', '2026-12-31T18:60',
      '31/12/2026', '2026-12-31T18:00+25:00', '2026-12-31T18', '+2026-12-31', '2026-12-31Z']) {
      expect(() => banEnd(bad, 'en', now), bad).toThrow(`--jusqu-a: an ISO 8601 date expected`);
    }
    for (const past of ['2026-11-30', '2026-11-30T12:00:00Z', '2026-11-30T13:00:00+01:00']) {
      expect(() => banEnd(past, 'fr', now), past).toThrow('est déjà passé');
    }
  });

  it('a ban racing with waves of 10 simultaneous logins leaves no valid session afterwards', async () => {
    const eve = await api.register('Eve');
    const tokens: string[] = [eve.token];
    const statuses = new Set<number>();
    const wave = async () => {
      for (const r of await Promise.all(Array.from({ length: 10 }, () => login('eve')))) {
        statuses.add(r.status);
        if (r.status === 200) tokens.push(r.body.token);
        else refused(r, null);
      }
    };
    await wave(); // the pool's connections open
    let done = false;
    const ban = cli(['players', 'ban', 'bans', 'eve', '--raison', 'course']).finally(() => { done = true; });
    let waves = 0;
    while (!done) { await wave(); waves++; }
    expect((await ban).code).toBe(0);
    await wave();
    expect(waves).toBeGreaterThan(0);
    expect([...statuses].sort()).toEqual([200, 403]);
    expect(await liveSessions(eve.data.joueur.id)).toBe(0);
    for (const t of tokens) expect((await api.get('/players/me', { token: t })).status).toBe(401);
  });

  it('the same race, tighter: the ban’s SQL call sent together with 10 logins, five times over', async () => {
    const fay = await api.register('Fay');
    for (let round = 0; round < 5; round++) {
      const [, ...logins] = await Promise.all([
        app.sql(`select manette_admin.players_ban('bans', 'fay', null, 'course serrée')`),
        ...Array.from({ length: 10 }, () => login('fay')),
      ]);
      for (const r of logins) {
        if (r.status !== 200) refused(r, null);
      }
      expect(await liveSessions(fay.data.joueur.id), `round ${round}`).toBe(0);
      for (const r of logins.filter((l) => l.status === 200)) {
        expect((await api.get('/players/me', { token: r.body.token })).status).toBe(401);
      }
      await app.sql(`select manette_admin.players_unban('bans', 'fay')`);
    }
  });
});

// The guest's return by appareil_id and linking are another part of the accounts issue: these
// fail until POST /players/invite and POST /players/lier are merged.
describe('guest and link doors', () => {
  const APPAREIL = 'appareil-bans-0123456789';

  it('a banned guest coming back by appareil_id: 403 compte_suspendu; after unban the same guest', async () => {
    const first = await api.post('/players/invite', { appareil_id: APPAREIL });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const id = first.body.data.joueur.id as string;
    expect((await cli(['players', 'ban', 'bans', id, '--jusqu-a', '2099-03-01', '--raison', 'triche'])).code).toBe(0);
    expect((await api.get('/players/me', { token: first.body.token })).status).toBe(401);
    refused(await api.post('/players/invite', { appareil_id: APPAREIL }), '2099-03-01T00:00:00.000Z');
    expect(await liveSessions(id)).toBe(0);
    expect((await cli(['players', 'unban', 'bans', id])).code).toBe(0);
    const back = await api.post('/players/invite', { appareil_id: APPAREIL });
    expect(back.status).toBe(200);
    expect(back.body.data.joueur.id).toBe(id);
  });

  it('linking a suspended guest is refused and changes nothing', async () => {
    const guest = await api.post('/players/invite', {});
    expect(guest.status, JSON.stringify(guest.body)).toBe(200);
    const id = guest.body.data.joueur.id as string;
    // After a ban the guest's token is revoked: linking is refused like any call.
    const banned = await api.post('/players/invite', {});
    expect((await cli(['players', 'ban', 'bans', banned.body.data.joueur.id, '--raison', 'x'])).code).toBe(0);
    expect((await api.post('/players/lier', { email: 'banni@example.test', password: PASSWORD }, { token: banned.body.token })).status).toBe(401);
    // A session still open on a suspended row (a ban landing between two requests): the door itself refuses.
    await app.sql(`update manette.players set suspended_at = now(), suspension_reason = 'x' where id = $1`, [id]);
    refused(await api.post('/players/lier', { email: 'lier@example.test', password: PASSWORD }, { token: guest.body.token }), null);
    expect((await app.sql('select guest, email from manette.players where id = $1', [id]))[0]).toEqual({ guest: true, email: null });
  });
});
