// File storage (docs/storage-shop-panel.md), over real HTTP: every endpoint, every error and
// upload reason, and the two races (quota, same name).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, minimalGame, startTestApp, type TestApp } from './support/harness.js';

let app: TestApp;
let api: ReturnType<typeof client>;
let apiB: ReturnType<typeof client>;
let small: ReturnType<typeof client>;
let keyA: string;
let alice: string;
let amir: string;
let bruno: string;

const text = (nom: string, contenu: string, extra: Record<string, unknown> = {}) =>
  ({ nom, contenu, mime_type: 'text/plain', ...extra });

beforeAll(async () => {
  app = await startTestApp();
  keyA = await app.applyGame(minimalGame('stockage-a'));
  const keyB = await app.applyGame(minimalGame('stockage-b'));
  const keySmall = await app.applyGame(minimalGame('stockage-petit', { stockage: { taille_max_fichier: 300, quota_joueur: 1000 } }));
  api = client(app.baseUrl, keyA);
  apiB = client(app.baseUrl, keyB);
  small = client(app.baseUrl, keySmall);
  alice = (await api.register('Alice')).token;
  amir = (await api.register('Amir')).token;
  bruno = (await apiB.register('Bruno')).token;
});
afterAll(async () => { await app?.close(); });

async function storedFiles(pseudo: string) {
  return app.sql<{ name: string; content: string; mime_type: string }>(
    `select f.name, f.content, f.mime_type from manette.files f join manette.players p on p.id = f.player_id
     where p.pseudo = $1 order by f.name collate "C"`, [pseudo]);
}

function expectUploadFailed(r: { status: number; body: any }, status: number, reason: string) {
  expect({ status: r.status, error: r.body.error, reason: r.body.reason }).toEqual({ status, error: 'upload_failed', reason });
  expect(r.body.ok).toBe(false);
  expect(typeof r.body.message).toBe('string');
  expect(r.body.details).toBeUndefined();
}

