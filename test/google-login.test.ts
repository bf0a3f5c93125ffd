// POST /players/google: which player a Google identity opens (docs/api.md, Players; issue 9),
// over real HTTP with ID tokens signed by keys this file serves as the Google key set.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { serveGoogleKeys, type GoogleKeys } from './support/google-keys.js';
import { client, minimalGame, startTestApp, type Reply, type TestApp } from './support/harness.js';

let app: TestApp;
let jwks: GoogleKeys;
let privateKey: CryptoKey;
let api: ReturnType<typeof client>;
const GOOGLE_CLIENT = 'client-456.apps.googleusercontent.com';

beforeAll(async () => {
  jwks = await serveGoogleKeys();
  privateKey = jwks.privateKey;
  app = await startTestApp({ MANETTE_GOOGLE_JWKS_URL: jwks.jwksUrl });
  api = client(app.baseUrl, await app.applyGame(minimalGame('jeu-google', { google: { client_id: GOOGLE_CLIENT } })));
});
afterAll(async () => {
  await app?.close();
  jwks?.close();
});

/** Every reply of this file goes through here: whatever happens, never a 5xx. */
const replies: Reply[] = [];
const idToken = (sub: string, claims: Record<string, unknown> = {}) => new SignJWT({ email_verified: true, ...claims })
  .setProtectedHeader({ alg: 'RS256', kid: 'test-key' }).setIssuer('https://accounts.google.com')
  .setAudience(GOOGLE_CLIENT).setSubject(sub).setIssuedAt().setExpirationTime('1h').sign(privateKey);
async function post(token: string): Promise<Reply> {
  const r = await api.post('/players/google', { id_token: token });
  replies.push(r);
  expect(r.status, JSON.stringify(r.body)).toBeLessThan(500);
  return r;
}
const google = async (sub: string, claims: Record<string, unknown> = {}) => post(await idToken(sub, claims));
function session(r: Reply) {
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.token).toMatch(/^pt_[A-Za-z0-9_-]{43,}$/);
  return r.body as { token: string; data: { joueur: { id: string; pseudo: string; email: string | null } } };
}
const ok = async (sub: string, claims: Record<string, unknown> = {}) => session(await google(sub, claims));
/**
 * Signs every token first, opens the façade's 20 pool connections (otherwise the first
 * request is done before the next connection is even open), then sends all at once.
 */
async function together(tokens: Array<Promise<string>>) {
  const signed = await Promise.all(tokens);
  await Promise.all(Array.from({ length: 20 }, () => app.pool.query('select pg_sleep(0.05)')));
  return (await Promise.all(signed.map(post))).map(session);
}
const row = async (id: string) => (await app.sql(
  'select pseudo, email, google_sub, password_hash is not null as has_password from manette.players where id = $1', [id]))[0]!;

