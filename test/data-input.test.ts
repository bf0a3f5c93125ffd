// Issue 19 (data and input), over real HTTP on a real Postgres twin: what a body or a
// query cannot hold (__proto__, 1e309, lone surrogates), a row id holding U+0000, login
// limits per account, file names and counts, nosniff, and a request without Host.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, EDGE, startTestApp, type TestApp } from './support/harness.js';
import { parseGameConfig } from '../api/config/game-config.js';

let app: TestApp;
let key: string;
let api: ReturnType<typeof client>;
let alice: { token: string; id: string };

const TABLES = {
  messages: {
    colonnes: { texte: { type: 'text' }, note: { type: 'number' }, meta: { type: 'json' } },
    lecture: 'joueurs', ecriture: 'joueurs',
  },
};

beforeAll(async () => {
  app = await startTestApp();
  key = await app.applyGame({ jeu: 'input', nom: 'Input', tables: TABLES, stockage: { fichiers_max: 5 } });
  api = client(app.baseUrl, key);
  const s = await api.register('alice');
  alice = { token: s.token, id: s.data.joueur.id };
});
afterAll(async () => { await app?.close(); });

const rows = async () => (await app.sql(`select r.data from manette.table_rows r join manette.data_tables t on t.id = r.table_id
  join manette.games g on g.id = t.game_id where g.slug = 'input' and t.name = 'messages' order by r.created_at`)).map((r) => r.data);

describe('__proto__, constructor and prototype', () => {
  it('in a query string: invalid_query whichever of the three, as constructor already was', async () => {
    for (const name of ['__proto__', 'constructor', 'prototype']) {
      const r = await api.get(`/tables/messages?${name}=x`, { token: alice.token });
      expect([r.status, r.body.error], name).toEqual([400, 'invalid_query']);
      expect(r.body.details?.[0]?.champ, name).toBe(name);
    }
  });

  it('no table column may have these names (they could not be filtered on)', () => {
    for (const name of ['__proto__', 'constructor', 'prototype']) {
      const parsed = parseGameConfig(JSON.parse(`{"jeu": "x", "nom": "X", "tables": {"t": {"colonnes": {"${name}": {"type": "text"}}, "lecture": "public", "ecriture": "joueurs"}}}`), 'en');
      expect(parsed.ok, name).toBe(false);
      if (!parsed.ok) expect(parsed.error, name).toMatch(/reserved name \(__proto__, constructor, prototype\)/);
    }
  });

  it('a __proto__ key inside donnees is validation_failed naming it, and nothing is written (French and English)', async () => {
    const before = (await rows()).length;
    const raw = '{"donnees": {"texte": "a", "__proto__": {"texte": "b"}}}';
    const r = await api.request('POST', '/tables/messages', { raw, token: alice.token, headers: { 'content-type': 'application/json' } });
    expect([r.status, r.body.error]).toEqual([400, 'validation_failed']);
    expect(r.body.details).toEqual([{ champ: 'donnees.__proto__', message: 'nom réservé (__proto__, constructor, prototype)' }]);
    const en = await api.request('POST', '/tables/messages', { raw: '{"donnees": {"meta": {"__proto__": 1}}}', token: alice.token,
      headers: { 'content-type': 'application/json', 'accept-language': 'en' } });
    expect(en.body.details).toEqual([{ champ: 'donnees.meta.__proto__', message: 'reserved name (__proto__, constructor, prototype)' }]);
    expect(await rows()).toHaveLength(before);
  });
});

describe('1e309 (JSON.parse gives Infinity)', () => {
  it('is validation_failed in a number column, on create and on update; the stored value is unchanged', async () => {
    const created = await api.post('/tables/messages', { donnees: { texte: 'x', note: 4.5 } }, { token: alice.token });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const json = { 'content-type': 'application/json' };
    const post = await api.request('POST', '/tables/messages', { raw: '{"donnees": {"note": 1e309}}', token: alice.token, headers: json });
    expect([post.status, post.body.error, post.body.details]).toEqual([400, 'validation_failed', [{ champ: 'donnees.note', message: 'nombre fini attendu' }]]);
    const patch = await api.request('PATCH', `/tables/messages/${id}`, { raw: '{"donnees": {"note": -1e309}}', token: alice.token, headers: json });
    expect([patch.status, patch.body.error, patch.body.details?.[0]?.champ]).toEqual([400, 'validation_failed', 'donnees.note']);
    expect((await api.get(`/tables/messages/${id}`, { token: alice.token })).body.data.donnees).toEqual({ texte: 'x', note: 4.5 });
  });
});

