// Hostile input and faults (docs/api.md) at the edge, over real HTTP and real
// sockets: U+0000, deep JSON, compressed bodies, what Node's parser rejects, slow clients,
// connections per address, made-up keys, TRUST_PROXY, dual-stack listening, and a frozen
// database (SIGSTOP) answered 503 within the deadline.
import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, minimalGame, startTestApp, type TestApp } from './support/harness.js';
import { freePort } from './support/net.js';
import { createApiServer, listen } from '../api/http/node-server.js';
import { parseTrustProxy } from '../api/config/settings.js';
import { startEmbeddedPostgres } from '../twin/postgres/embedded.js';
import { migrate } from '../api/db/migrate.js';

let app: TestApp;
let api: ReturnType<typeof client>;
let key: string;
let player: { token: string };
const GAME = minimalGame('hostile', {
  tables: { notes: { colonnes: { texte: { type: 'text' } }, lecture: 'joueurs', ecriture: 'joueurs' } },
  modes: { duel: { equipes: 2, joueurs_par_equipe: 1, regles: 'libre' } },
});

beforeAll(async () => {
  app = await startTestApp({}, undefined, { limits: { headersTimeoutMs: 1_000, requestTimeoutMs: 2_000, maxConnectionsPerAddress: 40 } });
  key = await app.applyGame(GAME);
  api = client(app.baseUrl, key);
  player = await api.register('Hostile');
}, 60_000);
afterAll(async () => { await app?.close(); });

const envelope = (body: any, error: string) => expect(body).toEqual(expect.objectContaining({ ok: false, error, message: expect.any(String) }));

/** Writes raw bytes on a fresh connection; resolves with everything received until the server closes it. */
function raw(port: number, data: string | Buffer, opts: { keepOpenMs?: number } = {}): Promise<{ text: string; closedAfterMs: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1', () => { socket.write(data); });
    let text = '';
    socket.on('data', (d) => { text += d.toString(); });
    socket.on('close', () => resolve({ text, closedAfterMs: Date.now() - started }));
    socket.on('error', reject);
    setTimeout(() => { socket.destroy(); }, opts.keepOpenMs ?? 10_000).unref();
  });
}
const port = () => Number(new URL(app.baseUrl).port);
function parseResponse(text: string) {
  const [head, ...rest] = text.split('\r\n\r\n');
  return { status: Number(/^HTTP\/1\.1 (\d+)/.exec(head ?? '')?.[1]), head: head ?? '', body: JSON.parse(rest.join('\r\n\r\n')) };
}

describe('U+0000 is refused at the edge, once, like any other bad value', () => {
  it('in bodies: validation_failed naming the field, nothing written', async () => {
    const cases: Array<[string, unknown, string]> = [
      ['/tables/notes', { donnees: { texte: 'a\u0000b' } }, 'donnees.texte'],
      ['/players/login', { identifiant: 'ab\u0000c', password: 'x' }, 'identifiant'],
      ['/matchmaking/join', { mode_jeu: 'duel\u0000', elo_actuel: 1 }, 'mode_jeu'],
      ['/match/action', { partie_id: '\u0000', action: 'x' }, 'partie_id'],
      ['/match/action', { partie_id: 'x', action: 'x\u0000' }, 'action'],
      ['/match/action', { partie_id: 'x', action: 'x', donnees: { 'k\u0000': 1 } }, 'donnees.k\u0000'],
    ];
    for (const [url, body, field] of cases) {
      const r = await api.post(url, body, { token: player.token });
      expect(r.status, url).toBe(400);
      envelope(r.body, 'validation_failed');
      expect(r.body.details[0].champ, url).toBe(field);
    }
    expect(await app.sql('select count(*)::int as n from manette.table_rows')).toEqual([{ n: 0 }]);
  });

  it('in query strings and path segments: invalid_query, the route\'s not-found', async () => {
    const q = await api.get('/tables/notes?texte=%00', { token: player.token });
    expect(q.status).toBe(400);
    envelope(q.body, 'invalid_query');
    for (const [url, code] of [['/tables/no%00tes', 'table_not_found'], ['/tables/notes/a%00b', 'row_not_found'],
      ['/storage/files/a%00b', 'file_not_found'], ['/leaderboards/a%00b/scores', 'leaderboard_not_found']]) {
      const p = await api.get(url!, { token: player.token });
      expect(p.status, url).toBe(404);
      envelope(p.body, code!);
    }
  });
});

