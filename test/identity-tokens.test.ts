// POST /players/login/jeton and POST /players/lier {fournisseur, jeton}: signed identity
// tokens of the providers a game file declares in `connexions` (docs/accounts.md, "Sign in
// with any identity token"), over real HTTP, with the providers played by a local server that
// publishes their key sets where their documentation says (test/support/jwks-server.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { SignJWT } from 'jose';
import { newKey, serveKeySets, sign, type KeySetServer, type SigningKey } from './support/jwks-server.js';
import { client, minimalGame, startTestApp, type Reply, type TestApp } from './support/harness.js';
import { createClient, ManetteError } from '../sdk/src/index.js';

let app: TestApp;
let idp: KeySetServer;
let api: ReturnType<typeof client>;
let gameKey: string;
let appleKey: SigningKey;
let auth0Key: SigningKey;
let supabaseKey: SigningKey;
let rotationKey: SigningKey;

const APPLE = { iss: 'https://appleid.apple.com', aud: 'com.studio.jeu', path: '/auth/keys' };
const AUTH0 = { iss: 'https://studio.eu.auth0.com/', aud: 'https://api.jeu.test', path: '/auth0/.well-known/jwks.json' };
const ROTATION = { iss: 'https://idp.example.test', aud: 'jeu', path: '/rotation/jwks.json' };
const SUPABASE_JWKS = '/auth/v1/.well-known/jwks.json';

beforeAll(async () => {
  idp = await serveKeySets();
  [appleKey, auth0Key, supabaseKey, rotationKey] = await Promise.all([newKey('RS256'), newKey('RS256'), newKey('ES256'), newKey('ES256')]);
  idp.publish(APPLE.path, appleKey);
  idp.publish(AUTH0.path, auth0Key);
  idp.publish(SUPABASE_JWKS, supabaseKey);
  idp.publish(ROTATION.path, rotationKey);
  // A key id the cached set lacks refetches it at once (no cooldown), so a rotation is seen
  // without waiting; the cache itself keeps its default age (10 minutes).
  app = await startTestApp({ MANETTE_SUPABASE_AUTH_URL: `${idp.origin}/auth/v1`, MANETTE_JWKS_COOLDOWN_S: '0' });
  gameKey = await app.applyGame(minimalGame('jeu-jetons', {
    connexions: {
      apple: { emetteur: APPLE.iss, audience: APPLE.aud, jwks_url: idp.origin + APPLE.path },
      auth0: { emetteur: AUTH0.iss, audience: [AUTH0.aud, 'autre-api'], jwks_url: idp.origin + AUTH0.path },
      rotation: { emetteur: ROTATION.iss, audience: ROTATION.aud, jwks_url: idp.origin + ROTATION.path },
      supabase: { supabase: true },
    },
  }));
  api = client(app.baseUrl, gameKey);
});
afterAll(async () => {
  await app?.close();
  await idp?.close();
});

const now = () => Math.floor(Date.now() / 1000);
/** A token as the provider mints it: its issuer and audience, a fresh jti, valid for an hour. */
const token = (key: SigningKey, p: { iss: string; aud: string }, sub: string, claims: Record<string, unknown> = {}) =>
  sign(key, { iss: p.iss, aud: p.aud, sub, iat: now(), exp: now() + 3600, jti: randomUUID(), ...claims });

/** Every reply of this file goes through here: whatever happens, never a 5xx. */
async function seen(r: Reply): Promise<Reply> {
  expect(r.status, JSON.stringify(r.body)).toBeLessThan(500);
  return r;
}
const login = async (fournisseur: string, jeton: string) => seen(await api.post('/players/login/jeton', { fournisseur, jeton }));
function session(r: Reply) {
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.token).toMatch(/^pt_[A-Za-z0-9_-]{43,}$/);
  return r.body as { token: string; data: { joueur: { id: string; pseudo: string; email: string | null; invite: boolean } } };
}
function expectError(r: Reply, status: number, error: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body).toMatchObject({ ok: false, error });
  expect(typeof r.body.message).toBe('string');
}
/** Rows that a login or a link writes, counted as `postgres`. */
async function counts() {
  const [row] = await app.sql<{ players: string; identities: string; used: string }>(
    `select (select count(*) from manette.players) as players,
            (select count(*) from manette.player_identities) as identities,
            (select count(*) from manette.used_tokens) as used`);
  return row!;
}
const identitiesOf = async (playerId: string) => app.sql<{ issuer: string; subject: string; fournisseur: string }>(
  'select issuer, subject, fournisseur from manette.player_identities where player_id = $1 order by issuer', [playerId]);