describe('lone surrogates in passwords', () => {
  it('register refuses one with validation_failed naming password; no account is created', async () => {
    const r = await api.post('/players/register', { pseudo: 'lone', email: 'lone@example.test', password: 'motdepasse-\ud800' });
    expect([r.status, r.body.error]).toEqual([400, 'validation_failed']);
    expect(r.body.details).toEqual([{ champ: 'password', message: 'texte Unicode invalide (demi-codet isolé)' }]);
    expect(await app.sql("select 1 from manette.players where pseudo = 'lone'")).toHaveLength(0);
  });

  it('login with a lone surrogate matches no account: validation_failed, even for an account whose password is U+FFFD in its place', async () => {
    await api.register('fffd', { password: 'motdepasse-\ufffd' });
    for (const password of ['motdepasse-\ud800', 'motdepasse-\udfff']) {
      const r = await api.post('/players/login', { identifiant: 'fffd', password }, { headers: { 'accept-language': 'en' } });
      expect([r.status, r.body.error, r.body.details]).toEqual([400, 'validation_failed',
        [{ champ: 'password', message: 'invalid Unicode text (lone surrogate)' }]]);
    }
    expect((await api.post('/players/login', { identifiant: 'fffd', password: 'motdepasse-\ufffd' })).status).toBe(200);
  });

  it('any other field too: details name it (they were empty)', async () => {
    const r = await api.post('/tables/messages', { donnees: { texte: 'a\udc00b' } }, { token: alice.token });
    expect([r.status, r.body.error, r.body.details]).toEqual([400, 'validation_failed',
      [{ champ: 'donnees.texte', message: 'texte Unicode invalide (demi-codet isolé)' }]]);
  });
});

describe('a row id holding U+0000', () => {
  it('is row_not_found in a table that exists (GET, PATCH, DELETE), table_not_found in one that does not', async () => {
    expect((await api.get('/tables/messages/%00', { token: alice.token })).body.error).toBe('row_not_found');
    expect((await api.request('PATCH', '/tables/messages/a%00b', { body: { donnees: { texte: 'y' } }, token: alice.token })).body.error)
      .toBe('row_not_found');
    expect((await api.request('DELETE', '/tables/messages/%00', { token: alice.token })).body.error).toBe('row_not_found');
    expect((await api.get('/tables/inconnue/%00', { token: alice.token })).body.error).toBe('table_not_found');
    expect((await api.get('/tables/mess%00ages/x', { token: alice.token })).body.error).toBe('table_not_found');
  });
});

describe('login limits count per account, whatever the identifier', () => {
  it('10 failures on the pseudo lock the e-mail too (and the other way round), from the same address', async () => {
    await api.register('Marc');
    for (let i = 0; i < 10; i++) {
      const via = i % 2 === 0 ? 'marc' : 'MARC';
      expect((await api.post('/players/login', { identifiant: via, password: 'mauvais-mdp' })).status).toBe(401);
    }
    for (const identifiant of ['marc@example.test', 'Marc@Example.Test', 'marc']) {
      const r = await api.post('/players/login', { identifiant, password: 'motdepasse-solide' });
      expect([r.status, r.body.error], identifiant).toEqual([429, 'too_many_attempts']);
    }
    expect((await api.post('/players/login', { email: 'marc@example.test', password: 'motdepasse-solide' })).status).toBe(429);
    // Another account is not affected.
    await api.register('Lea');
    expect((await api.post('/players/login', { identifiant: 'lea@example.test', password: 'motdepasse-solide' })).status).toBe(200);
  });

  it('concurrent guesses split between pseudo and e-mail: no more than 10 reach the password check', async () => {
    await api.register('Remi');
    const replies = await Promise.all(Array.from({ length: 30 }, (_, i) =>
      api.post('/players/login', { identifiant: i % 2 ? 'remi' : 'remi@example.test', password: 'mauvais-mdp' })));
    expect(replies.filter((r) => r.status === 401)).toHaveLength(10);
    expect(replies.filter((r) => r.status === 429)).toHaveLength(20);
  });
});