describe('bodies', () => {
  it('JSON nested deeper than 64 levels is invalid_json; 64 is parsed', async () => {
    const nest = (n: number) => '['.repeat(n) + ']'.repeat(n);
    for (const depth of [65, 5_000, 100_000]) {
      const r = await api.request('POST', '/tables/notes', { raw: `{"donnees": {"texte": ${nest(depth)}}}`, token: player.token, headers: { 'content-type': 'application/json' } });
      expect(r.status, `depth ${depth}`).toBe(400);
      envelope(r.body, 'invalid_json');
    }
    const ok = await api.request('POST', '/tables/notes', { raw: `{"donnees": {"texte": ${nest(62)}}}`, token: player.token, headers: { 'content-type': 'application/json' } });
    expect(ok.status).toBe(400);
    envelope(ok.body, 'validation_failed'); // parsed, then refused for its type
  });

  it('a Content-Encoding other than identity is unsupported_media_type, gzip included', async () => {
    for (const encoding of ['gzip', 'deflate', 'br', 'x-unknown']) {
      const r = await fetch(`${app.baseUrl}/tables/notes`, {
        method: 'POST', body: gzipSync(JSON.stringify({ donnees: { texte: 'x' } })),
        headers: { 'x-api-key': key, 'x-player-token': player.token, 'content-type': 'application/json', 'content-encoding': encoding },
      });
      expect(r.status, encoding).toBe(415);
      envelope(await r.json(), 'unsupported_media_type');
    }
    const identity = await api.post('/tables/notes', { donnees: { texte: 'x' } }, { token: player.token, headers: { 'content-encoding': 'identity' } });
    expect(identity.status).toBe(201);
  });
});

