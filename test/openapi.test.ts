// The OpenAPI document as a client generator reads it (issue 19): valid for a real OpenAPI
// 3.1 validator, its patterns usable and its examples valid, its error codes all listed
// with their statuses, its texts in one language, its link to docs/api.md served; and a
// contract test: every operation is called for real over HTTP and each success (and some
// errors) must match the documented schema, with no undocumented key at any depth.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { SignJWT } from 'jose';
import { ADMIN_ONLY_CODES, ERROR_CODES } from '../api/openapi.js';
import { ERRORS } from '../api/http/errors.js';
import { knownCodes, messageFor } from '../api/http/messages.js';
import { serveGoogleKeys, type GoogleKeys } from './support/google-keys.js';
import { client, minimalGame, startTestApp, type Reply, type TestApp } from './support/harness.js';
import { serveSteam, type SteamServer } from './support/steam-server.js';
import { serveDiscord, type DiscordServer } from './support/discord-server.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

type Doc = {
  openapi: string; info: { title: string; description: string }; externalDocs?: { url: string; description?: string };
  paths: Record<string, Record<string, { summary?: string; responses: Record<string, { content?: Record<string, { schema: object }> }> }>>;
  components: { schemas: Record<string, any> };
};

const GOOGLE_CLIENT = 'client-openapi.apps.googleusercontent.com';
// A 1×1 PNG.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

let app: TestApp;
let jwks: GoogleKeys;
let api: ReturnType<typeof client>;
let doc: Doc;
let steam: SteamServer;
let discord: DiscordServer;
const DISCORD = { client_id: '1100000000000000001', client_secret: 'openapi-secret' };

beforeAll(async () => {
  jwks = await serveGoogleKeys();
  steam = await serveSteam();
  discord = await serveDiscord([DISCORD]);
  app = await startTestApp({
    MANETTE_GOOGLE_JWKS_URL: jwks.jwksUrl,
    MANETTE_STEAM_API_URL: steam.url, MANETTE_STEAM_PUBLISHER_KEY: steam.publisherKey,
    MANETTE_DISCORD_API_URL: discord.apiUrl, MANETTE_DISCORD_CLIENT_SECRET: DISCORD.client_secret,
  });
  api = client(app.baseUrl, await app.applyGame(minimalGame('openapi-jeu', {
    google: { client_id: GOOGLE_CLIENT },
    // An identity provider of its own, whose keys are the same local set (POST /players/login/jeton).
    connexions: { studio: { emetteur: 'https://idp.openapi.test', audience: 'openapi', jwks_url: jwks.jwksUrl },
      steam: { app_id: 480 }, discord: { client_id: DISCORD.client_id } },
    tables: { notes: { colonnes: { texte: { type: 'text' }, n: { type: 'integer' } }, lecture: 'public', ecriture: 'joueurs' } },
    classements: { points: {} },
    boutique: [{ code: 'epee', nom: 'Épée', description: 'Tranchante', prix: 100, devise: 'or', metadonnees: { degats: 12 },
      contenu: { objets: { epee: 1 } } }],
    monnaies: { or: { nom: 'Or', depart: 500, max: 100000 } },
    objets: { epee: { nom: 'Épée' } },
    modes: { duel: { equipes: 2, joueurs_par_equipe: 1, regles: 'libre', elo_ecart_initial: 10000, spectateurs: true } },
    notifications: { web_push: true },
  })));
  doc = (await api.get('/openapi.json')).body as Doc;
});
afterAll(async () => {
  await app?.close();
  await steam?.close();
  await discord?.close();
  jwks?.close();
});