describe('files', () => {
  const upload = (nom: string, contenu = '', extra: Record<string, unknown> = {}) =>
    api.post('/storage/upload', { nom, contenu, mime_type: 'text/plain', ...extra }, { token: alice.token });

  it('names with bidirectional controls are refused (upload_failed, nom_invalide) and nothing is stored', async () => {
    for (const c of ['\u202e', '\u202a', '\u202b', '\u202c', '\u202d', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c']) {
      const r = await upload(`a${c}txt.exe`, 'x');
      expect([r.status, r.body.error, r.body.reason], `U+${c.codePointAt(0)!.toString(16)}`).toEqual([400, 'upload_failed', 'nom_invalide']);
    }
    expect((await api.get('/storage/files', { token: alice.token })).body.data).toEqual([]);
  });

  it('a player holds at most stockage.fichiers_max files, even empty ones and under 20 simultaneous uploads', async () => {
    const bob = await api.register('bob');
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) =>
      api.post('/storage/upload', { nom: `vide-${i}.txt`, contenu: '', mime_type: 'text/plain' }, { token: bob.token })));
    expect(replies.filter((r) => r.status === 201)).toHaveLength(5);
    const refused = replies.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(15);
    for (const r of refused) expect([r.status, r.body.error, r.body.reason]).toEqual([413, 'upload_failed', 'quota_depasse']);
    const files = (await api.get('/storage/files', { token: bob.token })).body.data as { nom: string }[];
    expect(files).toHaveLength(5);
    // Overwriting one of them is still allowed; deleting one makes room for another.
    const again = await api.post('/storage/upload', { nom: files[0]!.nom, contenu: 'plein', mime_type: 'text/plain', ecraser: true }, { token: bob.token });
    expect(again.status).toBe(200);
    expect((await api.request('DELETE', `/storage/files/${files[1]!.nom}`, { token: bob.token })).status).toBe(200);
    expect((await api.post('/storage/upload', { nom: 'nouveau.txt', contenu: '', mime_type: 'text/plain' }, { token: bob.token })).status).toBe(201);
  });

  it('GET /avatars/<id> and the API answers carry X-Content-Type-Options: nosniff', async () => {
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(100, 7)]);
    const r = await api.post('/players/avatar', { contenu: png.toString('base64'), mime_type: 'image/png' }, { token: alice.token });
    expect(r.status).toBe(200);
    const img = await fetch(r.body.data.joueur.avatar_url as string);
    expect(img.status).toBe(200);
    expect(img.headers.get('x-content-type-options')).toBe('nosniff');
    const other = new URL(r.body.data.joueur.avatar_url as string);
    other.pathname = other.pathname.replace(/[^/]+$/, '00000000-0000-4000-8000-000000000000');
    const missing = await fetch(other);
    expect([missing.status, missing.headers.get('x-content-type-options')]).toEqual([404, 'nosniff']);
    await upload('notes.txt', '<html><script>alert(1)</script>');
    const file = await api.get('/storage/files/notes.txt', { token: alice.token });
    expect([file.status, file.headers.get('x-content-type-options')]).toEqual([200, 'nosniff']);
  });
});

describe.skipIf(EDGE)('an HTTP/1.1 request without Host', () => {
  /** The raw answer of one request written on a socket. */
  const raw = (request: string) => new Promise<string>((resolve, reject) => {
    const { port, hostname } = new URL(app.baseUrl);
    const socket = net.connect(Number(port), hostname.replace(/^\[|\]$/g, ''));
    let data = '';
    socket.on('data', (d) => { data += d.toString('utf8'); });
    socket.on('end', () => resolve(data));
    socket.on('error', reject);
    socket.write(request);
  });

  it('gets 400 with the envelope (French by default, English on request), then the connection closes', async () => {
    const fr = await raw('GET /sante HTTP/1.1\r\n\r\n');
    expect(fr).toMatch(/^HTTP\/1\.1 400 /);
    const body = JSON.parse(fr.slice(fr.indexOf('\r\n\r\n') + 4));
    expect(body).toEqual({ ok: false, error: 'bad_request', message: 'Requête HTTP mal formée.' });
    const en = await raw('GET /api/public/v1/tables/messages HTTP/1.1\r\nAccept-Language: en\r\nx-api-key: x\r\n\r\n');
    expect(JSON.parse(en.slice(en.indexOf('\r\n\r\n') + 4))).toEqual({ ok: false, error: 'bad_request', message: 'Malformed HTTP request.' });
    // HTTP/1.0 needs no Host; HTTP/1.1 with one is served as usual.
    expect(await raw('GET /health HTTP/1.0\r\n\r\n')).toMatch(/^HTTP\/1\.1 200 /);
  });
});
