// Password hashes (api/security/password.ts): argon2id PHC strings, the two implementations
// agreeing, scrypt hashes of before still verifying and re-hashed at login (compare-and-set
// in api.players_login_finish), over real HTTP and the real database.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, minimalGame, startTestApp, type TestApp } from './support/harness.js';
import {
  checkPassword, hashPassword, legacyScryptHash, parseStoredHash, passwordCost, phcString, verifyPassword, type PasswordCost,
} from '../api/security/password.js';
import { argon2Backend, loadNative, WasmThreads } from '../api/security/argon2.js';

const PASSWORD = 'motdepasse-solide';
const CHEAP: PasswordCost = { memoryKiB: 1024, iterations: 1 };

let app: TestApp;
let key: string;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  app = await startTestApp();
  key = await app.applyGame(minimalGame('mots-de-passe'));
  api = client(app.baseUrl, key);
});
afterAll(async () => { await app?.close(); });

const hashOf = async (pseudo: string): Promise<string> =>
  (await app.sql('select password_hash from manette.players where pseudo = $1', [pseudo]))[0]!.password_hash;
const login = (pseudo: string, password = PASSWORD) => api.post('/players/login', { identifiant: pseudo, password });

describe('stored form', () => {
  it('register stores an argon2id PHC string with the configured parameters, and login works', async () => {
    await api.register('Phc');
    const stored = await hashOf('Phc');
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect((await login('Phc')).status).toBe(200);
    expect((await login('Phc', 'mauvais-mot-de-passe')).status).toBe(401);
    // A successful login at the configured cost leaves the hash alone.
    expect(await hashOf('Phc')).toBe(stored);
  });

  it('the native and WebAssembly implementations give the same hashes, in the PHC form other libraries read', async () => {
    const params = { m: 19456, t: 2, p: 1 };
    const salt = randomBytes(16);
    const wasm = await new WasmThreads(1).hash('correct horse', salt, params, 32);
    const native = loadNative();
    if (native) expect(Buffer.from(await argon2Backend('native', 1).hash('correct horse', salt, params, 32))).toEqual(Buffer.from(wasm));
    // hash-wasm's own verifier reads our string (and @node-rs/argon2's, where it loads).
    const phc = phcString(params, salt, wasm);
    const { argon2Verify } = await import('hash-wasm');
    expect(await argon2Verify({ password: 'correct horse', hash: phc })).toBe(true);
    if (native) {
      const { verify } = await import('@node-rs/argon2');
      expect(await verify(phc, 'correct horse')).toBe(true);
    }
    // Any parameters a stored string carries are used to verify it.
    const cost = { memoryKiB: 1024, iterations: 1, hasher: 'wasm' as const };
    expect(await verifyPassword('correct horse', phc, cost)).toBe(true);
    expect(await verifyPassword('correct horsf', phc, cost)).toBe(false);
  });

  it('refuses malformed or extravagant stored hashes without computing them', async () => {
    for (const bad of ['', 'scrypt$1', '$argon2id$v=19$m=999999999,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA',
      '$argon2i$v=19$m=1024,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA', '$argon2id$v=16$m=1024,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA',
      'scrypt$4194304$8$1$c2FsdA==$aGFzaA==']) {
      expect(parseStoredHash(bad), bad).toBeUndefined();
      expect(await verifyPassword('x', bad, CHEAP)).toBe(false);
    }
  });
});

describe('hashes of before (scrypt) and weaker argon2id', () => {
  it('a scrypt player logs in, then has an argon2id hash, and logs in again', async () => {
    await api.register('Ancien');
    const old = await legacyScryptHash(PASSWORD, 1024);
    expect(old).toMatch(/^scrypt\$1024\$8\$1\$/);
    await app.sql('update manette.players set password_hash = $1 where pseudo = $2', [old, 'Ancien']);

    const first = await login('Ancien');
    expect(first.status).toBe(200);
    const now = await hashOf('Ancien');
    expect(now).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
    expect(await verifyPassword(PASSWORD, now, CHEAP)).toBe(true);

    expect((await login('Ancien')).status).toBe(200);
    expect(await hashOf('Ancien')).toBe(now);
    expect((await api.get('/players/me', { token: first.body.token })).status).toBe(200);
  });

  it('a wrong password against a scrypt hash fails and re-hashes nothing', async () => {
    await api.register('AncienFaux');
    const old = await legacyScryptHash(PASSWORD, 1024);
    await app.sql('update manette.players set password_hash = $1 where pseudo = $2', [old, 'AncienFaux']);
    const r = await login('AncienFaux', 'pas-le-bon-mot');
    expect([r.status, r.body.error]).toEqual([401, 'invalid_credentials']);
    expect(await hashOf('AncienFaux')).toBe(old);
    // ... and the right one still works, and upgrades it.
    expect((await login('AncienFaux')).status).toBe(200);
    expect(await hashOf('AncienFaux')).toMatch(/^\$argon2id\$/);
  });

  it('an argon2id hash weaker than the settings is re-hashed at the settings\' cost', async () => {
    await api.register('Faible'); // m=1024, t=1
    const stronger = await startTestApp({ MANETTE_ARGON2_MEMORY_KIB: '2048', MANETTE_ARGON2_ITERATIONS: '2' }, app.databaseUrl);
    try {
      const r = await client(stronger.baseUrl, key).post('/players/login', { identifiant: 'Faible', password: PASSWORD });
      expect(r.status).toBe(200);
      expect(await hashOf('Faible')).toMatch(/^\$argon2id\$v=19\$m=2048,t=2,p=1\$/);
    } finally {
      await stronger.close();
    }
    // A stronger hash than the settings is kept as it is.
    const kept = await hashOf('Faible');
    expect((await login('Faible')).status).toBe(200);
    expect(await hashOf('Faible')).toBe(kept);
  });

  it('checkPassword gives a new hash only for a right password against an old or weaker hash', async () => {
    const old = await legacyScryptHash('pw', 1024);
    const right = await checkPassword('pw', old, CHEAP, undefined, { rehash: true });
    expect(right.ok).toBe(true);
    expect(right.rehash).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
    expect(await checkPassword('nope', old, CHEAP, undefined, { rehash: true })).toEqual({ ok: false });
    const current = await hashPassword('pw', CHEAP);
    expect(await checkPassword('pw', current, CHEAP, undefined, { rehash: true })).toEqual({ ok: true });
    expect(await checkPassword('pw', null, CHEAP, undefined, { rehash: true })).toEqual({ ok: false });
  });
});

