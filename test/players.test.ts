// Players, keys and tokens (docs/api.md), over real HTTP.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair, SignJWT } from 'jose';
import { serveGoogleKeys, type GoogleKeys } from './support/google-keys.js';
import { client, minimalGame, startTestApp, type TestApp } from './support/harness.js';
import { hashPassword, passwordCost, verifyPassword } from '../api/security/password.js';
import { detailMessageFor } from '../api/http/messages.js';

let app: TestApp;
let jwks: GoogleKeys;
let privateKey: CryptoKey;
let keyA: string;
let keyB: string;
let api: ReturnType<typeof client>;
const GOOGLE_CLIENT = 'client-123.apps.googleusercontent.com';

beforeAll(async () => {
  jwks = await serveGoogleKeys();
  privateKey = jwks.privateKey;
  app = await startTestApp({ MANETTE_GOOGLE_JWKS_URL: jwks.jwksUrl });
  keyA = await app.applyGame(minimalGame('jeu-a', { google: { client_id: GOOGLE_CLIENT } }));
  keyB = await app.applyGame(minimalGame('jeu-b'));
  api = client(app.baseUrl, keyA);
});
afterAll(async () => {
  await app?.close();
  jwks?.close();
});

describe('POST /players/register', () => {
  it('creates the player and opens a session (201)', async () => {
    const r = await api.post('/players/register', { pseudo: 'Alice', email: 'Alice@Example.test', password: 'motdepasse1', pays: 'fr' });
    expect(r.status).toBe(201);
    expect(r.body.ok).toBe(true);
    expect(r.body.token).toMatch(/^pt_[A-Za-z0-9_-]{43,}$/);
    expect(r.body.data.joueur).toMatchObject({ pseudo: 'Alice', email: 'Alice@Example.test', pays: 'FR', avatar_url: null });
    expect(r.body.data.joueur.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(r.body.data.expire_le) - Date.now()).toBeGreaterThan(29.9 * 86400e3);
    // Only hashes are stored.
    const [p] = await app.sql('select password_hash from manette.players where id = $1', [r.body.data.joueur.id]);
    expect(p!.password_hash).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(p!.password_hash).not.toContain('motdepasse1');
    const sessions = await app.sql("select encode(token_hash, 'hex') as h from manette.sessions where player_id = $1", [r.body.data.joueur.id]);
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.h).not.toContain(r.body.token);
  });

  it('refuses a pseudo or e-mail already used in the game, ignoring case (409)', async () => {
    await api.register('Bob');
    const pseudo = await api.post('/players/register', { pseudo: 'BOB', email: 'other@example.test', password: 'motdepasse1' });
    expect(pseudo.status).toBe(409);
    expect(pseudo.body).toMatchObject({ ok: false, error: 'pseudo_taken' });
    const email = await api.post('/players/register', { pseudo: 'Bobby', email: 'BOB@example.test', password: 'motdepasse1' });
    expect(email.status).toBe(409);
    expect(email.body.error).toBe('email_taken');
  });

  it('accepts pseudos in any script, stored in NFC (docs/api.md)', async () => {
    for (const pseudo of ['Zoé', 'Ёлка', '名前です', 'ΣΊΣΥΦΟΣ_3', 'x٣y']) {
      const r = await api.post('/players/register', { pseudo, email: `u${Buffer.from(pseudo).toString('hex')}@example.test`, password: 'motdepasse1' });
      expect([r.status, r.body.data?.joueur?.pseudo]).toEqual([201, pseudo]);
    }
    // 32 characters after NFC, even though each é arrives as two code points.
    const decomposed = 'e\u0301'.repeat(32);
    const long = await api.post('/players/register', { pseudo: decomposed, email: 'long@example.test', password: 'motdepasse1' });
    expect([long.status, long.body.data?.joueur?.pseudo]).toEqual([201, 'é'.repeat(32)]);
    const [row] = await app.sql('select pseudo, pseudo is nfc normalized as nfc from manette.players where id = $1', [long.body.data.joueur.id]);
    expect(row).toEqual({ pseudo: 'é'.repeat(32), nfc: true });
  });

  it('compares pseudos ignoring case after NFC: ZOÉ and a decomposed Zoé are Zoé', async () => {
    const zoe = await client(app.baseUrl, keyB).register('Zoé', { email: 'zoe@example.test' });
    const other = client(app.baseUrl, keyB);
    for (const pseudo of ['ZOÉ', 'zoé', 'Zoe\u0301', 'ZOE\u0301']) {
      const r = await other.post('/players/register', { pseudo, email: `${Math.random().toString(36).slice(2)}@example.test`, password: 'motdepasse1' });
      expect([r.status, r.body.error]).toEqual([409, 'pseudo_taken']);
    }
    expect((await other.post('/players/register', { pseudo: 'ЁЛКА', email: 'elka1@example.test', password: 'motdepasse1' })).status).toBe(201);
    expect((await other.post('/players/register', { pseudo: 'ёлка', email: 'elka2@example.test', password: 'motdepasse1' })).body.error).toBe('pseudo_taken');
    // Login by pseudo finds the same player, whatever the case or the normalisation form.
    for (const identifiant of ['Zoé', 'ZOÉ', 'zoe\u0301', 'ZOE\u0301']) {
      const r = await other.post('/players/login', { identifiant, password: 'motdepasse-solide' });
      expect([r.status, r.body.data?.joueur?.id]).toEqual([200, zoe.data.joueur.id]);
    }
  });

  it('allows the same pseudo in another game', async () => {
    const r = await client(app.baseUrl, keyB).post('/players/register', { pseudo: 'Bob', email: 'bob@example.test', password: 'motdepasse1' });
    expect(r.status).toBe(201);
  });

  it.each([
    [{ pseudo: 'ab', email: 'x@example.test', password: 'motdepasse1' }, 'pseudo'],
    [{ pseudo: 'a b c', email: 'x@example.test', password: 'motdepasse1' }, 'pseudo'],
    [{ pseudo: 'x'.repeat(33), email: 'x@example.test', password: 'motdepasse1' }, 'pseudo'],
    [{ pseudo: 'Valid', email: 'not-an-email', password: 'motdepasse1' }, 'email'],
    [{ pseudo: 'Valid', email: 'x@example.test', password: 'court' }, 'password'],
    [{ pseudo: 'Valid', email: 'x@example.test', password: 'x'.repeat(129) }, 'password'],
    [{ pseudo: 'Valid', email: 'x@example.test', password: 'motdepasse1', pays: 'FRA' }, 'pays'],
    [{ pseudo: 'Valid', email: 'x@example.test', password: 'motdepasse1', pays: 'ZZ' }, 'pays'],
    [{ email: 'x@example.test', password: 'motdepasse1' }, 'pseudo'],
    [{ pseudo: 42, email: 'x@example.test', password: 'motdepasse1' }, 'pseudo'],
    [{ pseudo: 'Zoé😀', email: 'x@example.test', password: 'motdepasse1' }, 'pseudo'],
    [{ pseudo: '😀😀😀', email: 'x@example.test', password: 'motdepasse1' }, 'pseudo'],
    [{ pseudo: 'Zoé Zoé', email: 'x@example.test', password: 'motdepasse1' }, 'pseudo'],
    [{ pseudo: 'Zoé\u00a0Z', email: 'x@example.test', password: 'motdepasse1' }, 'pseudo'],
    [{ pseudo: 'Zo\u200bé', email: 'x@example.test', password: 'motdepasse1' }, 'pseudo'],
    [{ pseudo: 'ab\u0301', email: 'x@example.test', password: 'motdepasse1' }, 'pseudo'],
    [{ pseudo: 'é'.repeat(33), email: 'x@example.test', password: 'motdepasse1' }, 'pseudo'],
  ])('validation_failed names the field (%j)', async (body, champ) => {
    const r = await api.post('/players/register', body);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('validation_failed');
    expect(r.body.details.map((d: { champ: string }) => d.champ)).toContain(champ);
    expect((await app.sql("select 1 from manette.players where pseudo = 'Valid'")).length).toBe(0);
  });

  it('50 concurrent registrations of one pseudo create exactly one player', async () => {
    const replies = await Promise.all(Array.from({ length: 50 }, (_, i) =>
      api.post('/players/register', { pseudo: 'Rush', email: `rush${i}@example.test`, password: 'motdepasse1' })));
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(49);
    expect(replies.filter((r) => r.status === 409).every((r) => r.body.error === 'pseudo_taken')).toBe(true);
    expect(await app.sql("select count(*)::int as n from manette.players where lower(pseudo) = 'rush'")).toEqual([{ n: 1 }]);
  });
});

