// The envelope and errors, CORS and limits (docs/api.md) across the façade.
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from './support/local-procs.js';
import { client, EDGE, freshDatabase, minimalGame, startTestApp, type TestApp } from './support/harness.js';

let app: TestApp;
let key: string;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  app = await startTestApp();
  key = await app.applyGame(minimalGame('http-jeu'));
  api = client(app.baseUrl, key);
});
afterAll(async () => { await app?.close(); });

const isErrorEnvelope = (body: any, error: string) => {
  expect(body).toMatchObject({ ok: false, error });
  expect(typeof body.message).toBe('string');
  expect(body.message.length).toBeGreaterThan(0);
};

describe('envelope', () => {
  it('unknown routes and wrong methods are JSON not_found', async () => {
    for (const [method, p] of [['GET', '/nope'], ['DELETE', '/players/register'], ['GET', '/players/login']] as const) {
      const r = await api.request(method, p);
      expect(r.status).toBe(404);
      expect(r.headers.get('content-type')).toMatch(/application\/json/);
      isErrorEnvelope(r.body, 'not_found');
    }
    const outside = await fetch(app.baseUrl.replace('/api/public/v1', '/ailleurs'));
    expect(outside.status).toBe(404);
    isErrorEnvelope(await outside.json(), 'not_found');
  });

  it('malformed JSON is invalid_json and changes nothing', async () => {
    const r = await api.request('POST', '/players/register', { raw: '{"pseudo": "Broken",', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    isErrorEnvelope(r.body, 'invalid_json');
    expect(JSON.stringify(r.body)).not.toMatch(/SyntaxError|at JSON|position/);
    expect(await app.sql("select 1 from manette.players where pseudo = 'Broken'")).toHaveLength(0);
  });

  it('a JSON scalar or array body is not an object: invalid_json or validation_failed', async () => {
    const scalar = await api.request('POST', '/players/register', { raw: '"texte"', headers: { 'content-type': 'application/json' } });
    expect(scalar.status).toBe(400);
    const arr = await api.post('/players/register', []);
    expect(arr.status).toBe(400);
    isErrorEnvelope(arr.body, 'validation_failed');
  });

  it('a body that is not application/json is unsupported_media_type', async () => {
    const r = await api.request('POST', '/players/register', { raw: 'pseudo=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(r.status).toBe(415);
    isErrorEnvelope(r.body, 'unsupported_media_type');
    const none = await api.request('POST', '/players/register', { raw: '{"pseudo":"x"}', headers: { 'content-type': 'text/plain' } });
    expect(none.status).toBe(415);
  });

  it('a body reads the same whether it comes plain (Content-Length, UTF-8 JSON) or chunked', async () => {
    // The plain form takes the façade's own reader (api/http/json-body.ts), chunked and other
    // media types express.json: same answers, BOM, charset and errors included.
    const send = (body: string, headers: Record<string, string>, chunked: boolean) => new Promise<{ status: number; body: any }>((resolve, reject) => {
      const url = new URL(`${app.baseUrl}/players/register`);
      const req = http.request(url, { method: 'POST', headers: { 'x-api-key': key, ...headers } }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(parts).toString('utf8')) }));
      });
      req.on('error', reject);
      if (chunked) { req.write(body.slice(0, 3)); req.end(body.slice(3)); } else { req.setHeader('content-length', Buffer.byteLength(body)); req.end(body); }
    });
    const cases: Array<[string, Record<string, string>, number, string | undefined]> = [
      ['\ufeff{"pseudo": "a"}', { 'content-type': 'application/json' }, 400, 'validation_failed'],
      ['{"pseudo": "é"}', { 'content-type': 'application/json; charset=UTF-8' }, 400, 'validation_failed'],
      ['{"pseudo": "a"}', { 'content-type': 'application/json; charset=latin1' }, 415, 'unsupported_media_type'],
      ['  "texte"', { 'content-type': 'application/json' }, 400, 'invalid_json'],
      ['{"pseudo": ', { 'content-type': 'application/json' }, 400, 'invalid_json'],
      ['  ', { 'content-type': 'application/json' }, 400, 'invalid_json'],
    ];
    for (const [body, headers, status, error] of cases) {
      for (const chunked of [false, true]) {
        const r = await send(body, headers, chunked);
        expect([body, chunked, r.status, r.body.error]).toEqual([body, chunked, status, error]);
      }
    }
    const unnamed = await send('\ufeff{"pseudo": "Lecteur"}', { 'content-type': 'application/json' }, false);
    expect(unnamed.body.details.map((d: any) => d.champ).sort()).toEqual(['email', 'password']);
  });

  it('a body over 2 MiB is payload_too_large', async () => {
    const r = await api.post('/players/register', { pseudo: 'Big', email: 'big@example.test', password: 'x'.repeat(2.1 * 1024 * 1024) });
    expect(r.status).toBe(413);
    isErrorEnvelope(r.body, 'payload_too_large');
  });

  it('validation_failed lists each field', async () => {
    const r = await api.post('/players/register', { pseudo: 'a', email: 'nope' });
    expect(r.status).toBe(400);
    isErrorEnvelope(r.body, 'validation_failed');
    expect(r.body.details.map((d: any) => d.champ).sort()).toEqual(['email', 'password', 'pseudo']);
    for (const d of r.body.details) expect(typeof d.message).toBe('string');
  });

  it('messages are French by default and English when Accept-Language prefers it', async () => {
    const fr = await api.get('/players/me', { key: null });
    const en = await api.get('/players/me', { key: null, headers: { 'accept-language': 'en-GB,en;q=0.9,fr;q=0.5' } });
    const frPref = await api.get('/players/me', { key: null, headers: { 'accept-language': 'fr-CA,en;q=0.5' } });
    expect(fr.body.message).toBe('Clé d’API manquante.');
    expect(en.body.message).toBe('Missing API key.');
    expect(frPref.body.message).toBe('Clé d’API manquante.');
  });

  it('an unexpected database failure is internal_error with a request id and nothing internal', async () => {
    const db = await freshDatabase();
    const logs: string[] = [];
    const broken = await startTestApp({}, db, { logs });
    try {
      const k = await broken.applyGame(minimalGame('casse'));
      await broken.sql('alter table manette.players rename column country to country_gone');
      const r = await client(broken.baseUrl, k).post('/players/register', { pseudo: 'Crash', email: 'c@example.test', password: 'motdepasse1' });
      expect(r.status).toBe(500);
      isErrorEnvelope(r.body, 'internal_error');
      expect(Object.keys(r.body).sort()).toEqual(['error', 'message', 'ok']);
      expect(JSON.stringify(r.body)).not.toMatch(/country|column|manette|select|insert|at /i);
      const requestId = r.headers.get('x-request-id')!;
      expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
      // The log has the full story under the same request id, as JSON lines.
      const entries = logs.map((l) => JSON.parse(l));
      const failure = entries.find((e) => e.msg === 'request failed');
      expect(failure).toMatchObject({ level: 50, requestId });
      expect(failure.err.message).toMatch(/country/);
      expect(entries.find((e) => e.req?.id === requestId && e.res?.statusCode === 500)).toBeDefined();
    } finally {
      await broken.close();
    }
  });

  it('echoes a sane x-request-id', async () => {
    const r = await api.get('/players/me', { headers: { 'x-request-id': 'abc-123' } });
    expect(r.headers.get('x-request-id')).toBe('abc-123');
  });
});