describe('which player a Google login opens', () => {
  it('the first login creates a player (200, like login); later ones open the same player', async () => {
    const first = await ok('sub-kim', { email: 'kim@gmail.test', name: 'Kim Possible' });
    expect(first.data.joueur).toMatchObject({ pseudo: 'Kim_Possible', email: 'kim@gmail.test' });
    const again = await ok('sub-kim', { email: 'kim@gmail.test', name: 'Kim Possible' });
    expect(again.data.joueur.id).toBe(first.data.joueur.id);
    expect(again.token).not.toBe(first.token);
    // The identity is the sub: a changed Google e-mail or name still opens the same player.
    const renamed = await ok('sub-kim', { email: 'kim.new@gmail.test', name: 'Kim P' });
    expect(renamed.data.joueur).toMatchObject({ id: first.data.joueur.id, pseudo: 'Kim_Possible', email: 'kim@gmail.test' });
  });

  it('does not take over a password account registered with the same, never verified, e-mail', async () => {
    // A stranger registers first with the victim's address (Manette does not verify it).
    const squatter = await api.register('Squatter', { email: 'Victim@Gmail.test', password: 'mot-de-passe-du-squatteur' });
    const victim = await ok('sub-victim', { email: 'victim@gmail.test', name: 'Victime' });
    expect(victim.data.joueur.id).not.toBe(squatter.data.joueur.id);
    expect(victim.data.joueur).toMatchObject({ pseudo: 'Victime', email: null });
    expect(await row(victim.data.joueur.id)).toMatchObject({ email: null, google_sub: 'sub-victim', has_password: false });
    // The password account is untouched: no Google identity, same e-mail, same password.
    expect(await row(squatter.data.joueur.id)).toMatchObject({ email: 'Victim@Gmail.test', google_sub: null, has_password: true });
    const login = await api.post('/players/login', { identifiant: 'victim@gmail.test', password: 'mot-de-passe-du-squatteur' });
    expect(login.status).toBe(200);
    expect(login.body.data.joueur.id).toBe(squatter.data.joueur.id);
    // The squatter's session never reaches the Google player, and the victim keeps theirs.
    const me = await api.get('/players/me', { token: login.body.token });
    expect(me.body.data.joueur.id).toBe(squatter.data.joueur.id);
    expect((await ok('sub-victim', { email: 'victim@gmail.test' })).data.joueur.id).toBe(victim.data.joueur.id);
  });

  it('gives the new player no e-mail when another player uses it (Google or password account), never a 500', async () => {
    const owner = await ok('sub-mail-1', { email: 'shared@gmail.test', name: 'Owner' });
    expect(owner.data.joueur.email).toBe('shared@gmail.test');
    const second = await ok('sub-mail-2', { email: 'SHARED@gmail.test', name: 'Second' });
    expect(second.data.joueur.id).not.toBe(owner.data.joueur.id);
    expect(second.data.joueur.email).toBeNull();
    // A password account linked to a Google identity by the former e-mail rule.
    const linked = await api.register('Linked', { email: 'linked@gmail.test' });
    await app.sql("update manette.players set google_sub = 'sub-linked-old' where id = $1", [linked.data.joueur.id]);
    expect((await ok('sub-linked-old', { email: 'linked@gmail.test' })).data.joueur.id).toBe(linked.data.joueur.id);
    const other = await ok('sub-linked-new', { email: 'linked@gmail.test', name: 'Other' });
    expect(other.data.joueur.id).not.toBe(linked.data.joueur.id);
    expect(other.data.joueur.email).toBeNull();
    // The address stays taken for registration.
    const reg = await api.post('/players/register', { pseudo: 'Late', email: 'shared@gmail.test', password: 'motdepasse1' });
    expect([reg.status, reg.body.error]).toEqual([409, 'email_taken']);
  });

  it('keeps an e-mail Google does not say is verified out of the player, and never links by it', async () => {
    const pw = await api.register('Unverif', { email: 'unverif@gmail.test' });
    const g = await ok('sub-unverified', { email: 'unverif@gmail.test', email_verified: false, name: 'Unverified' });
    expect(g.data.joueur.id).not.toBe(pw.data.joueur.id);
    expect(g.data.joueur.email).toBeNull();
    const free = await ok('sub-unverified-free', { email: 'free@gmail.test', email_verified: false, name: 'Free' });
    expect(free.data.joueur.email).toBeNull();
  });

  it('derives the pseudo from the Google name, and suffixes it when taken', async () => {
    expect((await ok('sub-accent', { name: 'Élodie Dupont-Lefèvre' })).data.joueur.pseudo).toBe('Elodie_Dupont-Lefevre');
    expect((await ok('sub-long', { name: 'A very long name that goes past the limit' })).data.joueur.pseudo)
      .toBe('A_very_long_name_that_go');
    expect((await ok('sub-noname')).data.joueur.pseudo).toMatch(/^joueur(_\d{6})?$/);
    expect((await ok('sub-han', { name: '李小龍' })).data.joueur.pseudo).toMatch(/^joueur(_\d{6})?$/);
    // The e-mail's local part is not made public as a pseudo.
    expect((await ok('sub-mailonly', { email: 'secret.local@gmail.test' })).data.joueur.pseudo).not.toContain('secret');
    await api.register('Taken_Name');
    expect((await ok('sub-taken', { name: 'taken name' })).data.joueur.pseudo).toMatch(/^taken_name_\d{6}$/);
  });

  it('refuses a sub longer than OpenID Connect allows', async () => {
    const r = await google('s'.repeat(256), { name: 'Long Sub' });
    expect([r.status, r.body.error]).toEqual([401, 'invalid_credentials']);
  });
});