describe('POST /players/login', () => {
  beforeAll(async () => { await api.register('Carol'); });

  it('accepts identifiant as pseudo or e-mail (any case) and the email field', async () => {
    for (const body of [
      { identifiant: 'carol', password: 'motdepasse-solide' },
      { identifiant: 'CAROL@example.test', password: 'motdepasse-solide' },
      { email: 'carol@example.test', password: 'motdepasse-solide' },
    ]) {
      const r = await api.post('/players/login', body);
      expect(r.status).toBe(200);
      expect(r.body.token).toMatch(/^pt_/);
      expect(r.body.data.joueur.pseudo).toBe('Carol');
      const me = await api.get('/players/me', { token: r.body.token });
      expect(me.body.data.joueur.pseudo).toBe('Carol');
    }
  });

  it('gives the same invalid_credentials whether the player exists or not', async () => {
    const wrong = await api.post('/players/login', { identifiant: 'Carol', password: 'mauvais-mdp' });
    const unknown = await api.post('/players/login', { identifiant: 'Nobody', password: 'mauvais-mdp' });
    for (const r of [wrong, unknown]) {
      expect(r.status).toBe(401);
      expect(r.body.error).toBe('invalid_credentials');
    }
    expect(wrong.body.message).toBe(unknown.body.message);
  });

  it('needs identifiant or email, and a password', async () => {
    const r = await api.post('/players/login', { password: 'x' });
    expect(r.status).toBe(400);
    expect(r.body.details[0].champ).toBe('identifiant');
    expect((await api.post('/players/login', { identifiant: 'Carol' })).body.details[0].champ).toBe('password');
  });

  it('locks an identifier after 10 failures in 15 minutes, even with the right password', async () => {
    await api.register('Dave');
    for (let i = 0; i < 10; i++) {
      expect((await api.post('/players/login', { identifiant: 'dave', password: 'mauvais-mdp' })).status).toBe(401);
    }
    const locked = await api.post('/players/login', { identifiant: 'Dave', password: 'motdepasse-solide' });
    expect(locked.status).toBe(429);
    expect(locked.body.error).toBe('too_many_attempts');
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another identifier is not affected; the window passing lifts the lock.
    expect((await api.post('/players/login', { identifiant: 'carol', password: 'motdepasse-solide' })).status).toBe(200);
    await app.sql("update manette.login_attempts set created_at = now() - interval '16 minutes' where identifier = 'dave'");
    expect((await api.post('/players/login', { identifiant: 'dave', password: 'motdepasse-solide' })).status).toBe(200);
  });

  it('holds across API processes sharing the database', async () => {
    await api.register('Nina');
    const second = await startTestApp({}, app.databaseUrl);
    try {
      const other = client(second.baseUrl, keyA);
      for (let i = 0; i < 10; i++) {
        const via = i % 2 === 0 ? api : other;
        expect((await via.post('/players/login', { identifiant: 'nina', password: 'mauvais-mdp' })).status).toBe(401);
      }
      expect((await other.post('/players/login', { identifiant: 'nina', password: 'motdepasse-solide' })).body.error).toBe('too_many_attempts');
      expect((await api.post('/players/login', { identifiant: 'nina', password: 'motdepasse-solide' })).body.error).toBe('too_many_attempts');
    } finally {
      await second.close();
    }
  });

  it('counts concurrent guesses: 30 at once never let more than 10 through to the password check', async () => {
    await api.register('Erin');
    const replies = await Promise.all(Array.from({ length: 30 }, () =>
      api.post('/players/login', { identifiant: 'erin', password: 'mauvais-mdp' })));
    expect(replies.filter((r) => r.status === 401)).toHaveLength(10);
    expect(replies.filter((r) => r.status === 429)).toHaveLength(20);
  });
});