describe('POST /storage/upload', () => {
  it('creates a file (201) and answers {fichier: {nom, mime_type, taille, cree_le, maj_le}}', async () => {
    const r = await api.post('/storage/upload', { nom: 'sauvegarde.json', contenu: '{"niveau": 3, "nom": "Élodie"}', mime_type: 'application/json' }, { token: alice });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual(['data', 'ok']);
    expect(r.body.ok).toBe(true);
    expect(Object.keys(r.body.data)).toEqual(['fichier']);
    const f = r.body.data.fichier;
    expect(Object.keys(f).sort()).toEqual(['cree_le', 'maj_le', 'mime_type', 'nom', 'taille']);
    expect(f).toMatchObject({ nom: 'sauvegarde.json', mime_type: 'application/json', taille: Buffer.byteLength('{"niveau": 3, "nom": "Élodie"}') });
    expect(f.taille).toBe(31); // 30 characters, É is two bytes
    expect(f.cree_le).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(f.maj_le).toBe(f.cree_le);
  });

  it('overwrites with ecraser: true (200), keeping cree_le', async () => {
    const first = await api.post('/storage/upload', text('notes.txt', 'v1'), { token: alice });
    expect(first.status).toBe(201);
    await new Promise((r) => setTimeout(r, 5));
    const second = await api.post('/storage/upload', text('notes.txt', 'version 2', { ecraser: true, mime_type: 'text/markdown' }), { token: alice });
    expect(second.status).toBe(200);
    expect(second.body).toEqual({ ok: true, data: { fichier: expect.objectContaining({ nom: 'notes.txt', mime_type: 'text/markdown', taille: 9 }) } });
    expect(second.body.data.fichier.cree_le).toBe(first.body.data.fichier.cree_le);
    expect(Date.parse(second.body.data.fichier.maj_le)).toBeGreaterThan(Date.parse(first.body.data.fichier.maj_le));
    expect((await storedFiles('Alice')).find((f) => f.name === 'notes.txt')?.content).toBe('version 2');
  });

  it('ecraser: true on a new name creates it (201)', async () => {
    const r = await api.post('/storage/upload', text('neuf.txt', 'x', { ecraser: true }), { token: alice });
    expect(r.status).toBe(201);
  });

  it('fichier_existe (409) when the name exists and ecraser is absent or false; nothing changes', async () => {
    await api.post('/storage/upload', text('unique.txt', 'original'), { token: alice });
    expectUploadFailed(await api.post('/storage/upload', text('unique.txt', 'autre'), { token: alice }), 409, 'fichier_existe');
    expectUploadFailed(await api.post('/storage/upload', text('unique.txt', 'autre', { ecraser: false }), { token: alice }), 409, 'fichier_existe');
    expect((await storedFiles('Alice')).find((f) => f.name === 'unique.txt')?.content).toBe('original');
  });

  it('names are unique per player, compared exactly', async () => {
    expect((await api.post('/storage/upload', text('unique.txt', 'à Amir'), { token: amir })).status).toBe(201);
    expect((await api.post('/storage/upload', text('UNIQUE.txt', 'casse'), { token: alice })).status).toBe(201);
    expect((await apiB.post('/storage/upload', text('unique.txt', 'jeu B'), { token: bruno })).status).toBe(201);
  });

  it('accepts any text/* and application/json, stores the mime type lower-cased without parameters', async () => {
    for (const [nom, mime_type, stored] of [
      ['a.csv', 'text/csv', 'text/csv'], ['a.html', 'TEXT/HTML', 'text/html'],
      ['a.json', 'application/json; charset=utf-8', 'application/json'], ['a.yaml', 'text/x-yaml', 'text/x-yaml'],
    ]) {
      const r = await api.post('/storage/upload', { nom, contenu: '1', mime_type }, { token: amir });
      expect(r.status, nom).toBe(201);
      expect(r.body.data.fichier.mime_type).toBe(stored);
    }
  });

  it.each([
    ['nom missing', { contenu: 'x', mime_type: 'text/plain' }],
    ['contenu missing', { nom: 'x.txt', mime_type: 'text/plain' }],
    ['mime_type missing', { nom: 'x.txt', contenu: 'x' }],
    ['nom not a string', { nom: 42, contenu: 'x', mime_type: 'text/plain' }],
    ['contenu an object', { nom: 'x.json', contenu: { a: 1 }, mime_type: 'application/json' }],
    ['mime_type null', { nom: 'x.txt', contenu: 'x', mime_type: null }],
    ['ecraser a string', { nom: 'x.txt', contenu: 'x', mime_type: 'text/plain', ecraser: 'true' }],
    ['ecraser null', { nom: 'x.txt', contenu: 'x', mime_type: 'text/plain', ecraser: null }],
    ['body an array', [{ nom: 'x.txt', contenu: 'x', mime_type: 'text/plain' }]],
    ['body empty', {}],
    ['contenu with U+0000', { nom: 'x.txt', contenu: 'a\u0000b', mime_type: 'text/plain' }],
    ['contenu with a lone surrogate', { nom: 'x.txt', contenu: 'a\uD800b', mime_type: 'text/plain' }],
  ])('champ_invalide (400), never validation_failed: %s', async (_label, body) => {
    expectUploadFailed(await api.post('/storage/upload', body, { token: amir }), 400, 'champ_invalide');
  });

  it('champ_invalide names the field at fault in its message, in the player\'s language', async () => {
    const fr = await api.post('/storage/upload', { nom: 'x.txt', contenu: 'x' }, { token: amir });
    expectUploadFailed(fr, 400, 'champ_invalide');
    expect(fr.body.message).toBe('Champ manquant ou invalide : mime_type.');
    const en = await api.post('/storage/upload', { nom: 'x.txt', contenu: 'x', mime_type: 'text/plain', ecraser: 'oui' },
      { token: amir, headers: { 'accept-language': 'en' } });
    expect(en.body.message).toBe('Missing or invalid field: ecraser.');
  });

  it('champ_invalide for a POST without a body', async () => {
    expectUploadFailed(await api.request('POST', '/storage/upload', { token: amir }), 400, 'champ_invalide');
  });

  it.each([
    ['empty', ''],
    ['256 characters', 'n'.repeat(256)],
    ['a slash', 'dossier/fichier.txt'],
    ['a backslash', 'dossier\\fichier.txt'],
    ['..', '..'],
    ['.. inside', 'a..b.txt'],
    ['a tab', 'a\tb'],
    ['a newline', 'a\nb'],
    ['U+0000', 'a\u0000b'],
    ['DEL', 'a\u007fb'],
    ['a C1 control', 'a\u0085b'],
    ['a lone surrogate', 'a\uDC00b'],
  ])('nom_invalide (400): %s', async (_label, nom) => {
    expectUploadFailed(await api.post('/storage/upload', text(nom, 'x'), { token: amir }), 400, 'nom_invalide');
  });

  it('accepts 255 characters, spaces, dots and any Unicode in a name', async () => {
    for (const nom of ['é'.repeat(255), 'partie 1 (copie).v2.txt', '存档 🎮.txt', '.cache']) {
      const r = await api.post('/storage/upload', text(nom, 'x'), { token: amir });
      expect(r.status, nom).toBe(201);
      expect(r.body.data.fichier.nom).toBe(nom);
    }
  });

  it.each(['image/png', 'application/xml', 'application/octet-stream', 'text', 'text/', '', 'application/json5', 'tèxt/plain'])(
    'type_non_autorise (415): %j', async (mime_type) => {
      expectUploadFailed(await api.post('/storage/upload', { nom: 'x.bin', contenu: 'x', mime_type }, { token: amir }), 415, 'type_non_autorise');
    });

  it.each(['{', '', '{"a": 1,}', 'undefined', "{'a': 1}", '{"a": 1} {"b": 2}'])(
    'json_invalide (400) for application/json content %j', async (contenu) => {
      expectUploadFailed(await api.post('/storage/upload', { nom: 'x.json', contenu, mime_type: 'application/json' }, { token: amir }), 400, 'json_invalide');
    });

  it('parses any JSON value for application/json, and never parses text/*', async () => {
    expect((await api.post('/storage/upload', { nom: 'scalaire.json', contenu: ' 42 ', mime_type: 'application/json' }, { token: amir })).status).toBe(201);
    expect((await api.post('/storage/upload', { nom: 'pas-json.txt', contenu: '{', mime_type: 'text/plain' }, { token: amir })).status).toBe(201);
  });

  it('checks reasons in order: champ, nom, type, json', async () => {
    expectUploadFailed(await api.post('/storage/upload', { nom: 'a/b', contenu: 1, mime_type: 'image/png' }, { token: amir }), 400, 'champ_invalide');
    expectUploadFailed(await api.post('/storage/upload', { nom: 'a/b', contenu: '{', mime_type: 'image/png' }, { token: amir }), 400, 'nom_invalide');
    expectUploadFailed(await api.post('/storage/upload', { nom: 'ok', contenu: '{', mime_type: 'image/png' }, { token: amir }), 415, 'type_non_autorise');
  });

  it('trop_volumineux (413) over 1 MiB of UTF-8 content by default', async () => {
    const exact = await api.post('/storage/upload', text('1mio.txt', 'a'.repeat(1024 * 1024)), { token: alice });
    expect(exact.status).toBe(201);
    expect(exact.body.data.fichier.taille).toBe(1024 * 1024);
    expectUploadFailed(await api.post('/storage/upload', text('trop.txt', 'a'.repeat(1024 * 1024 + 1)), { token: alice }), 413, 'trop_volumineux');
    // 524 289 characters, but 1 048 578 bytes.
    expectUploadFailed(await api.post('/storage/upload', text('trop.txt', 'é'.repeat(512 * 1024 + 1)), { token: alice }), 413, 'trop_volumineux');
    expect((await storedFiles('Alice')).some((f) => f.name === 'trop.txt')).toBe(false);
  });

  it('trop_volumineux follows the game setting stockage.taille_max_fichier', async () => {
    const { token } = await small.register('Petit');
    expect((await small.post('/storage/upload', text('a', 'a'.repeat(300)), { token })).status).toBe(201);
    expectUploadFailed(await small.post('/storage/upload', text('b', 'a'.repeat(301)), { token }), 413, 'trop_volumineux');
    expectUploadFailed(await small.post('/storage/upload', text('a', 'a'.repeat(301), { ecraser: true }), { token }), 413, 'trop_volumineux');
  });

  it('quota_depasse (413) when the player total would pass stockage.quota_joueur; overwrite counts the new size; delete frees space', async () => {
    const { token } = await small.register('Quota');
    for (const nom of ['q1', 'q2', 'q3']) {
      expect((await small.post('/storage/upload', text(nom, 'a'.repeat(300)), { token })).status).toBe(201);
    }
    expectUploadFailed(await small.post('/storage/upload', text('q4', 'a'.repeat(101)), { token }), 413, 'quota_depasse');
    expect((await small.post('/storage/upload', text('q4', 'a'.repeat(100)), { token })).status).toBe(201); // exactly 1000
    expect((await small.post('/storage/upload', text('q1', 'b'.repeat(300), { ecraser: true }), { token })).status).toBe(200);
    expectUploadFailed(await small.post('/storage/upload', text('q4', 'b'.repeat(101), { ecraser: true }), { token }), 413, 'quota_depasse');
    expect((await small.get('/storage/files/q4', { token })).body.data.contenu).toBe('a'.repeat(100));
    expect((await small.request('DELETE', '/storage/files/q2', { token })).status).toBe(200);
    expect((await small.post('/storage/upload', text('q5', 'a'.repeat(300)), { token })).status).toBe(201);
    // Another player of the same game has a quota of their own.
    const other = await small.register('Autre');
    expect((await small.post('/storage/upload', text('q1', 'a'.repeat(300)), { token: other.token })).status).toBe(201);
  });

  it('quota_depasse at the default 10 MiB per player', async () => {
    const { token } = await api.register('Gros');
    const mib = 'a'.repeat(1024 * 1024);
    for (let i = 0; i < 10; i++) {
      expect((await api.post('/storage/upload', text(`m${i}`, mib), { token })).status).toBe(201);
    }
    expectUploadFailed(await api.post('/storage/upload', text('un-octet', 'a'), { token }), 413, 'quota_depasse');
  });

  it('gives the reason in French by default and in English on request', async () => {
    const fr = await api.post('/storage/upload', text('a/b', 'x'), { token: amir });
    expect(fr.body.message).toBe('Nom de fichier invalide.');
    const en = await api.post('/storage/upload', text('unique.txt', 'x'), { token: amir, headers: { 'accept-language': 'en' } });
    expect(en.body).toMatchObject({ error: 'upload_failed', reason: 'fichier_existe', message: 'A file with this name already exists.' });
  });

  it('keeps the envelope errors: invalid_json, unsupported_media_type, payload_too_large', async () => {
    const bad = await api.request('POST', '/storage/upload', { token: amir, raw: '{"nom": ', headers: { 'content-type': 'application/json' } });
    expect([bad.status, bad.body.error]).toEqual([400, 'invalid_json']);
    const form = await api.request('POST', '/storage/upload', { token: amir, raw: 'nom=x', headers: { 'content-type': 'text/plain' } });
    expect([form.status, form.body.error]).toEqual([415, 'unsupported_media_type']);
    const huge = await api.post('/storage/upload', text('huge.txt', 'a'.repeat(2 * 1024 * 1024 + 1)), { token: amir });
    expect([huge.status, huge.body.error]).toEqual([413, 'payload_too_large']);
  });
});

