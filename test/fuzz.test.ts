// A hostile-input run (docs/api.md): thousands of malformed requests on every
// endpoint, with and without a key and a player token, from a seeded generator (the seed
// is printed on failure, so a run can be replayed). Every answer must be the JSON envelope
// and none may be a 5xx.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, minimalGame, startTestApp, type TestApp } from './support/harness.js';
import { routes } from '../api/routes/index.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const PER_ROUTE = Number(process.env.FUZZ_PER_ROUTE ?? 120);

let app: TestApp;
let key: string;
let token: string;
let partieId: string;

beforeAll(async () => {
  app = await startTestApp();
  key = await app.applyGame(minimalGame('fuzz', {
    tables: { notes: { colonnes: { texte: { type: 'text' }, n: { type: 'integer' }, ok: { type: 'boolean' }, quand: { type: 'timestamp' }, j: { type: 'json' } }, lecture: 'joueurs', ecriture: 'joueurs' } },
    classements: { score: { operateur: 'somme' }, best: {} },
    modes: { duel: { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', elo_ecart_initial: 10000 } },
    boutique: [{ code: 'epee', nom: 'Épée', prix: 1, devise: 'or' }],
  }));
  const api = client(app.baseUrl, key);
  const a = await api.register('Fuzzy');
  const b = await api.register('Fuzzier');
  token = a.token;
  await api.post('/matchmaking/join', { mode_jeu: 'duel', elo_actuel: 1000 }, { token: a.token });
  partieId = (await api.post('/matchmaking/join', { mode_jeu: 'duel', elo_actuel: 1000 }, { token: b.token })).body.partie_id;
}, 60_000);
afterAll(async () => { await app?.close(); });

/** node:http rather than fetch: a GET may carry a body, as a hostile client's would. */
function send(url: string, method: string, headers: Record<string, string>, body?: string): Promise<{ status: number; type: string; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.setTimeout(20_000, () => req.destroy(new Error('no answer within 20 s')));
    req.on('error', reject);
    req.end(body);
  });
}