describe('POST /players/login: limits per client address and per identifier (docs/api.md)', () => {
  // Behind a proxy (TRUST_PROXY=1), X-Forwarded-For gives each request its client address.
  let proxied: TestApp;
  let via: ReturnType<typeof client>;
  const login = (from: string, identifiant: string, password: string) =>
    via.post('/players/login', { identifiant, password }, { headers: { 'x-forwarded-for': from } });
  beforeAll(async () => {
    proxied = await startTestApp({ TRUST_PROXY: '1' }, app.databaseUrl);
    via = client(proxied.baseUrl, keyA);
  });
  afterAll(async () => { await proxied?.close(); });

  it('10 failures from address A lock A only: the player still logs in from B', async () => {
    await api.register('Olga');
    for (let i = 0; i < 10; i++) {
      expect((await login('203.0.113.1', 'olga', 'mauvais-mdp')).status).toBe(401);
    }
    const locked = await login('203.0.113.1', 'Olga', 'motdepasse-solide');
    expect([locked.status, locked.body.error]).toEqual([429, 'too_many_attempts']);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another address: the right password works, a wrong one is only a failure.
    const fromB = await login('198.51.100.7', 'olga', 'motdepasse-solide');
    expect([fromB.status, fromB.body.data?.joueur?.pseudo]).toEqual([200, 'Olga']);
    expect((await login('198.51.100.7', 'OLGA', 'mauvais-mdp')).status).toBe(401);
    expect((await login('203.0.113.1', 'olga', 'motdepasse-solide')).status).toBe(429);
    expect(await app.sql("select distinct host(client_net) as a from manette.login_attempts where identifier = 'olga' order by 1"))
      .toEqual([{ a: '198.51.100.7' }, { a: '203.0.113.1' }]);
  });

  it('an IPv6 client counts as its /64', async () => {
    await api.register('Ivan');
    for (let i = 1; i <= 10; i++) {
      expect((await login(`2001:db8:1:2::${i}`, 'ivan', 'mauvais-mdp')).status).toBe(401);
    }
    expect((await login('2001:db8:1:2:ffff::99', 'ivan', 'motdepasse-solide')).status).toBe(429);
    expect((await login('2001:db8:1:3::1', 'ivan', 'motdepasse-solide')).status).toBe(200);
  });

  it('100 failures from many addresses lock the identifier for everyone; concurrent guesses cannot slip through', async () => {
    await api.register('Paul');
    const replies = await Promise.all(Array.from({ length: 130 }, (_, i) =>
      login(`10.1.${Math.floor(i / 100)}.${i % 100}`, 'paul', 'mauvais-mdp')));
    expect(replies.filter((r) => r.status === 401)).toHaveLength(100);
    expect(replies.filter((r) => r.status === 429)).toHaveLength(30);
    for (const from of ['192.0.2.200', '198.51.100.8']) {
      const r = await login(from, 'paul', 'motdepasse-solide');
      expect([r.status, r.body.error]).toEqual([429, 'too_many_attempts']);
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // Other identifiers are not affected; the window passing lifts the lock.
    expect((await login('192.0.2.200', 'carol', 'motdepasse-solide')).status).toBe(200);
    await app.sql("update manette.login_attempts set created_at = now() - interval '16 minutes' where identifier = 'paul'");
    expect((await login('192.0.2.200', 'paul', 'motdepasse-solide')).status).toBe(200);
  });
});

describe('sessions', () => {
  it('missing_player without a token, invalid_token for unknown, other-game, expired or revoked ones', async () => {
    const s = await api.register('Frank');
    expect((await api.get('/players/me')).body.error).toBe('missing_player');
    expect((await api.get('/players/me')).status).toBe(401);
    const unknown = await api.get('/players/me', { token: 'pt_' + 'x'.repeat(43) });
    expect([unknown.status, unknown.body.error]).toEqual([401, 'invalid_token']);
    const otherGame = await client(app.baseUrl, keyB).get('/players/me', { token: s.token });
    expect([otherGame.status, otherGame.body.error]).toEqual([401, 'invalid_token']);

    await app.sql("update manette.sessions set expires_at = now() - interval '1 second' where player_id = $1", [s.data.joueur.id]);
    expect((await api.get('/players/me', { token: s.token })).body.error).toBe('invalid_token');
  });

  it('slides the expiry on use', async () => {
    const s = await api.register('Gina');
    await app.sql("update manette.sessions set last_used_at = now() - interval '10 days', expires_at = now() + interval '20 days' where player_id = $1", [s.data.joueur.id]);
    expect((await api.get('/players/me', { token: s.token })).status).toBe(200);
    const [row] = await app.sql<{ days: number }>('select extract(epoch from expires_at - now()) / 86400 as days from manette.sessions where player_id = $1', [s.data.joueur.id]);
    expect(Number(row!.days)).toBeGreaterThan(29.9);
  });

  it('logout revokes the token', async () => {
    const s = await api.register('Hugo');
    const out = await api.post('/players/logout', undefined, { token: s.token });
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ ok: true, data: {} });
    expect((await api.get('/players/me', { token: s.token })).body.error).toBe('invalid_token');
    expect((await api.post('/players/logout', undefined, { token: s.token })).body.error).toBe('invalid_token');
  });

  it('missing_key, invalid_key (malformed, unknown, revoked)', async () => {
    const none = await api.get('/players/me', { key: null });
    expect([none.status, none.body.error]).toEqual([401, 'missing_key']);
    for (const bad of ['nope', 'sk_live_' + 'A'.repeat(40)]) {
      const r = await api.post('/players/login', { identifiant: 'x', password: 'y' }, { key: bad });
      expect([r.status, r.body.error]).toEqual([401, 'invalid_key']);
    }
    const keyC = await app.applyGame(minimalGame('jeu-c'));
    await app.sql('update manette.api_keys set revoked_at = now() where key = $1', [keyC]);
    const revoked = await client(app.baseUrl, keyC).post('/players/register', { pseudo: 'Zed', email: 'z@example.test', password: 'motdepasse1' });
    expect([revoked.status, revoked.body.error]).toEqual([401, 'invalid_key']);
  });
});