describe('database outage', () => {
  it('answers 503 unavailable while the database is unreachable and recovers without a restart', async () => {
    // A TCP relay in front of Postgres that we can cut and restore.
    const target = new URL(app.databaseUrl);
    const sockets = new Set<net.Socket>();
    let relay = net.createServer((c) => {
      const up = net.connect(Number(target.port), target.hostname);
      sockets.add(c); sockets.add(up);
      c.pipe(up).pipe(c);
      c.on('error', () => up.destroy()); up.on('error', () => c.destroy());
    });
    await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
    const port = (relay.address() as net.AddressInfo).port;
    const viaRelay = new URL(app.databaseUrl);
    viaRelay.port = String(port);
    const outage = await startTestApp({}, viaRelay.toString());
    const c = client(outage.baseUrl, key);
    try {
      expect((await c.post('/players/login', { identifiant: 'x', password: 'y' })).status).toBe(401);
      expect((await fetch(outage.baseUrl.replace('/api/public/v1', '/health'))).status).toBe(200);

      relay.close();
      for (const s of sockets) s.destroy();
      sockets.clear();
      const down = await c.post('/players/login', { identifiant: 'x', password: 'y' });
      expect(down.status).toBe(503);
      isErrorEnvelope(down.body, 'unavailable');
      const health = await fetch(outage.baseUrl.replace('/api/public/v1', '/health'));
      expect(health.status).toBe(503);

      relay = net.createServer((cl) => {
        const up = net.connect(Number(target.port), target.hostname);
        cl.pipe(up).pipe(cl);
        cl.on('error', () => up.destroy()); up.on('error', () => cl.destroy());
      });
      await new Promise<void>((r) => relay.listen(port, '127.0.0.1', r));
      // Back at the next request (a pooler in between may ask for a second or so more).
      let back = await c.post('/players/login', { identifiant: 'x', password: 'y' });
      await until(async () => {
        if (back.status === 401) return true;
        expect(back.status).toBe(503); // meanwhile, only `unavailable`
        back = await c.post('/players/login', { identifiant: 'x', password: 'y' });
        return false;
      }, 10_000);
      expect(back.status).toBe(401);
      expect(back.body.error).toBe('invalid_credentials');
    } finally {
      relay.close();
      await outage.close().catch(() => {});
    }
  });
});