// mulberry32
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function generators(r: () => number) {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const nasty = ['', ' ', '\u0000', 'a\u0000b', '\uD800', '\uDFFFx', '‮rtl', '💥', 'é'.normalize('NFD'), 'x'.repeat(300), 'x'.repeat(70_000),
    '../../etc/passwd', "'; drop table manette.players; --", '%00', '%E0%A4%A', '\\', '"', '{}', '[]', 'null', 'NaN', '-0', '1e309',
    '00000000-0000-0000-0000-000000000000', partieId, 'notes', 'score', 'duel', 'epee', 'Fuzzy', '\r\nX-Injected: 1'];
  const scalar = (): unknown => pick([
    () => pick(nasty), () => Math.floor(r() * 2 ** 31) * (r() < 0.5 ? -1 : 1), () => r() * 1e308, () => 1e-320, () => r() < 0.5,
    () => null, () => Number.MAX_SAFE_INTEGER + 2, () => 10_001, () => -1, () => 0.5,
  ])();
  const value = (depth = 0): unknown => {
    const roll = r();
    if (depth > 4 || roll < 0.5) return scalar();
    if (roll < 0.75) return Array.from({ length: Math.floor(r() * 4) }, () => value(depth + 1));
    return object(depth + 1);
  };
  const FIELDS = ['pseudo', 'email', 'password', 'pays', 'identifiant', 'id_token', 'donnees', 'texte', 'n', 'ok', 'quand', 'j', 'valeur',
    'nom', 'contenu', 'mime_type', 'ecraser', 'mode_jeu', 'elo_actuel', 'partie_id', 'action', 'numero_tour', 'case', '__proto__', 'constructor'];
  const object = (depth = 0): Record<string, unknown> => {
    const o: Record<string, unknown> = {};
    for (let i = Math.floor(r() * 5); i > 0; i--) o[r() < 0.85 ? pick(FIELDS) : pick(nasty)] = value(depth);
    if (r() < 0.4) o.donnees = object(depth + 1);
    return o;
  };
  const body = (): { raw?: string; json?: unknown; contentType?: string; encoding?: string } => {
    const roll = r();
    if (roll < 0.55) return { json: object() };
    if (roll < 0.65) return { json: value() };
    if (roll < 0.72) return { raw: pick(['{', '{"a":', '[1,2', '\u0000', '{"a":1}{"b":2}', 'nul', '"\\ud800"', '{"a":"\\u0000"}', '[[[[[[[[[[[[']) };
    if (roll < 0.78) return { raw: '['.repeat(70) + ']'.repeat(70), contentType: 'application/json' };
    if (roll < 0.84) return { json: object(), contentType: pick(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=latin1', 'application/json; charset=utf-16']) };
    if (roll < 0.9) return { json: object(), encoding: pick(['gzip', 'br', 'identity, gzip']) };
    return {};
  };
  // encodeURIComponent refuses lone surrogates: those go as the raw bytes a client could send.
  const enc = (s: string) => { try { return encodeURIComponent(s); } catch { return '%ED%A0%80'; } };
  const segment = () => enc(String(pick([...nasty, 'notes', 'score', 'best', 'a.txt']))).replace(/%25/g, r() < 0.3 ? '%' : '%25');
  const query = () => {
    const params: string[] = [];
    for (let i = Math.floor(r() * 4); i > 0; i--) {
      params.push(`${pick(['limit', 'offset', 'order_by', 'order_dir', 'texte', 'n', 'partie_id', 'autour', 'x', '%00', 'limit'])}=${enc(String(scalar()))}`);
    }
    if (r() < 0.1) params.push('limit=%E0%A4%A');
    return params.length ? `?${params.join('&')}` : '';
  };
  return { pick, body, segment, query };
}

describe('hostile-input run', () => {
  it(`every endpoint, ${PER_ROUTE} malformed requests each (seed ${SEED}): the envelope every time, never a 5xx`, async () => {
    const r = rng(SEED);
    const g = generators(r);
    const bad: string[] = [];
    let sent = 0;
    const targets = [...routes.map((rt) => ({ method: rt.method.toUpperCase(), path: rt.path })),
      { method: 'PUT', path: '/tables/:nomTable' }, { method: 'GET', path: '/nowhere/:x' }];
    for (const target of targets) {
      const batch: Promise<void>[] = [];
      for (let i = 0; i < PER_ROUTE; i++) {
        const url = target.path.replace(/:(\w+)/g, () => g.segment()) + g.query();
        const b = target.method === 'GET' || target.method === 'DELETE' ? (r() < 0.2 ? g.body() : {}) : g.body();
        const headers: Record<string, string> = {};
        const who = r();
        if (who < 0.85) headers['x-api-key'] = who < 0.8 ? key : g.pick(['sk_live_x', 'sk_live_' + 'Q'.repeat(40), '']);
        if (r() < 0.75) headers['x-player-token'] = r() < 0.9 ? token : g.pick(['pt_x', 'pt_' + 'a'.repeat(43), '']);
        if (r() < 0.2) headers['accept-language'] = g.pick(['en', 'fr', 'de;q=1, en;q=0.5', '*']);
        if (r() < 0.1) headers['idempotency-key'] = g.pick(['k1', 'x'.repeat(500), 'k2']);
        let payload: string | undefined;
        if (b.json !== undefined) { payload = JSON.stringify(b.json); headers['content-type'] = b.contentType ?? 'application/json'; }
        if (b.raw !== undefined) { payload = b.raw; headers['content-type'] = b.contentType ?? 'application/json'; }
        if (b.encoding) headers['content-encoding'] = b.encoding;
        const request = `${target.method} ${url} ${JSON.stringify(headers).slice(0, 200)} ${String(payload).slice(0, 200)}`;
        sent++;
        batch.push(send(app.baseUrl + url, target.method, headers, payload).then((res) => {
          const { text } = res;
          let parsed: any;
          try { parsed = JSON.parse(text); } catch { parsed = undefined; }
          const envelope = parsed && typeof parsed === 'object' && typeof parsed.ok === 'boolean'
            && (parsed.ok || (typeof parsed.error === 'string' && typeof parsed.message === 'string'));
          if (res.status >= 500 || !envelope || !/application\/json/.test(res.type)) {
            bad.push(`${res.status} ${text.slice(0, 200)} ← ${request}`);
          }
        }, (err: Error) => { bad.push(`network error ${err.message} ← ${request}`); }));
        if (batch.length >= 16) await Promise.all(batch.splice(0));
      }
      await Promise.all(batch);
    }
    expect(sent).toBeGreaterThan(2_000);
    expect(bad, `seed ${SEED}: ${bad.length} bad answers`).toEqual([]);
  }, 180_000);
});