describe('GET /storage/files, GET and DELETE /storage/files/:nom', () => {
  let token: string;
  beforeAll(async () => {
    token = (await api.register('Lecteur')).token;
    for (const [nom, contenu] of [['b.txt', 'bbb'], ['c.json', '{"x": [1, 2]}'], ['Z majuscule.txt', 'z'], ['é accent.txt', 'é']] as const) {
      await api.post('/storage/upload', { nom, contenu, mime_type: nom.endsWith('.json') ? 'application/json' : 'text/plain' }, { token });
    }
  });

  it('lists the player\'s files by name (code point order), without contents', async () => {
    const r = await api.get('/storage/files', { token });
    expect(r.status).toBe(200);
    expect(r.body.data.map((f: { nom: string }) => f.nom)).toEqual(['Z majuscule.txt', 'b.txt', 'c.json', 'é accent.txt']);
    expect(r.body.data[0]).toEqual({ nom: 'Z majuscule.txt', mime_type: 'text/plain', taille: 1, cree_le: expect.any(String), maj_le: expect.any(String) });
  });

  it('lists nothing for a player without files', async () => {
    const { token: empty } = await api.register('Vide');
    expect((await api.get('/storage/files', { token: empty })).body).toEqual({ ok: true, data: [] });
  });

  it('reads a file with its content', async () => {
    const r = await api.get(`/storage/files/${encodeURIComponent('c.json')}`, { token });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      ok: true,
      data: { fichier: { nom: 'c.json', mime_type: 'application/json', taille: 13, cree_le: expect.any(String), maj_le: expect.any(String) }, contenu: '{"x": [1, 2]}' },
    });
    const accent = await api.get(`/storage/files/${encodeURIComponent('é accent.txt')}`, { token });
    expect(accent.body.data).toMatchObject({ fichier: { nom: 'é accent.txt', taille: 2 }, contenu: 'é' });
  });

  it('deletes a file and returns it', async () => {
    const r = await api.request('DELETE', `/storage/files/${encodeURIComponent('b.txt')}`, { token });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ok: true, data: { fichier: expect.objectContaining({ nom: 'b.txt', taille: 3 }) } });
    expect((await api.get('/storage/files/b.txt', { token })).status).toBe(404);
    expect((await storedFiles('Lecteur')).map((f) => f.name)).not.toContain('b.txt');
  });

  it('file_not_found (404) for a missing file, on read and delete', async () => {
    for (const r of [
      await api.get('/storage/files/absent.txt', { token }),
      await api.request('DELETE', '/storage/files/absent.txt', { token }),
      await api.get(`/storage/files/${encodeURIComponent('a\u0000b')}`, { token }),
      await api.get(`/storage/files/${encodeURIComponent('a..b')}`, { token }),
      await api.get(`/storage/files/${encodeURIComponent('C.JSON')}`, { token }),
      await api.get('/storage/files/dossier%2Fc.json', { token }),
    ]) {
      expect([r.status, r.body.error]).toEqual([404, 'file_not_found']);
    }
  });

  it('a player never sees, reads or deletes another player\'s files, in this game or another', async () => {
    const mine = await api.get('/storage/files', { token: amir });
    expect(mine.body.data.map((f: { nom: string }) => f.nom)).not.toContain('c.json');
    expect((await api.get('/storage/files/c.json', { token: amir })).body.error).toBe('file_not_found');
    expect((await api.request('DELETE', '/storage/files/c.json', { token: amir })).body.error).toBe('file_not_found');
    expect((await apiB.get('/storage/files/c.json', { token: bruno })).body.error).toBe('file_not_found');
    expect((await apiB.get('/storage/files', { token: bruno })).body.data.map((f: { nom: string }) => f.nom)).toEqual(['unique.txt']);
    expect((await api.get('/storage/files/c.json', { token })).status).toBe(200);
  });
});