describe('POST /players/avatar and GET /avatars/:id', () => {
  const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(100, 7)]);

  it('stores the image and serves it at avatar_url', async () => {
    const s = await api.register('Iris');
    const r = await api.post('/players/avatar', { contenu: png.toString('base64'), mime_type: 'image/png' }, { token: s.token });
    expect(r.status).toBe(200);
    const url: string = r.body.data.joueur.avatar_url;
    expect(url).toMatch(new RegExp(`/avatars/${s.data.joueur.id}\\?v=1$`));
    const img = await fetch(url);
    expect(img.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await img.arrayBuffer()).equals(png)).toBe(true);
    expect((await api.get('/players/me', { token: s.token })).body.data.joueur.avatar_url).toBe(url);
  });

  it('refuses oversize, mislabelled or non-base64 content and changes nothing', async () => {
    const s = await api.register('Jack');
    const big = Buffer.concat([png, Buffer.alloc(256 * 1024)]);
    for (const body of [
      { contenu: big.toString('base64'), mime_type: 'image/png' },
      { contenu: png.toString('base64'), mime_type: 'image/jpeg' },
      { contenu: '@@@', mime_type: 'image/png' },
      { contenu: png.toString('base64'), mime_type: 'image/gif' },
    ]) {
      const r = await api.post('/players/avatar', body, { token: s.token });
      expect([r.status, r.body.error]).toEqual([400, 'validation_failed']);
    }
    expect(await app.sql('select 1 from manette.avatars where player_id = $1', [s.data.joueur.id])).toHaveLength(0);
    const missing = await fetch(app.baseUrl.replace('/api/public/v1', '') + `/avatars/${s.data.joueur.id}`);
    expect(missing.status).toBe(404);
    expect((await missing.json()).error).toBe('player_not_found');
  });
});