describe('a valid token signs in', () => {
  it('the first login creates a player, later tokens of the same (issuer, sub) open it', async () => {
    const first = session(await login('apple', await token(appleKey, APPLE, '001234.abcdef.0001', { email: 'x@privaterelay.appleid.com' })));
    expect(first.data.joueur).toMatchObject({ email: null, invite: false });
    const again = session(await login('apple', await token(appleKey, APPLE, '001234.abcdef.0001')));
    expect(again.data.joueur.id).toBe(first.data.joueur.id);
    expect(again.token).not.toBe(first.token);
    expect(await identitiesOf(first.data.joueur.id)).toEqual([{ issuer: APPLE.iss, subject: '001234.abcdef.0001', fournisseur: 'apple' }]);
    // The session works like any other.
    const me = await seen(await api.get('/players/me', { token: again.token }));
    expect(me.body.data.joueur.id).toBe(first.data.joueur.id);
  });

  it('the identity is the issuer and the sub: the same sub from another issuer is another player', async () => {
    const apple = session(await login('apple', await token(appleKey, APPLE, 'meme-sub')));
    const auth0 = session(await login('auth0', await token(auth0Key, AUTH0, 'meme-sub')));
    expect(auth0.data.joueur.id).not.toBe(apple.data.joueur.id);
  });

  it('any of a provider\'s audiences; a name claim gives the pseudo', async () => {
    const r = session(await login('auth0', await token(auth0Key, { iss: AUTH0.iss, aud: 'autre-api' }, 'auth0|42', { name: 'Zoé Martin' })));
    expect(r.data.joueur.pseudo).toBe('Zoe_Martin');
    // An audience list holding one of them (as Auth0 sends for an API and userinfo).
    const list = await sign(auth0Key, { iss: AUTH0.iss, aud: ['https://studio.eu.auth0.com/userinfo', AUTH0.aud], sub: 'auth0|42', exp: now() + 60, jti: randomUUID() });
    expect(session(await login('auth0', list)).data.joueur.id).toBe(r.data.joueur.id);
  });

  it('a token within the 60 s of clock skew is still accepted', async () => {
    const r = await login('apple', await token(appleKey, APPLE, 'skew', { exp: now() - 20, nbf: now() + 20 }));
    session(r);
  });
});