describe('api.players_login_finish stores the new hash by compare-and-set', () => {
  const ctx = () => JSON.stringify({ key, base_url: 'http://test', client_ip: '198.51.100.9' });
  const start = async (pseudo: string) =>
    (await app.sql('select api.players_login_start($1::jsonb, $2::jsonb) as r', [ctx(), JSON.stringify({ identifiant: pseudo })]))[0]!.r;
  const finish = async (body: Record<string, unknown>) =>
    (await app.sql('select api.players_login_finish($1::jsonb, $2::jsonb) as r', [ctx(), JSON.stringify(body)]))[0]!.r;
  const token = () => `pt_${randomBytes(32).toString('base64url')}`;

  it('a password changed between the check and the finishing call is not overwritten', async () => {
    await api.register('Concurrent');
    const old = await legacyScryptHash(PASSWORD, 1024);
    await app.sql('update manette.players set password_hash = $1 where pseudo = $2', [old, 'Concurrent']);
    const s = await start('Concurrent');
    expect(s.password_hash).toBe(old);
    // Meanwhile the password changes (another login's re-hash, an admin, a reset).
    const changed = await hashPassword('nouveau-mot-de-passe', CHEAP);
    await app.sql('update manette.players set password_hash = $1 where pseudo = $2', [changed, 'Concurrent']);
    const rehash = await hashPassword(PASSWORD, CHEAP);
    const r = await finish({ attempt_id: s.attempt_id, succeeded: true, token: token(), new_password_hash: rehash, verified_password_hash: old });
    expect(r.token).toBeDefined(); // the login itself succeeded (its check was right when made)
    expect(await hashOf('Concurrent')).toBe(changed);
  });

  it('stores it when the hash is still the verified one; never on a failed attempt, never a non-argon2id string', async () => {
    await api.register('Cas');
    const old = await legacyScryptHash(PASSWORD, 1024);
    await app.sql('update manette.players set password_hash = $1 where pseudo = $2', [old, 'Cas']);
    const rehash = await hashPassword(PASSWORD, CHEAP);

    const failed = await start('Cas');
    expect(await finish({ attempt_id: failed.attempt_id, succeeded: false, token: token(), new_password_hash: rehash, verified_password_hash: old }))
      .toMatchObject({ error: 'invalid_credentials' });
    const notArgon = await start('Cas');
    await finish({ attempt_id: notArgon.attempt_id, succeeded: true, token: token(), new_password_hash: 'plaintext', verified_password_hash: old });
    expect(await hashOf('Cas')).toBe(old);

    const ok = await start('Cas');
    await finish({ attempt_id: ok.attempt_id, succeeded: true, token: token(), new_password_hash: rehash, verified_password_hash: old });
    expect(await hashOf('Cas')).toBe(rehash);
  });
});

describe('the WebAssembly implementation serves the façade too', () => {
  it('register and login with MANETTE_PASSWORD_HASHER=wasm (worker threads on Node)', async () => {
    const wasm = await startTestApp({ MANETTE_PASSWORD_HASHER: 'wasm', MANETTE_ARGON2_MEMORY_KIB: '4096' }, app.databaseUrl);
    try {
      const c = client(wasm.baseUrl, key);
      await c.register('Wasm');
      expect(await hashOf('Wasm')).toMatch(/^\$argon2id\$v=19\$m=4096,t=1,p=1\$/);
      expect((await c.post('/players/login', { identifiant: 'Wasm', password: PASSWORD })).status).toBe(200);
      // The native side reads what the WebAssembly side wrote.
      expect((await login('Wasm')).status).toBe(200);
    } finally {
      await wasm.close();
    }
  });

  it('passwordCost reads the settings', async () => {
    const { readSettings } = await import('../api/config/settings.js');
    expect(passwordCost(readSettings({ MANETTE_ARGON2_MEMORY_KIB: '4096', MANETTE_ARGON2_ITERATIONS: '3', MANETTE_PASSWORD_HASHER: 'wasm' })))
      .toEqual({ memoryKiB: 4096, iterations: 3, hasher: 'wasm' });
    expect(() => readSettings({ MANETTE_ARGON2_MEMORY_KIB: '512' })).toThrow(/MANETTE_ARGON2_MEMORY_KIB/);
  });
});