/** Every value under `key` anywhere in the document, with where it is. */
function collect(node: unknown, key: string, at = '#', out: Array<{ at: string; parent: Record<string, unknown> }> = []) {
  if (Array.isArray(node)) node.forEach((v, i) => collect(v, key, `${at}/${i}`, out));
  else if (node && typeof node === 'object') {
    const o = node as Record<string, unknown>;
    if (key in o) out.push({ at, parent: o });
    for (const [k, v] of Object.entries(o)) collect(v, key, `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, out);
  }
  return out;
}

/** Ajv over the document: `ref(pointer)` validates against the schema there, $refs resolved. */
function validatorOf(document: object, strictObjects: boolean) {
  const copy = structuredClone(document) as Record<string, unknown>;
  if (strictObjects) {
    // The contract test: an object schema with properties admits no other key.
    const visit = (n: unknown) => {
      if (Array.isArray(n)) return n.forEach(visit);
      if (!n || typeof n !== 'object') return;
      const o = n as Record<string, unknown>;
      if (o.type === 'object' && o.properties && !('additionalProperties' in o)) o.additionalProperties = false;
      Object.values(o).forEach(visit);
    };
    visit(copy);
  }
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(copy, 'openapi.json');
  return (pointer: string) => ajv.compile({ $ref: `openapi.json${pointer}` });
}

const pointer = (...parts: string[]) => `#/${parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;

describe('the OpenAPI document', () => {
  it('is valid for a real OpenAPI 3.1 validator', async () => {
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
  });

  it('has patterns a client can use: Unicode regexes without flags, the pseudo\'s accepting real pseudos', () => {
    const patterns = collect(doc, 'pattern').filter(({ parent }) => typeof parent.pattern === 'string');
    expect(patterns.length).toBeGreaterThan(0);
    for (const { at, parent } of patterns) {
      const source = parent.pattern as string;
      expect(source, at).not.toMatch(/\/[a-z]*$/);
      expect(() => new RegExp(source, 'u'), at).not.toThrow();
    }
    const pseudo = doc.paths['/players/register']!.post as any;
    const schema = pseudo.requestBody.content['application/json'].schema.properties.pseudo;
    const re = new RegExp(schema.pattern, 'u');
    for (const ok of ['Zoé', 'Ёлка', '名前です', 'zoe_42.x-y', 'a'.repeat(32)]) expect(re.test(ok), ok).toBe(true);
    for (const bad of ['ab', 'a b', 'zoé!', '😀😀😀', 'a'.repeat(33)]) expect(re.test(bad), bad).toBe(false);
  });

  it('has examples, each valid against its own schema; the pseudo\'s is accepted by the API', async () => {
    const validate = validatorOf(doc, false);
    const examples = collect(doc, 'example').filter(({ at }) => !at.endsWith('/properties'));
    expect(examples.map((e) => e.at)).toEqual(expect.arrayContaining([expect.stringMatching(/players~1register.*pseudo$/)]));
    for (const { at, parent } of examples) {
      const check = validate(at);
      expect(check(parent.example), `${at}: ${JSON.stringify(check.errors)}`).toBe(true);
    }
    const body = (doc.paths['/players/register']!.post as any).requestBody.content['application/json'].schema.properties;
    const r = await api.post('/players/register', { pseudo: body.pseudo.example, email: body.email.example, password: body.password.example });
    expect([r.status, r.body.data?.joueur?.pseudo]).toEqual([201, body.pseudo.example]);
  });

  it('lists every error code with its HTTP status and meaning, which the error responses point to', () => {
    const errorCode = doc.components.schemas.ErrorCode;
    const codes = ERROR_CODES.map(([c]) => c);
    expect(new Set(errorCode.enum)).toEqual(new Set(codes));
    // Every code with texts is in the table, but the admin commands' own.
    expect(new Set(codes)).toEqual(new Set(knownCodes().filter((c) => !ADMIN_ONLY_CODES.includes(c))));
    for (const [code, statuses] of ERROR_CODES) {
      expect(errorCode.description).toContain(`| \`${code}\` | ${statuses.join(', ')} | ${messageFor(code, 'en')} |`);
    }
    // The statuses the façade's own errors and the SQL functions use.
    const statusOf = new Map(ERROR_CODES.map(([c, s]) => [c, s]));
    for (const make of Object.values(ERRORS)) {
      const e = (make as (...a: never[]) => { code: string; status: number })(...([[]] as never[]));
      expect(statusOf.get(e.code), e.code).toContain(e.status);
    }
    const dir = path.resolve('supabase/migrations');
    const sql = readdirSync(dir).filter((f) => f.endsWith('.sql')).map((f) => readFileSync(path.join(dir, f), 'utf8')).join('\n');
    const raised = [...sql.matchAll(/manette\.fail\('([a-z_]+)',\s*(\d{3})/g)].map((m) => [m[1]!, Number(m[2])] as const);
    expect(raised.length).toBeGreaterThan(20);
    for (const [code, status] of raised) {
      if (ADMIN_ONLY_CODES.includes(code)) continue;
      expect(statusOf.get(code), `${code} ${status}`).toContain(status);
    }
    // Every operation's error response is the Error schema, whose `error` is that table.
    expect(doc.components.schemas.Error.properties.error).toEqual({ $ref: '#/components/schemas/ErrorCode' });
    for (const [p, ops] of Object.entries(doc.paths)) {
      for (const [m, op] of Object.entries(ops)) {
        expect(op.responses.default?.content?.['application/json']?.schema, `${m} ${p}`).toEqual({ $ref: '#/components/schemas/Error' });
      }
    }
  });

  it('is written in English only', () => {
    // Texts without their `code` spans (field names and codes are the API's own words).
    const texts = [...collect(doc, 'description'), ...collect(doc, 'summary'), ...collect(doc, 'title')]
      .map(({ parent }) => [parent.description, parent.summary, parent.title])
      .flat().filter((t): t is string => typeof t === 'string').map((t) => t.replace(/`[^`]*`/g, ''));
    expect(texts.length).toBeGreaterThan(80);
    const FRENCH = /\b(le|la|les|des|du|une|est|sont|avec|sans|pour|dans|joueur|partie|ligne|fichier|classement|connecté|défaut|caractères)\b|[àâçèéêîôûù]/i;
    const french = texts.filter((t) => FRENCH.test(t.replace(/\bZoé\b/g, '')));
    expect(french).toEqual([]);
  });

  it('links docs/api.md, which the server serves', async () => {
    expect(doc.externalDocs?.url).toBe('/api/public/v1/docs/api.md');
    const r = await fetch(new URL(doc.externalDocs!.url, app.baseUrl));
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/markdown/);
    expect(await r.text()).toBe(readFileSync('docs/api.md', 'utf8'));
    // Its links to the other pages work from there too.
    expect((await fetch(new URL('tables.md', r.url))).status).toBe(200);
  });
});

describe('contract: real responses match the documented ones', () => {
  const validate = () => validatorOf(doc, true);
  const called = new Set<string>();

  /** Checks a reply against the document's response for its operation and status. */
  function conforms(method: string, template: string, reply: Reply) {
    const op = doc.paths[template]?.[method];
    expect(op, `${method} ${template} is documented`).toBeDefined();
    const documented = Object.keys(op!.responses).filter((s) => s !== 'default');
    const key = reply.body?.ok === true ? String(reply.status) : 'default';
    if (reply.body?.ok === true) {
      expect(documented, `${method} ${template}: ${reply.status} ${JSON.stringify(reply.body)}`).toContain(String(reply.status));
      called.add(`${method} ${template}`);
    }
    const check = validate()(pointer('paths', template, method, 'responses', key, 'content', 'application/json', 'schema'));
    expect(check(reply.body), `${method} ${template} ${reply.status}: ${JSON.stringify(check.errors)}\n${JSON.stringify(reply.body)}`).toBe(true);
    return reply;
  }

  const GOOGLE = async (sub: string) => new SignJWT({ email_verified: true, name: 'Gaëlle Openapi' })
    .setProtectedHeader({ alg: 'RS256', kid: 'test-key' }).setIssuer('https://accounts.google.com')
    .setAudience(GOOGLE_CLIENT).setSubject(sub).setIssuedAt().setExpirationTime('1h').sign(jwks.privateKey);

  const JETON = (sub: string) => new SignJWT({}).setProtectedHeader({ alg: 'RS256', kid: 'test-key' }).setIssuer('https://idp.openapi.test')
    .setAudience('openapi').setSubject(sub).setIssuedAt().setExpirationTime('1h').setJti(sub).sign(jwks.privateKey);

  it('for every operation of the document, called for real', async () => {
    const c = (m: string, t: string, r: Reply) => conforms(m, t, r);
    const req = (method: string, p: string, o: Parameters<typeof api.request>[2] = {}) => api.request(method, p, o);

    // Players.
    const reg = c('post', '/players/register', await api.post('/players/register',
      { pseudo: 'Contrat', email: 'contrat@example.test', password: 'motdepasse-solide', pays: 'fr' }, { headers: { 'idempotency-key': 'reg-1' } }));
    const a = reg.body.token as string;
    c('post', '/players/login', await api.post('/players/login', { identifiant: 'contrat', password: 'motdepasse-solide' }));
    c('post', '/players/login', await api.post('/players/login', { email: 'contrat@example.test', password: 'motdepasse-solide' }));
    c('post', '/players/google', await api.post('/players/google', { id_token: await GOOGLE('sub-openapi') }));
    c('post', '/players/login/jeton', await api.post('/players/login/jeton', { fournisseur: 'studio', jeton: await JETON('sub-openapi') }));
    c('post', '/players/login/steam', await api.post('/players/login/steam', { ticket: steam.mint({ steamid: '76561197960287930', appid: 480 }) }));
    c('post', '/players/login/discord', await api.post('/players/login/discord', { code: discord.authorize({ client_id: DISCORD.client_id, user: { id: '80351110224678912', username: 'contrat' } }) }));
    c('get', '/players/me', await api.get('/players/me', { token: a }));
    c('post', '/players/avatar', await api.post('/players/avatar', { contenu: PNG, mime_type: 'image/png' }, { token: a }));
    // Guests: one linked by e-mail and password, one by Google (docs/accounts.md).
    const guest1 = c('post', '/players/invite', await api.post('/players/invite', { appareil_id: 'openapi-appareil-0001' })).body.token as string;
    const guest2 = c('post', '/players/invite', await api.post('/players/invite')).body.token as string;
    c('post', '/players/lier', await api.post('/players/lier', { email: 'invite@example.test', password: 'motdepasse-solide' }, { token: guest1 }));
    c('post', '/players/lier', await api.post('/players/lier', { id_token: await GOOGLE('sub-openapi-invite') }, { token: guest2 }));
    const guest3 = c('post', '/players/invite', await api.post('/players/invite')).body.token as string;
    c('post', '/players/lier', await api.post('/players/lier', { fournisseur: 'studio', jeton: await JETON('sub-openapi-invite') }, { token: guest3 }));
    const b = (await api.register('Adverse')).token;
    const third = (await api.register('Troisieme')).token;

    // Tables.
    const row = c('post', '/tables/{nomTable}', await api.post('/tables/notes', { donnees: { texte: 'bonjour', n: 1 } }, { token: a }));
    const id = row.body.data.id as string;
    c('get', '/tables/{nomTable}', await api.get('/tables/notes?order_dir=desc&limit=5'));
    c('get', '/tables/{nomTable}/{id}', await api.get(`/tables/notes/${id}`));
    c('patch', '/tables/{nomTable}/{id}', await req('PATCH', `/tables/notes/${id}`, { body: { donnees: { n: null } }, token: a }));
    c('delete', '/tables/{nomTable}/{id}', await req('DELETE', `/tables/notes/${id}`, { token: a }));

    // Files.
    c('post', '/storage/upload', await api.post('/storage/upload', { nom: 'save.json', contenu: '{"niveau":3}', mime_type: 'application/json' }, { token: a }));
    c('post', '/storage/upload', await api.post('/storage/upload', { nom: 'save.json', contenu: '{"niveau":4}', mime_type: 'application/json', ecraser: true }, { token: a }));
    c('get', '/storage/files', await api.get('/storage/files', { token: a }));
    c('get', '/storage/files/{nom}', await api.get('/storage/files/save.json', { token: a }));
    c('delete', '/storage/files/{nom}', await req('DELETE', '/storage/files/save.json', { token: a }));

    // Leaderboards, shop, panel, realtime.
    c('post', '/leaderboards/{id}/submit', await api.post('/leaderboards/points/submit', { valeur: 42 }, { token: a }));
    c('get', '/leaderboards', await api.get('/leaderboards'));
    c('get', '/leaderboards/{id}/scores', await api.get('/leaderboards/points/scores'));
    c('get', '/leaderboards/{id}/scores', await api.get('/leaderboards/points/scores?autour=moi', { token: a }));
    c('get', '/shop/articles', await api.get('/shop/articles'));
    c('get', '/panel', await api.get('/panel'));
    // Economy.
    c('get', '/economie/portefeuille', await api.get('/economie/portefeuille', { token: a }));
    c('post', '/shop/acheter', await api.post('/shop/acheter', { code: 'epee', quantite: 2 }, { token: a, headers: { 'idempotency-key': 'achat-1' } }));
    c('get', '/economie/inventaire', await api.get('/economie/inventaire', { token: a }));
    c('post', '/economie/utiliser', await api.post('/economie/utiliser', { objet: 'epee', quantite: 1 }, { token: a }));
    c('get', '/economie/historique', await api.get('/economie/historique?limit=2', { token: a }));
    c('post', '/shop/acheter', await api.post('/shop/acheter', { code: 'epee', quantite: 100 }, { token: a }));   // solde_insuffisant
    // Notifications (docs/notifications.md): a subscription, its removal, preferences, presence.
    const p256dh = Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 7)]).toString('base64url');
    const sub = c('post', '/notifications/abonnements', await api.post('/notifications/abonnements',
      { endpoint: 'https://push.example.test/abc', keys: { p256dh, auth: Buffer.alloc(16, 1).toString('base64url') } }, { token: a }));
    c('get', '/notifications/preferences', await api.get('/notifications/preferences', { token: a }));
    c('post', '/notifications/preferences', await api.post('/notifications/preferences', { types: { tour: false } }, { token: a }));
    c('post', '/notifications/presence', await api.post('/notifications/presence', { present: true }, { token: a }));
    c('delete', '/notifications/abonnements/{id}', await req('DELETE', `/notifications/abonnements/${sub.body.data.id}`, { token: a }));
    c('delete', '/notifications/abonnements/{id}', await req('DELETE', `/notifications/abonnements/${sub.body.data.id}`, { token: a })); // not_found
    c('get', '/realtime/config', await api.get('/realtime/config'));
    c('get', '/realtime/config', await api.get('/realtime/config', { token: a }));

    // Matchmaking and matches: waiting, matched, idle.
    expect(c('post', '/matchmaking/join', await api.post('/matchmaking/join', { mode_jeu: 'duel', elo_actuel: 1000 }, { token: a })).body.status).toBe('waiting');
    expect(c('get', '/matchmaking/status', await api.get('/matchmaking/status', { token: a })).body.status).toBe('waiting');
    const matched = c('post', '/matchmaking/join', await api.post('/matchmaking/join', { mode_jeu: 'duel', elo_actuel: 1000 }, { token: b }));
    expect(matched.body.status).toBe('matched');
    expect(c('get', '/matchmaking/status', await api.get('/matchmaking/status', { token: a })).body.status).toBe('matched');
    const partie = matched.body.partie_id as string;
    c('get', '/match/state', await api.get(`/match/state?partie_id=${partie}`, { token: a }));
    // A spectator's list of the matches in progress (duel has spectators).
    expect(c('get', '/match/live', await api.get('/match/live?mode_jeu=duel&limit=5', { token: third })).body.parties[0].id).toBe(partie);
    c('post', '/match/action', await api.post('/match/action', { partie_id: partie, action: 'poser', donnees: { x: 1 } }, { token: a }));
    const over = c('post', '/match/action', await api.post('/match/action', { partie_id: partie, action: 'abandonner' }, { token: b }));
    expect(over.body.partie.statut).toBe('terminee');
    // The history of the finished match: both pages (a next one, then the last).
    const firstPage = c('get', '/match/history', await api.get(`/match/history?partie_id=${partie}&limit=1`, { token: a }));
    expect(firstPage.body.suivant).toBe(1);
    expect(c('get', '/match/history', await api.get(`/match/history?partie_id=${partie}&depuis=1`, { token: b })).body.suivant).toBeNull();
    expect(c('get', '/matchmaking/status', await api.get('/matchmaking/status', { token: third })).body.status).toBe('idle');
    c('post', '/matchmaking/join', await api.post('/matchmaking/join', { mode_jeu: 'duel', elo_actuel: 10 }, { token: third }));
    c('post', '/matchmaking/leave', await api.post('/matchmaking/leave', undefined, { token: third }));
    // Export (a player with rows, scores, economy and a match) and deletion.
    c('get', '/players/me/export', await api.get('/players/me/export', { token: a }));
    c('post', '/players/me/supprimer', await api.post('/players/me/supprimer', { password: 'pas-le-bon' }, { token: third }));
    c('post', '/players/me/supprimer', await api.post('/players/me/supprimer', { password: 'motdepasse-solide' }, { token: third }));
    c('post', '/players/logout', await api.post('/players/logout', undefined, { token: b }));
    // Password reset (no SMTP here: the mail is not sent; the code is set as its hash, as SQL stores it).
    c('post', '/players/mot-de-passe/oubli', await api.post('/players/mot-de-passe/oubli', { email: 'adverse@example.test' }));
    await app.sql(`update manette.password_resets set code_hash = sha256(convert_to(player_id::text || ':12345678', 'UTF8'))
      where code_hash is not null`);
    c('post', '/players/mot-de-passe/reinitialiser', await api.post('/players/mot-de-passe/reinitialiser',
      { email: 'adverse@example.test', code: '12345678', password: 'nouveau-secret-1' }));

    const documented = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m} ${p}`));
    expect([...called].sort()).toEqual(documented.sort());
  });

  it('and the errors match the Error schema', async () => {
    const token = (await api.register('Erreurs')).token;
    conforms('get', '/players/me', await api.get('/players/me', { key: null }));
    conforms('post', '/players/register', await api.post('/players/register', { pseudo: 'a' }));
    conforms('get', '/tables/{nomTable}', await api.get('/tables/notes?order_dir=haut'));
    conforms('get', '/tables/{nomTable}/{id}', await api.get('/tables/inconnue/1'));
    conforms('post', '/storage/upload', await api.post('/storage/upload', { nom: '../x', contenu: 'x', mime_type: 'text/plain' }, { token }));
    conforms('get', '/match/state', await api.get('/match/state?partie_id=00000000-0000-0000-0000-000000000000', { token }));
    conforms('get', '/match/history', await api.get('/match/history?partie_id=00000000-0000-0000-0000-000000000000', { token }));
    conforms('get', '/match/history', await api.get('/match/history?partie_id=x&limit=501', { token }));
    conforms('get', '/match/live', await api.get('/match/live?mode_jeu=inconnu', { token }));
    conforms('get', '/match/live', await api.get('/match/live?limit=101', { token }));
    conforms('post', '/players/login', await api.post('/players/login', { identifiant: 'Erreurs', password: 'mauvais' }));
  });
});