describe('a token that is not a valid one of the provider is refused and creates nothing', () => {
  it.each([
    ['forged (signed by another key under the published kid)', async () => {
      const other = await newKey('RS256', appleKey.kid);
      return token(other, APPLE, 'forge');
    }],
    ['expired', () => token(appleKey, APPLE, 'expire', { iat: now() - 7200, exp: now() - 3600 })],
    ['not yet valid (nbf in the future)', () => token(appleKey, APPLE, 'plus-tard', { nbf: now() + 600 })],
    ['for another audience', () => token(appleKey, { iss: APPLE.iss, aud: 'com.autre.jeu' }, 'autre-aud')],
    ['from another issuer', () => token(appleKey, { iss: 'https://appleid.apple.com.evil.test', aud: APPLE.aud }, 'autre-iss')],
    ['without exp', () => sign(appleKey, { iss: APPLE.iss, aud: APPLE.aud, sub: 'sans-exp', jti: randomUUID() })],
    ['without sub', () => sign(appleKey, { iss: APPLE.iss, aud: APPLE.aud, exp: now() + 60, jti: randomUUID() })],
    ['with a sub longer than 255 characters', () => token(appleKey, APPLE, 'x'.repeat(256))],
    ['HS256 with the public key\'s text as secret', () => new SignJWT({ iss: APPLE.iss, aud: APPLE.aud, sub: 'hs', exp: now() + 60 })
      .setProtectedHeader({ alg: 'HS256', kid: appleKey.kid }).sign(new TextEncoder().encode(JSON.stringify(appleKey.publicJwk)))],
    ['alg none', async () => {
      const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
      return `${b64({ alg: 'none', kid: appleKey.kid })}.${b64({ iss: APPLE.iss, aud: APPLE.aud, sub: 'none', exp: now() + 60 })}.`;
    }],
    ['signed by another provider\'s key', () => token(auth0Key, APPLE, 'mauvaise-cle')],
    ['not a JWT', async () => 'pas-un-jeton'],
  ] as Array<[string, () => Promise<string>]>)('%s', async (_what, make) => {
    const jeton = await make();
    const before = await counts();
    expectError(await login('apple', jeton), 401, 'invalid_credentials');
    expect(await counts()).toEqual(before);
  });

  it('a replayed token (the same jti, or the same token without jti) is refused', async () => {
    const jeton = await token(appleKey, APPLE, 'rejoue');
    const first = session(await login('apple', jeton));
    const before = await counts();
    expectError(await login('apple', jeton), 401, 'invalid_credentials');
    // Another token carrying the same jti is the same token used again.
    const jti = randomUUID();
    session(await login('apple', await token(appleKey, APPLE, 'rejoue', { jti })));
    expectError(await login('apple', await token(appleKey, APPLE, 'rejoue', { jti, iat: now() - 1 })), 401, 'invalid_credentials');
    // Without jti (as Supabase Auth's access tokens): the token's own hash.
    const noJti = await sign(appleKey, { iss: APPLE.iss, aud: APPLE.aud, sub: 'rejoue', exp: now() + 600 });
    expect(session(await login('apple', noJti)).data.joueur.id).toBe(first.data.joueur.id);
    expectError(await login('apple', noJti), 401, 'invalid_credentials');
    const after = await counts();
    expect({ players: after.players, identities: after.identities }).toEqual({ players: before.players, identities: before.identities });
    // Only hashes are kept, until the token's expiry.
    const used = await app.sql<{ bytes: number; until: Date }>(
      'select octet_length(token_hash) as bytes, expires_at as until from manette.used_tokens order by expires_at desc limit 1');
    expect(used[0]!.bytes).toBe(32);
  });

  it('the hashes of expired tokens are swept by later uses', async () => {
    const [game] = await app.sql<{ id: string }>("select id from manette.games where slug = 'jeu-jetons'");
    await app.sql(`insert into manette.used_tokens (game_id, token_hash, expires_at)
      select $1, sha256(convert_to('vieux-' || i, 'UTF8')), now() - interval '6 minutes' from generate_series(1, 3) i`, [game!.id]);
    await app.sql(`insert into manette.used_tokens (game_id, token_hash, expires_at)
      values ($1, sha256(convert_to('recent', 'UTF8')), now() - interval '1 minute')`, [game!.id]);
    session(await login('apple', await token(appleKey, APPLE, 'balayage')));
    const left = await app.sql<{ n: string }>(
      `select count(*) as n from manette.used_tokens where token_hash in (sha256(convert_to('vieux-1', 'UTF8')), sha256(convert_to('vieux-2', 'UTF8')),
         sha256(convert_to('vieux-3', 'UTF8')))`);
    expect(left[0]!.n).toBe('0');
    // A token expired less than 5 minutes ago may still be within the accepted skew: kept.
    const recent = await app.sql<{ n: string }>("select count(*) as n from manette.used_tokens where token_hash = sha256(convert_to('recent', 'UTF8'))");
    expect(recent[0]!.n).toBe('1');
  });

  it('an unknown provider is fournisseur_inconnu; a bad body validation_failed; nothing is created', async () => {
    const before = await counts();
    const jeton = await token(appleKey, APPLE, 'inconnu');
    expectError(await login('steam', jeton), 400, 'fournisseur_inconnu');
    // Google has its own endpoint and key: it is no entry of connexions.
    expectError(await login('google', jeton), 400, 'fournisseur_inconnu');
    expectError(await seen(await api.post('/players/login/jeton', { fournisseur: 'apple' })), 400, 'validation_failed');
    expectError(await seen(await api.post('/players/login/jeton', { fournisseur: 'Apple!', jeton })), 400, 'validation_failed');
    expectError(await seen(await api.post('/players/login/jeton', { fournisseur: 'apple', jeton, email: 'x@y.z' })), 400, 'validation_failed');
    expectError(await seen(await api.post('/players/login/jeton', { fournisseur: 'apple', jeton: 'x'.repeat(8193) })), 400, 'validation_failed');
    expectError(await seen(await api.post('/players/login/jeton', { fournisseur: 'apple', jeton }, { key: null })), 401, 'missing_key');
    expect(await counts()).toEqual(before);
    // The token was not used by any of these: it still signs in.
    session(await login('apple', jeton));
  });

  it('a suspended player is compte_suspendu', async () => {
    const p = session(await login('apple', await token(appleKey, APPLE, 'suspendu')));
    await app.sql('update manette.players set suspended_at = now() where id = $1', [p.data.joueur.id]);
    const r = await login('apple', await token(appleKey, APPLE, 'suspendu'));
    expectError(r, 403, 'compte_suspendu');
    expect(r.body.jusqu_a).toBeNull();
  });
});