describe('POST /players/google', () => {
  const sign = (claims: Record<string, unknown>, exp = '1h') => new SignJWT({
    email: 'kim@gmail.test', email_verified: true, name: 'Kim Possible', ...claims,
  }).setProtectedHeader({ alg: 'RS256', kid: 'test-key' }).setIssuer('https://accounts.google.com')
    .setAudience(GOOGLE_CLIENT).setSubject('google-sub-1').setIssuedAt().setExpirationTime(exp).sign(privateKey);

  it('creates the player once, then logs the same player in', async () => {
    const first = await api.post('/players/google', { id_token: await sign({}) });
    expect(first.status).toBe(200);
    expect(first.body.token).toMatch(/^pt_/);
    expect(first.body.data.joueur).toMatchObject({ pseudo: 'Kim_Possible', email: 'kim@gmail.test' });
    const again = await api.post('/players/google', { id_token: await sign({}) });
    expect(again.body.data.joueur.id).toBe(first.body.data.joueur.id);
  });

  it('never links to an existing account by e-mail (its e-mail was never verified): a new player', async () => {
    const s = await api.register('Lina', { email: 'lina@gmail.test' });
    const token = await new SignJWT({ email: 'lina@gmail.test', email_verified: true })
      .setProtectedHeader({ alg: 'RS256', kid: 'test-key' }).setIssuer('accounts.google.com')
      .setAudience(GOOGLE_CLIENT).setSubject('google-sub-lina').setIssuedAt().setExpirationTime('1h').sign(privateKey);
    const r = await api.post('/players/google', { id_token: token });
    expect(r.status).toBe(200);
    expect(r.body.data.joueur.id).not.toBe(s.data.joueur.id); // test/google-login.test.ts has the whole rule
  });

  it('refuses a bad signature, audience, issuer, an expired token or a game without Google', async () => {
    const other = await generateKeyPair('RS256');
    const forged = await new SignJWT({}).setProtectedHeader({ alg: 'RS256', kid: 'test-key' })
      .setIssuer('https://accounts.google.com').setAudience(GOOGLE_CLIENT).setSubject('x').setExpirationTime('1h').sign(other.privateKey);
    const wrongAud = await new SignJWT({}).setProtectedHeader({ alg: 'RS256', kid: 'test-key' })
      .setIssuer('https://accounts.google.com').setAudience('someone-else').setSubject('x').setExpirationTime('1h').sign(privateKey);
    const wrongIss = await new SignJWT({}).setProtectedHeader({ alg: 'RS256', kid: 'test-key' })
      .setIssuer('https://evil.test').setAudience(GOOGLE_CLIENT).setSubject('x').setExpirationTime('1h').sign(privateKey);
    const expired = await sign({}, '-1m');
    for (const id_token of [forged, wrongAud, wrongIss, expired, 'not.a.jwt']) {
      const r = await api.post('/players/google', { id_token });
      expect([r.status, r.body.error]).toEqual([401, 'invalid_credentials']);
    }
    const noGoogle = await client(app.baseUrl, keyB).post('/players/google', { id_token: await sign({}) });
    expect([noGoogle.status, noGoogle.body.error]).toEqual([401, 'invalid_credentials']);
    expect((await api.post('/players/google', {})).body.error).toBe('validation_failed');
  });
});