describe('CORS', () => {
  it('answers preflights with the contract headers', async () => {
    const r = await fetch(`${app.baseUrl}/players/login`, {
      method: 'OPTIONS',
      headers: { origin: 'https://jeu.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-api-key,content-type,idempotency-key' },
    });
    expect(r.status).toBe(204);
    expect(r.headers.get('access-control-allow-origin')).toBe('https://jeu.example');
    const allowed = r.headers.get('access-control-allow-headers')!.toLowerCase();
    for (const h of ['x-api-key', 'x-player-token', 'content-type', 'idempotency-key']) expect(allowed).toContain(h);
    expect(r.headers.get('access-control-allow-methods')).toContain('PATCH');
  });

  it('a game restricted to some origins refuses the others (forbidden) and serves its own', async () => {
    const k = await app.applyGame(minimalGame('cors-jeu', { origines: ['https://ok.example'] }));
    const c = client(app.baseUrl, k);
    const ok = await c.post('/players/register', { pseudo: 'Orig', email: 'o@example.test', password: 'motdepasse1' }, { headers: { origin: 'https://ok.example' } });
    expect(ok.status).toBe(201);
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://ok.example');
    const bad = await c.post('/players/register', { pseudo: 'Evil', email: 'e@example.test', password: 'motdepasse1' }, { headers: { origin: 'https://evil.example' } });
    expect(bad.status).toBe(403);
    isErrorEnvelope(bad.body, 'forbidden');
    expect(await app.sql("select 1 from manette.players where pseudo = 'Evil'")).toHaveLength(0);
    // Native clients send no Origin and are not affected.
    expect((await c.post('/players/register', { pseudo: 'Native', email: 'n@example.test', password: 'motdepasse1' })).status).toBe(201);
  });
});