describe('concurrent Google logins', () => {
  it('20 simultaneous first logins of one sub create one player and 20 sessions for it', async () => {
    const all = await together(Array.from({ length: 20 }, () =>
      idToken('sub-race', { email: 'race@gmail.test', name: 'Racer' })));
    const ids = new Set(all.map((r) => r.data.joueur.id));
    expect(ids.size).toBe(1);
    const [id] = [...ids];
    expect(new Set(all.map((r) => r.token)).size).toBe(20);
    const players = await app.sql("select id, pseudo, email from manette.players where google_sub = 'sub-race'");
    expect(players).toEqual([{ id, pseudo: 'Racer', email: 'race@gmail.test' }]);
    const [count] = await app.sql<{ n: number }>('select count(*)::int as n from manette.sessions where player_id = $1', [id]);
    expect(count?.n).toBe(20);
    for (const r of all) {
      const me = await api.get('/players/me', { token: r.token });
      expect([me.status, me.body.data.joueur.id]).toEqual([200, id]);
    }
  });

  it('simultaneous first logins of different subs with one name and one verified e-mail: distinct players, one keeps the e-mail', async () => {
    const all = await together(Array.from({ length: 12 }, (_, i) =>
      idToken(`sub-twin-${i}`, { email: 'twin@gmail.test', name: 'Twin' })));
    const ids = new Set(all.map((r) => r.data.joueur.id));
    expect(ids.size).toBe(12);
    const pseudos = all.map((r) => r.data.joueur.pseudo);
    expect(new Set(pseudos.map((p) => p.toLowerCase())).size).toBe(12);
    for (const p of pseudos) expect(p).toMatch(/^Twin(_\d{6})?$/);
    expect(all.filter((r) => r.data.joueur.email === 'twin@gmail.test')).toHaveLength(1);
    expect(all.filter((r) => r.data.joueur.email === null)).toHaveLength(11);
  });

  it('a registration racing a first Google login for the same e-mail and pseudo: no 500, the e-mail goes to one of them', async () => {
    for (let round = 0; round < 5; round++) {
      const email = `duel${round}@gmail.test`;
      const token = await idToken(`sub-duel-${round}`, { email, name: `Duel${round}` });
      await Promise.all([app.pool.query('select 1'), app.pool.query('select 1')]);
      const [reg, g] = await Promise.all([
        api.post('/players/register', { pseudo: `Duel${round}`, email, password: 'motdepasse1' }),
        post(token).then(session),
      ]);
      replies.push(reg);
      expect([201, 409]).toContain(reg.status);
      const owners = await app.sql('select id, google_sub from manette.players where lower(email) = $1', [email]);
      expect(owners).toHaveLength(1);
      if (reg.status === 201) {
        expect(g.data.joueur.email).toBeNull();
        expect(owners[0]!.google_sub).toBeNull();
      } else {
        expect(reg.body.error).toMatch(/^(email_taken|pseudo_taken)$/);
        expect(owners[0]!.google_sub).toBe(`sub-duel-${round}`);
      }
    }
  });

  it('answered every request of this file below 500', () => {
    expect(replies.length).toBeGreaterThan(50);
    expect(replies.filter((r) => r.status >= 500)).toEqual([]);
  });
});