describe('what Node rejects before Express gets the envelope too, then the connection closes', () => {
  it('a bad method, a malformed request line, a bad header, headers over 16 KiB', async () => {
    const cases: Array<[string, number, string]> = [
      ['FROB /api/public/v1/shop/articles HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'bad_request'],
      ['GET not a request line\r\n\r\n', 400, 'bad_request'],
      ['GET / HTTP/1.1\r\nBad Header: x\r\n\r\n', 400, 'bad_request'],
      [`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\n\r\n`, 431, 'headers_too_large'],
    ];
    for (const [request, status, code] of cases) {
      const { text, closedAfterMs } = await raw(port(), request);
      const r = parseResponse(text);
      expect(r.status, request.slice(0, 30)).toBe(status);
      envelope(r.body, code);
      expect(r.head).toMatch(/content-type: application\/json/i);
      expect(closedAfterMs).toBeLessThan(5_000);
    }
  });

  it('slow clients are cut off with 408: headers not finished in time, body not finished in time', async () => {
    const slowHeaders = await raw(port(), 'GET /health HTTP/1.1\r\nHost: x\r\n');
    expect(parseResponse(slowHeaders.text).status).toBe(408);
    envelope(parseResponse(slowHeaders.text).body, 'request_timeout');
    expect(slowHeaders.closedAfterMs).toBeLessThan(4_000);
    const slowBody = await raw(port(), `POST /api/public/v1/tables/notes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\nx-api-key: ${key}\r\n\r\n{"te`);
    expect(slowBody.closedAfterMs).toBeLessThan(5_000);
    expect(slowBody.text === '' || parseResponse(slowBody.text).status === 408).toBe(true);
  });

  it('one address holds a bounded number of connections; the next ones get 429 and are closed', async () => {
    const sockets: net.Socket[] = [];
    try {
      for (let i = 0; i < 40; i++) {
        const s = net.connect(port(), '127.0.0.1');
        s.on('error', () => {});
        sockets.push(s);
        await new Promise((r) => s.once('connect', r));
      }
      const over = await raw(port(), '');
      const r = parseResponse(over.text);
      expect(r.status).toBe(429);
      envelope(r.body, 'too_many_connections');
      expect(r.head).toMatch(/retry-after: 1/i);
    } finally {
      for (const s of sockets) s.destroy();
    }
    await new Promise((r) => setTimeout(r, 200));
    expect((await fetch(`${app.baseUrl}/shop/articles`, { headers: { 'x-api-key': key } })).status).toBe(200);
  });
});

describe('rate limits before any database work', () => {
  it('made-up keys are limited per client address; a real key keeps its own bucket', async () => {
    const limited = await startTestApp({ MANETTE_RATE_LIMIT_RPS: '5', MANETTE_RATE_LIMIT_BURST: '10' }, app.databaseUrl);
    try {
      const statuses = await Promise.all(Array.from({ length: 60 }, (_, i) =>
        fetch(`${limited.baseUrl}/shop/articles`, { headers: { 'x-api-key': `sk_live_${String(i).padStart(40, 'Z')}` } }).then((r) => r.status)));
      // Without a per-address limit, 60 different keys would be 60 lookups (60 × 401).
      expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(30);
      expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(30);
      const real = await fetch(`${limited.baseUrl}/shop/articles`, { headers: { 'x-api-key': key } });
      expect(real.status).toBe(429); // first sight of this key: charged to the exhausted address bucket
      await new Promise((r) => setTimeout(r, 2_100));
      expect((await fetch(`${limited.baseUrl}/shop/articles`, { headers: { 'x-api-key': key } })).status).toBe(200);
      // Now known: made-up keys exhausting the address again do not stop it.
      await Promise.all(Array.from({ length: 30 }, (_, i) =>
        fetch(`${limited.baseUrl}/shop/articles`, { headers: { 'x-api-key': `sk_live_${String(i).padStart(40, 'Y')}` } })));
      expect((await fetch(`${limited.baseUrl}/shop/articles`, { headers: { 'x-api-key': key } })).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('TRUST_PROXY: parsed (hop count, true, lists), and behind a proxy each client gets its own bucket', async () => {
    expect([undefined, '', 'false', 'true', '1', '2', 'loopback, 10.0.0.0/8'].map(parseTrustProxy))
      .toEqual([false, false, false, true, 1, 2, ['loopback', '10.0.0.0/8']]);
    const burst = async (baseUrl: string, forwardedFor: string) => {
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) statuses.push((await fetch(`${baseUrl}/shop/articles`, { headers: { 'x-api-key': key, 'x-forwarded-for': forwardedFor } })).status);
      return statuses;
    };
    const proxied = await startTestApp({ MANETTE_RATE_LIMIT_RPS: '5', MANETTE_RATE_LIMIT_BURST: '5', TRUST_PROXY: '1' }, app.databaseUrl);
    const direct = await startTestApp({ MANETTE_RATE_LIMIT_RPS: '5', MANETTE_RATE_LIMIT_BURST: '5' }, app.databaseUrl);
    try {
      expect((await burst(proxied.baseUrl, '203.0.113.1')).filter((s) => s === 429).length).toBeGreaterThan(0);
      expect((await burst(proxied.baseUrl, '203.0.113.2'))[0]).toBe(200); // another client behind the proxy
      expect((await burst(direct.baseUrl, '203.0.113.3')).filter((s) => s === 429).length).toBeGreaterThan(0);
      expect((await burst(direct.baseUrl, '203.0.113.4'))[0]).toBe(429); // not trusted: the same (proxy) address
    } finally {
      await proxied.close();
      await direct.close();
    }
  });
});

describe('password hashing is bounded', () => {
  it('a login flood at a high cost: refused at once with 503 past ~2 s of queued hashes; other requests are not slowed', async () => {
    // 64 MiB × 16 passes: about 0.4 s a hash natively (1.6 s in WebAssembly), like the scrypt
    // of before, so that 40 logins are far more than 2 s of hashing (OWASP's cost, ~10 ms,
    // would need hundreds) and fewer than the 10 attempts of one identifier and address
    // that may be under way at once (more would be too_many_attempts, not 503) are admitted.
    const real = await startTestApp({ MANETTE_ARGON2_MEMORY_KIB: '65536', MANETTE_ARGON2_ITERATIONS: '16' }, app.databaseUrl);
    try {
      const c = client(real.baseUrl, key);
      const other = client(real.baseUrl, await real.applyGame(minimalGame('hostile-other')));
      await c.register('Flood', { password: 'motdepasse-solide' });
      const started = Date.now();
      const logins = Array.from({ length: 40 }, () => c.post('/players/login', { identifiant: 'Flood', password: 'motdepasse-solide' })
        .then((r) => ({ ...r, after: Date.now() - started })));
      await new Promise((r) => setTimeout(r, 100));
      const meanwhile = await other.get('/shop/articles');
      const meanwhileAt = Date.now() - started;
      const replies = await Promise.all(logins);
      const refused = replies.filter((r) => r.status === 503);
      const accepted = replies.filter((r) => r.status === 200);
      expect(refused.length + accepted.length).toBe(40);
      expect(refused.length).toBeGreaterThan(20);
      expect(accepted.length).toBeGreaterThan(0);
      // Orders, not durations (this machine's speed varies): a refusal comes before any
      // admitted login has finished its hash (at once, not after waiting its turn), and the
      // other game's request is answered while admitted hashes are still queued.
      const firstAccepted = Math.min(...accepted.map((r) => r.after));
      const lastAccepted = Math.max(...accepted.map((r) => r.after));
      for (const r of refused) {
        envelope(r.body, 'unavailable');
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(r.after).toBeLessThan(firstAccepted);
      }
      expect(meanwhile.status).toBe(200);
      expect(meanwhileAt).toBeLessThan(lastAccepted);
      // The refused ones were not counted as failed attempts: the player can still log in.
      expect((await c.post('/players/login', { identifiant: 'Flood', password: 'motdepasse-solide' })).status).toBe(200);
    } finally {
      await real.close();
    }
  }, 60_000);
});

describe('listening', () => {
  it('dual-stack by default: reachable on ::1 and on 127.0.0.1', async () => {
    const server = createApiServer((_req, res) => { res.end('{"ok":true}'); });
    const host = await listen(server, 0, '::');
    try {
      const p = (server.address() as net.AddressInfo).port;
      const get = (h: string) => new Promise<number>((resolve, reject) => {
        http.get({ host: h, port: p, path: '/' }, (res) => { res.resume(); resolve(res.statusCode!); }).on('error', reject);
      });
      expect(await get('127.0.0.1')).toBe(200);
      if (host === '::') expect(await get('::1')).toBe(200);
    } finally {
      server.close();
    }
  });
});

describe('a frozen database', () => {
  it('every request is answered 503 unavailable with Retry-After within about 5 s, then the API recovers by itself', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'manette-frozen-'));
    await chmod(dir, 0o755);
    const pgDir = path.join(dir, 'pg');
    const server = await startEmbeddedPostgres({ dataDir: pgDir, port: await freePort(), persistent: false });
    let frozen: string[] = [];
    const signal = (sig: 'STOP' | 'CONT') => { for (const pid of frozen) try { process.kill(Number(pid), `SIG${sig}`); } catch { /* gone */ } };
    let frozenApp: TestApp | undefined;
    try {
      await migrate(server.url);
      frozenApp = await startTestApp({}, server.url);
      const k = await frozenApp.applyGame(minimalGame('frozen'));
      const c = client(frozenApp.baseUrl, k);
      const p = await c.register('Frozen');
      expect((await c.get('/players/me', { token: p.token })).status).toBe(200);

      const postmaster = (await readFile(path.join(pgDir, 'postmaster.pid'), 'utf8')).split('\n')[0]!.trim();
      frozen = [postmaster, ...execFileSync('pgrep', ['-P', postmaster]).toString().split('\n').filter(Boolean)];
      signal('STOP');
      const started = Date.now();
      const answers = await Promise.all([
        ...Array.from({ length: 8 }, () => c.get('/players/me', { token: p.token })),
        c.post('/players/register', { pseudo: 'Gel', email: 'gel@x.test', password: 'motdepasse-solide' }),
        fetch(`${frozenApp.baseUrl.replace('/api/public/v1', '')}/health`).then(async (r) => ({ status: r.status, body: await r.json(), headers: r.headers })),
      ]);
      const elapsed = Date.now() - started;
      for (const a of answers) {
        expect(a.status).toBe(503);
        envelope(a.body, 'unavailable');
        expect(a.headers.get('retry-after')).toBe('1');
      }
      expect(elapsed).toBeLessThan(9_000);
      signal('CONT');
      frozen = [];
      const deadline = Date.now() + 20_000;
      let me = await c.get('/players/me', { token: p.token });
      while (me.status !== 200 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 250));
        me = await c.get('/players/me', { token: p.token });
      }
      expect(me.status).toBe(200);
    } finally {
      signal('CONT');
      await frozenApp?.close();
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