describe('key rotation', () => {
  it('a new key is fetched when a token names it; a withdrawn key stops once the set is fetched again', async () => {
    const fetched = idp.fetches(ROTATION.path);
    const old = session(await login('rotation', await token(rotationKey, ROTATION, 'rot')));
    // The set is cached: a second token of the same key fetches nothing.
    const afterFirst = idp.fetches(ROTATION.path);
    expect(afterFirst).toBe(fetched + 1);
    session(await login('rotation', await token(rotationKey, ROTATION, 'rot')));
    expect(idp.fetches(ROTATION.path)).toBe(afterFirst);

    // The provider rotates: a new key is published, the old one withdrawn.
    const next = await newKey('ES256');
    idp.publish(ROTATION.path, next);
    idp.withdraw(ROTATION.path, rotationKey);
    // Until the set is fetched again, the cached set still holds the old key (jose caches a
    // set for MANETTE_JWKS_CACHE_S): its tokens still verify.
    session(await login('rotation', await token(rotationKey, ROTATION, 'rot')));
    expect(idp.fetches(ROTATION.path)).toBe(afterFirst);
    // A token of the new key names a kid the cache lacks: the set is fetched again, it signs in.
    const rotated = session(await login('rotation', await token(next, ROTATION, 'rot')));
    expect(rotated.data.joueur.id).toBe(old.data.joueur.id);
    expect(idp.fetches(ROTATION.path)).toBe(afterFirst + 1);
    // The set now fetched has no old key: its tokens are refused and create nothing.
    const before = await counts();
    expectError(await login('rotation', await token(rotationKey, ROTATION, 'rot-2')), 401, 'invalid_credentials');
    expect(await counts()).toEqual(before);
  });
});

describe('a guest links an identity token (POST /players/lier {fournisseur, jeton})', () => {
  const invite = async () => {
    const r = await seen(await api.post('/players/invite', {}, { headers: { 'x-forwarded-for': `198.51.100.${Math.floor(Math.random() * 250) + 1}` } }));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body as { token: string; data: { joueur: { id: string; pseudo: string } } };
  };
  const lier = async (playerToken: string, body: unknown) => seen(await api.post('/players/lier', body, { token: playerToken }));

  it('links: same player, no longer a guest, and the identity then signs in to it', async () => {
    const g = await invite();
    const r = await lier(g.token, { fournisseur: 'auth0', jeton: await token(auth0Key, AUTH0, 'auth0|invite') });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.joueur).toMatchObject({ id: g.data.joueur.id, pseudo: g.data.joueur.pseudo, invite: false });
    expect(await identitiesOf(g.data.joueur.id)).toEqual([{ issuer: AUTH0.iss, subject: 'auth0|invite', fournisseur: 'auth0' }]);
    expect(session(await login('auth0', await token(auth0Key, AUTH0, 'auth0|invite'))).data.joueur.id).toBe(g.data.joueur.id);
    // The guest's session stays valid.
    expect((await seen(await api.get('/players/me', { token: g.token }))).status).toBe(200);
  });

  it('a taken identity, a bad token, a replayed token and an unknown provider leave the guest as it was', async () => {
    session(await login('apple', await token(appleKey, APPLE, 'deja-joueur')));
    const g = await invite();
    const before = await counts();
    expectError(await lier(g.token, { fournisseur: 'apple', jeton: await token(appleKey, APPLE, 'deja-joueur') }), 409, 'identity_taken');
    expectError(await lier(g.token, { fournisseur: 'apple', jeton: await token(auth0Key, APPLE, 'forge') }), 401, 'invalid_credentials');
    const used = await token(appleKey, APPLE, 'utilise');
    session(await login('apple', used));
    const afterLogin = await counts();
    expectError(await lier(g.token, { fournisseur: 'apple', jeton: used }), 401, 'invalid_credentials');
    expectError(await lier(g.token, { fournisseur: 'steam', jeton: used }), 400, 'fournisseur_inconnu');
    expectError(await lier(g.token, { fournisseur: 'apple', jeton: used, email: 'x@example.test' }), 400, 'validation_failed');
    expectError(await lier(g.token, { fournisseur: 'apple' }), 400, 'validation_failed');
    expect(await counts()).toEqual(afterLogin);
    expect(Number(afterLogin.players)).toBe(Number(before.players) + 1);
    const [row] = await app.sql('select guest from manette.players where id = $1', [g.data.joueur.id]);
    expect(row).toEqual({ guest: true });
    expect(await identitiesOf(g.data.joueur.id)).toEqual([]);
  });
});