describe('authentication of the storage endpoints', () => {
  const calls: [string, string, unknown?][] = [
    ['POST', '/storage/upload', { nom: 'x.txt', contenu: 'x', mime_type: 'text/plain' }],
    ['GET', '/storage/files'],
    ['GET', '/storage/files/x.txt'],
    ['DELETE', '/storage/files/x.txt'],
  ];

  it.each(calls)('%s %s: missing_key, missing_player, invalid_token, token of another game', async (method, path, body) => {
    const noKey = await api.request(method, path, { body, key: null, token: alice });
    expect([noKey.status, noKey.body.error]).toEqual([401, 'missing_key']);
    const noToken = await api.request(method, path, { body });
    expect([noToken.status, noToken.body.error]).toEqual([401, 'missing_player']);
    const unknown = await api.request(method, path, { body, token: `pt_${'x'.repeat(43)}` });
    expect([unknown.status, unknown.body.error]).toEqual([401, 'invalid_token']);
    const otherGame = await apiB.request(method, path, { body, token: alice });
    expect([otherGame.status, otherGame.body.error]).toEqual([401, 'invalid_token']);
    const badKey = await api.request(method, path, { body, key: `sk_live_${'Z'.repeat(32)}`, token: alice });
    expect([badKey.status, badKey.body.error]).toEqual([401, 'invalid_key']);
  });
});