describe('rate limit', () => {
  it('limits per key and address with bursts, then answers rate_limited with Retry-After', async () => {
    const limited = await startTestApp({ MANETTE_RATE_LIMIT_RPS: '5', MANETTE_RATE_LIMIT_BURST: '10' });
    try {
      const k = await limited.applyGame(minimalGame('rl'));
      const k2 = await limited.applyGame(minimalGame('rl2'));
      const c = client(limited.baseUrl, k);
      // Both keys are seen valid first (a key not yet seen is charged to the client address).
      expect((await c.get('/shop/articles')).status).toBe(200);
      expect((await client(limited.baseUrl, k2).get('/shop/articles')).status).toBe(200);
      await new Promise((r) => setTimeout(r, 2_100)); // those two requests are forgotten
      const replies = [];
      for (let i = 0; i < 14; i++) replies.push(await c.get('/players/me'));
      const statuses = replies.map((r) => r.status);
      expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true); // burst allowed (missing_player)
      const limitedReply = replies.find((r) => r.status === 429)!;
      expect(limitedReply).toBeDefined();
      isErrorEnvelope(limitedReply.body, 'rate_limited');
      expect(Number(limitedReply.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // Another key is counted apart.
      expect((await client(limited.baseUrl, k2).get('/players/me')).status).toBe(401);
    } finally {
      await limited.close();
    }
  });
});

describe('health, OpenAPI and docs', () => {
  it('GET /health reports the database', async () => {
    const r = await fetch(app.baseUrl.replace('/api/public/v1', '/health'));
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ ok: true, data: { database: 'ok' } });
  });

  it('serves an OpenAPI 3.1 document generated from the routes', async () => {
    const r = await api.get('/openapi.json');
    expect(r.status).toBe(200);
    expect(r.body.openapi).toBe('3.1.0');
    const reg = r.body.paths['/players/register'].post;
    expect(reg.requestBody.content['application/json'].schema.properties.pseudo).toBeDefined();
    expect(Object.keys(r.body.paths)).toEqual(expect.arrayContaining(['/players/login', '/players/me', '/players/avatar', '/realtime/config']));
    // Idempotency-Key is declared on the seven creating POSTs (with the economy's two), and only there.
    const keyed = Object.entries(r.body.paths as Record<string, Record<string, { parameters?: { in: string; name: string }[] }>>)
      .flatMap(([p, ops]) => Object.entries(ops).filter(([, op]) => op.parameters?.some((x) => x.in === 'header' && x.name === 'Idempotency-Key'))
        .map(([m]) => `${m} ${p}`)).sort();
    expect(keyed).toEqual(['post /economie/utiliser', 'post /leaderboards/{id}/submit', 'post /match/action', 'post /players/register',
      'post /shop/acheter', 'post /storage/upload', 'post /tables/{nomTable}']);
  });

  it('serves a docs page', async () => {
    const page = await fetch(`${app.baseUrl}/docs/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('swagger-ui-bundle.js');
    const asset = await fetch(`${app.baseUrl}/docs/swagger-ui-bundle.js`);
    if (!EDGE) expect(asset.status).toBe(200);
    // The Edge Function's bundle carries no Swagger UI files (docs/deploy.md): the JSON 404.
    else expect([asset.status, (await asset.json()).error]).toEqual([404, 'not_found']);
  });
});

describe('GET /realtime/config', () => {
  it('needs a valid key and returns the channel prefix', async () => {
    const r = await api.get('/realtime/config');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ok: true, channel_prefix: 'manette_partie_' });
    expect(typeof r.body.url).toBe('string');
    expect((await api.get('/realtime/config', { key: null })).body.error).toBe('missing_key');
    expect((await api.get('/realtime/config', { key: 'sk_live_' + 'Q'.repeat(40) })).body.error).toBe('invalid_key');
  });

  it('points at the local stand-in on the host the game used, with the game key', async () => {
    const local = await startTestApp({}, undefined, { realtime: true });
    try {
      const k = await local.applyGame(minimalGame('rt-host'));
      const port = /:(\d+)\/realtime\/v1$/;
      const viaIp = await client(local.baseUrl, k).get('/realtime/config');
      expect(viaIp.body).toMatchObject({ ok: true, key: k });
      expect(viaIp.body.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/realtime\/v1$/);
      const viaName = await client(local.baseUrl.replace('127.0.0.1', 'localhost'), k).get('/realtime/config');
      expect(viaName.body.url).toBe(viaIp.body.url.replace('127.0.0.1', 'localhost'));
      expect(port.exec(viaName.body.url)![1]).toBe(port.exec(viaIp.body.url)![1]);
      // And with a Supabase project configured, its URL and anon key as given.
      const hosted = await startTestApp({ MANETTE_REALTIME_URL: 'wss://ref.supabase.co/realtime/v1', MANETTE_REALTIME_KEY: 'anon-key' }, local.databaseUrl);
      try {
        expect((await client(hosted.baseUrl, k).get('/realtime/config')).body)
          .toEqual({ ok: true, url: 'wss://ref.supabase.co/realtime/v1', key: 'anon-key', channel_prefix: 'manette_partie_',
            private: true, token: null, token_expire_le: null });
      } finally {
        await hosted.close();
      }
    } finally {
      await local.close();
    }
  });
});

describe('path parameters', () => {
  it('a parameter that cannot be decoded is not_found, not a crash', async () => {
    const s = await api.register('Percent');
    const r = await api.get('/storage/files/%E0%A4%A', { token: s.token });
    expect(r.status).toBe(404);
    isErrorEnvelope(r.body, 'not_found');
  });
});