describe('the project\'s Supabase Auth ({"supabase": true})', () => {
  /** An access token as Supabase Auth mints one for a signed-in user (docs/accounts.md lists the claims). */
  const supabaseToken = (userId: string, claims: Record<string, unknown> = {}) => sign(supabaseKey, {
    iss: `${idp.origin}/auth/v1`, aud: 'authenticated', sub: userId, exp: now() + 3600, iat: now(),
    email: `${userId.slice(0, 8)}@example.test`, phone: '',
    app_metadata: { provider: 'email', providers: ['email'] }, user_metadata: { email_verified: true },
    role: 'authenticated', aal: 'aal1', amr: [{ method: 'password', timestamp: now() }],
    session_id: randomUUID(), is_anonymous: false, ...claims,
  });

  it('signs in, keeps the auth user id on the player, and SQL as that user reads only its rows', async () => {
    const userId = randomUUID();
    const other = randomUUID();
    const jeton = await supabaseToken(userId);
    const r = session(await login('supabase', jeton));
    const [row] = await app.sql('select supabase_user_id from manette.players where id = $1', [r.data.joueur.id]);
    expect(row).toEqual({ supabase_user_id: userId });
    expect(await identitiesOf(r.data.joueur.id)).toEqual([{ issuer: `${idp.origin}/auth/v1`, subject: userId, fournisseur: 'supabase' }]);
    // Without jti, the token's hash makes it single use.
    expectError(await login('supabase', jeton), 401, 'invalid_credentials');
    expect(session(await login('supabase', await supabaseToken(userId))).data.joueur.id).toBe(r.data.joueur.id);
    // The player's export says it.
    const ex = await seen(await api.get('/players/me/export', { token: r.token }));
    expect(ex.body.data.joueur).toMatchObject({
      supabase_user_id: userId, identites: [{ fournisseur: 'supabase', emetteur: `${idp.origin}/auth/v1`, sub: userId }],
    });

    // A studio table whose policy is Supabase's usual one: rows of auth.uid() only.
    await app.sql(`create table public.notes_studio (id serial primary key, owner uuid not null, texte text not null);
      alter table public.notes_studio enable row level security;
      create policy "Each user reads their own notes" on public.notes_studio for select to authenticated using ((select auth.uid()) = owner);
      grant select on public.notes_studio to authenticated;`);
    await app.sql('insert into public.notes_studio (owner, texte) values ($1, $2), ($1, $3), ($4, $5)', [userId, 'a', 'b', other, 'c']);
    const payload = JSON.parse(Buffer.from(jeton.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    expect(payload).toMatchObject({ sub: userId, role: 'authenticated' });
    const db = new pg.Client({ connectionString: app.databaseUrl });
    await db.connect();
    try {
      await db.query('begin');
      await db.query(`set local role ${payload.role as string}`);
      await db.query(`select set_config('request.jwt.claims', $1, true)`, [JSON.stringify(payload)]);
      const seenRows = await db.query<{ texte: string }>('select texte from public.notes_studio order by texte');
      expect(seenRows.rows.map((x) => x.texte)).toEqual(['a', 'b']);
      const [uid] = (await db.query<{ uid: string }>('select auth.uid() as uid')).rows;
      expect(uid!.uid).toBe(userId);
      // The token's role reads nothing of Manette's tables.
      await expect(db.query('select count(*) from manette.players')).rejects.toThrow(/permission denied/);
      await db.query('rollback');
    } finally {
      await db.end();
    }
  });

  it('refuses the anon role, another issuer, a sub that is no user id and another key', async () => {
    const before = await counts();
    expectError(await login('supabase', await supabaseToken(randomUUID(), { role: 'anon', aud: 'anon' })), 401, 'invalid_credentials');
    expectError(await login('supabase', await supabaseToken(randomUUID(), { role: 'anon' })), 401, 'invalid_credentials');
    expectError(await login('supabase', await supabaseToken(randomUUID(), { iss: 'https://autre.supabase.co/auth/v1' })), 401, 'invalid_credentials');
    expectError(await login('supabase', await supabaseToken('pas-un-uuid')), 401, 'invalid_credentials');
    const stranger = await newKey('ES256', supabaseKey.kid);
    expectError(await login('supabase', await sign(stranger, { iss: `${idp.origin}/auth/v1`, aud: 'authenticated', sub: randomUUID(), role: 'authenticated', exp: now() + 60 })), 401, 'invalid_credentials');
    expect(await counts()).toEqual(before);
  });
});

describe('the game file\'s connexions', () => {
  it.each([
    [{ google: { emetteur: 'x', audience: 'y', jwks_url: 'https://x.test/keys' } }, /connexions/],
    [{ apple: { emetteur: APPLE.iss, audience: APPLE.aud, jwks_url: 'http://idp.example.test/keys' } }, /jwks_url/],
    [{ apple: { emetteur: APPLE.iss, audience: [], jwks_url: 'https://x.test/keys' } }, /audience/],
    [{ apple: { emetteur: APPLE.iss, jwks_url: 'https://x.test/keys' } }, /audience/],
    [{ apple: { emetteur: 'https://accounts.google.com', audience: 'a', jwks_url: 'https://x.test/keys' } }, /google/],
    [{ apple: { emetteur: APPLE.iss, audience: 'a', jwks_url: 'https://x.test/keys', algorithmes: ['HS256'] } }, /algorithmes|connexions/],
    [{ supabase: { supabase: true, audience: 'x' } }, /connexions/],
    [{ 'Apple!': { supabase: true } }, /connexions/],
  ])('refuses %j', async (connexions, message) => {
    await expect(app.applyGame(minimalGame('jeu-connexions-refus', { connexions }))).rejects.toThrow(message);
  });

  it('the database refuses the same when the file skips the façade (manette_admin.apply_game)', async () => {
    const db = new pg.Client({ connectionString: app.databaseUrl });
    await db.connect();
    try {
      await db.query('begin');
      await db.query('set local role manette_admin');
      for (const [connexions, message] of [
        [{ google: { supabase: true } }, /connexions\.google/],
        [{ apple: { emetteur: APPLE.iss, audience: 'a', jwks_url: 'ftp://x.test/keys' } }, /connexions\.apple\.jwks_url/],
        [{ apple: { emetteur: APPLE.iss, audience: [1], jwks_url: 'https://x.test/keys' } }, /connexions\.apple\.audience/],
        [{ apple: { emetteur: '', audience: 'a', jwks_url: 'https://x.test/keys' } }, /connexions\.apple\.emetteur/],
        [{ apple: { emetteur: 'e', audience: 'a', jwks_url: 'https://x.test/keys', extra: 1 } }, /connexions\.apple\.extra/],
      ] as const) {
        await db.query('savepoint s');
        await expect(db.query('select manette_admin.apply_game($1, $2)', [{ jeu: 'jeu-sql-connexions', nom: 'X', connexions }, `sk_live_${randomUUID().replaceAll('-', '')}`]))
          .rejects.toThrow(message);
        await db.query('rollback to savepoint s');
      }
      await db.query('rollback');
    } finally {
      await db.end();
    }
  });
});

describe('deleting an account whose credential is an identity token (POST /players/me/supprimer)', () => {
  const supprimer = async (playerToken: string, body: unknown) => seen(await api.post('/players/me/supprimer', body, { token: playerToken }));

  it('is confirmed by a fresh token of one of its identities, nothing else; the identity then makes a new player', async () => {
    const p = session(await login('apple', await token(appleKey, APPLE, 'a-supprimer')));
    const id = p.data.joueur.id;
    // No password and no Google id, but not a guest: {} is no proof.
    expectError(await supprimer(p.token, {}), 401, 'invalid_credentials');
    // Another identity's valid token, a token issued 11 minutes ago, a forged one: refused.
    expectError(await supprimer(p.token, { fournisseur: 'apple', jeton: await token(appleKey, APPLE, 'quelqu-un-d-autre') }), 401, 'invalid_credentials');
    expectError(await supprimer(p.token, { fournisseur: 'apple', jeton: await token(appleKey, APPLE, 'a-supprimer', { iat: now() - 660 }) }), 401, 'invalid_credentials');
    expectError(await supprimer(p.token, { fournisseur: 'apple', jeton: await token(auth0Key, APPLE, 'a-supprimer') }), 401, 'invalid_credentials');
    expectError(await supprimer(p.token, { fournisseur: 'apple', jeton: 'x', password: 'y' }), 400, 'validation_failed');
    const [still] = await app.sql('select deleted_at from manette.players where id = $1', [id]);
    expect(still).toEqual({ deleted_at: null });
    expect(await identitiesOf(id)).toHaveLength(1);

    const proof = { fournisseur: 'apple', jeton: await token(appleKey, APPLE, 'a-supprimer') };
    const done = await supprimer(p.token, proof);
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.data).toEqual({ supprime: true });
    // The same request again (a lost answer) gets the same answer.
    expect((await supprimer(p.token, proof)).body.data).toEqual({ supprime: true });
    expect(await identitiesOf(id)).toEqual([]);
    const [gone] = await app.sql('select deleted_at is not null as deleted, supabase_user_id from manette.players where id = $1', [id]);
    expect(gone).toEqual({ deleted: true, supabase_user_id: null });
    const again = session(await login('apple', await token(appleKey, APPLE, 'a-supprimer')));
    expect(again.data.joueur.id).not.toBe(id);
  });
});

describe('the browser SDK (auth.loginWithToken, auth.link({fournisseur, jeton}))', () => {
  const sdk = () => {
    const store = new Map<string, string>();
    const storage = { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => { store.set(k, v); }, removeItem: (k: string) => { store.delete(k); } };
    return createClient({ baseUrl: app.baseUrl, apiKey: gameKey, storage });
  };

  it('signs in with a token, links a guest, and rejects with the API\'s codes', async () => {
    const m = sdk();
    const joueur = await m.auth.loginWithToken('apple', await token(appleKey, APPLE, 'sdk-apple'));
    expect(m.auth.player?.id).toBe(joueur.id);
    expect(m.auth.token).toMatch(/^pt_/);
    const again = await sdk().auth.loginWithToken('apple', await token(appleKey, APPLE, 'sdk-apple'));
    expect(again.id).toBe(joueur.id);

    const g = sdk();
    const guest = await g.auth.guest({ appareilId: false });
    expect(guest.invite).toBe(true);
    const linked = await g.auth.link({ fournisseur: 'auth0', jeton: await token(auth0Key, AUTH0, 'auth0|sdk') });
    expect(linked).toMatchObject({ id: guest.id, invite: false });

    const err = await sdk().auth.loginWithToken('epic', 'x').then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(ManetteError);
    expect((err as ManetteError).code).toBe('fournisseur_inconnu');
    const taken = sdk();
    await taken.auth.guest({ appareilId: false });
    const refused = await taken.auth.link({ fournisseur: 'apple', jeton: await token(appleKey, APPLE, 'sdk-apple') }).then(() => null, (e: unknown) => e);
    expect((refused as ManetteError).code).toBe('identity_taken');
  });
});