describe('concurrency', () => {
  it('concurrent uploads by one player never pass the quota', async () => {
    for (let round = 0; round < 3; round++) {
      const { token } = await small.register(`Course${round}`);
      // Quota 1000, files of 300: three fit, whatever the interleaving.
      const replies = await Promise.all(Array.from({ length: 12 }, (_, i) =>
        small.post('/storage/upload', text(`f${i}`, 'a'.repeat(300)), { token })));
      const statuses = replies.map((r) => r.status).sort();
      expect(statuses.filter((s) => s === 201)).toHaveLength(3);
      expect(replies.filter((r) => r.status !== 201).every((r) => r.status === 413 && r.body.reason === 'quota_depasse')).toBe(true);
      const [total] = await app.sql<{ n: number }>(
        `select sum(f.size)::int as n from manette.files f join manette.players p on p.id = f.player_id where p.pseudo = $1`, [`Course${round}`]);
      expect(total!.n).toBe(900);
    }
  });

  it('concurrent overwrites that grow files never pass the quota', async () => {
    const { token } = await small.register('Grossit');
    for (let i = 0; i < 5; i++) await small.post('/storage/upload', text(`g${i}`, 'a'.repeat(100)), { token });
    // 500 used; each overwrite to 300 adds 200: two of the five fit (900).
    const replies = await Promise.all(Array.from({ length: 5 }, (_, i) =>
      small.post('/storage/upload', text(`g${i}`, 'b'.repeat(300), { ecraser: true }), { token })));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(2);
    expect(replies.filter((r) => r.status === 413 && r.body.reason === 'quota_depasse')).toHaveLength(3);
  });

  it('two simultaneous uploads of one name without ecraser: exactly one 201, the other fichier_existe', async () => {
    const { token } = await api.register('Jumeaux');
    for (let round = 0; round < 10; round++) {
      const nom = `meme-nom-${round}.txt`;
      const [a, b] = await Promise.all([
        api.post('/storage/upload', text(nom, 'premier'), { token }),
        api.post('/storage/upload', text(nom, 'second'), { token }),
      ]);
      expect([a!.status, b!.status].sort()).toEqual([201, 409]);
      const loser = a!.status === 409 ? a! : b!;
      const winner = a!.status === 201 ? a! : b!;
      expect(loser.body).toMatchObject({ error: 'upload_failed', reason: 'fichier_existe' });
      const [stored] = (await storedFiles('Jumeaux')).filter((f) => f.name === nom);
      expect(stored!.content).toBe(winner === a ? 'premier' : 'second');
    }
  });

  it('many simultaneous uploads of one name: one 201, all others fichier_existe', async () => {
    const { token } = await api.register('Foule');
    for (let round = 0; round < 5; round++) {
      const replies = await Promise.all(Array.from({ length: 10 }, (_, i) =>
        api.post('/storage/upload', text(`foule-${round}.txt`, `essai ${i}`), { token })));
      expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
      expect(replies.filter((r) => r.status === 409 && r.body.reason === 'fichier_existe')).toHaveLength(9);
    }
  });
});

describe('OpenAPI', () => {
  it('documents the storage routes', async () => {
    const doc = (await api.get('/openapi.json')).body;
    for (const p of ['/storage/upload', '/storage/files', '/storage/files/{nom}']) expect(doc.paths[p], p).toBeDefined();
    expect(doc.paths['/storage/files/{nom}'].delete).toBeDefined();
  });
});