describe('password hashing', () => {
  it('uses argon2id at OWASP\'s minimum by default and verifies only the right password', async () => {
    const { readSettings } = await import('../api/config/settings.js');
    const cost = passwordCost(readSettings({}));
    expect(cost).toEqual({ memoryKiB: 19456, iterations: 2, hasher: 'auto' });
    const stored = await hashPassword('correct horse', cost);
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await verifyPassword('correct horse', stored, cost)).toBe(true);
    expect(await verifyPassword('wrong horse', stored, cost)).toBe(false);
    expect(await verifyPassword('anything', null, { memoryKiB: 1024, iterations: 1 })).toBe(false);
  });
});

describe('validation details follow Accept-Language', () => {
  let c: ReturnType<typeof client>;
  let token: string;
  beforeAll(async () => {
    c = client(app.baseUrl, await app.applyGame(minimalGame('jeu-i18n', {
      tables: { tableau: { colonnes: { score: { type: 'integer' }, nom: { type: 'text', requis: true } }, lecture: 'public', ecriture: 'joueurs' } },
    })));
    token = (await c.register('Quentin')).token;
  });

  it('details written by SQL are French by default and English with Accept-Language: en', async () => {
    const body = { donnees: { score: 'beaucoup', autre: 1 } };
    const fr = await c.post('/tables/tableau', body, { token });
    const en = await c.post('/tables/tableau', body, { token, headers: { 'accept-language': 'en-GB,en;q=0.9' } });
    expect([fr.status, fr.body.error, en.status, en.body.error]).toEqual([400, 'validation_failed', 400, 'validation_failed']);
    expect(fr.body.details).toEqual([
      { champ: 'donnees.autre', message: 'colonne inconnue' },
      { champ: 'donnees.score', message: 'entier attendu' },
      { champ: 'donnees.nom', message: 'colonne obligatoire manquante' },
    ]);
    expect(en.body.details).toEqual([
      { champ: 'donnees.autre', message: 'unknown column' },
      { champ: 'donnees.score', message: 'integer expected' },
      { champ: 'donnees.nom', message: 'required column missing' },
    ]);
    expect(en.body.message).toBe('Some fields are invalid.');

    // invalid_query too, including a text built with a value.
    const q = await c.get('/tables/tableau?score=abc', { headers: { 'accept-language': 'en' } });
    expect([q.status, q.body.error]).toEqual([400, 'invalid_query']);
    expect(q.body.details).toEqual([{ champ: 'score', message: 'invalid value for a integer column' }]);
  });

  it('details written by the route schemas and by SQL (pseudo, country, avatar, login)', async () => {
    const en = { headers: { 'accept-language': 'en' } };
    const r = await c.post('/players/register', { pseudo: 'a b', email: 'ab@example.test', password: 'motdepasse1' }, en);
    expect(r.body.details).toEqual([{ champ: 'pseudo', message: '3 to 32 characters: letters, digits, _ - .' }]);
    // The country list lives in SQL (api.players_register): its details are translated too.
    const country = await c.post('/players/register', { pseudo: 'ab_c', email: 'ab@example.test', password: 'motdepasse1', pays: 'ZZ' }, en);
    expect([country.status, country.body.details]).toEqual([400, [{ champ: 'pays', message: 'unknown ISO 3166-1 alpha-2 country code' }]]);
    const avatar = await c.post('/players/avatar', { contenu: 'AAAA', mime_type: 'image/gif' },
      { token: (await c.register('ab_d')).token, headers: { 'accept-language': 'en' } });
    expect(avatar.body.details).toEqual([{ champ: 'mime_type', message: 'image/png, image/jpeg or image/webp expected' }]);
    expect((await c.post('/players/login', { password: 'x' }, en)).body.details)
      .toEqual([{ champ: 'identifiant', message: 'identifiant or email required' }]);
  });

  it('every details text the migrations can raise has an English text', () => {
    const dir = path.resolve('supabase/migrations');
    const lit = String.raw`'((?:[^']|'')*)'`;
    const unquote = (s: string) => s.replace(/''/g, "'");
    const texts = new Set<string>();
    const dynamic = new Set<string>();
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.sql'))) {
      const sql = readFileSync(path.join(dir, file), 'utf8').replace(/--.*$/gm, '');
      // jsonb_build_object(..., 'message', '<text>' [|| value]) and '{"champ": ..., "message": "<text>"}'
      for (const m of sql.matchAll(new RegExp(String.raw`'message',\s*(?:${lit}(\s*\|\|)?|([a-z_]+))`, 'g'))) {
        if (m[1] !== undefined) texts.add(unquote(m[1]) + (m[2] ? '%s' : ''));
        else dynamic.add(m[3]!);
      }
      for (const m of sql.matchAll(/"message":\s*"([^"]*)"/g)) texts.add(m[1]!);
      // The helpers that build details from a text: manette.mm_invalid(field, text),
      // manette.leaderboard_invalid_value(text) (also with a case of format()s), and the
      // `problem` of manette.table_check_donnees.
      for (const m of sql.matchAll(new RegExp(String.raw`mm_invalid\('[^']*',\s*${lit}`, 'g'))) texts.add(unquote(m[1]!));
      for (const m of sql.matchAll(new RegExp(String.raw`leaderboard_invalid_value\(${lit}`, 'g'))) texts.add(unquote(m[1]!));
      for (const m of sql.matchAll(/leaderboard_invalid_value\(case([\s\S]*?)\bend\)/g)) {
        for (const f of m[1]!.matchAll(new RegExp(String.raw`format\(${lit}`, 'g'))) texts.add(unquote(f[1]!));
      }
      for (const m of sql.matchAll(new RegExp(String.raw`problem := ${lit}`, 'g'))) texts.add(unquote(m[1]!));
    }
    // A details text taken from a variable is one of the helpers' above; a new way of
    // building details must be added here.
    expect([...dynamic].sort()).toEqual(['message', 'problem']);
    expect(texts.size).toBeGreaterThan(25);
    const untranslated = [...texts].filter((t) => {
      const sample = t.replace(/%s/g, '42');
      const english = detailMessageFor(sample, 'en');
      return english === sample || english.includes('%s') || detailMessageFor(sample, 'fr') !== sample;
    });
    expect(untranslated).toEqual([]);
    expect(detailMessageFor('doit être comprise entre -5 et 1e+06', 'en')).toBe('must be between -5 and 1e+06');
    expect(detailMessageFor('texte libre inconnu', 'en')).toBe('texte libre inconnu');
  });
});
