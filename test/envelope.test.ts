// The envelope (docs/api.md "Envelope", issue 31): a success is `{ok: true, data: ...}`.
// The contract's exceptions, a closed list, put fields beside `ok`: `token` (beside `data`)
// for the endpoints that open a session (register, login, google, invite), and the
// matchmaking (`/matchmaking/*`), realtime settings (`/realtime/config`) and match
// (`/match/*`) endpoints. Every other endpoint, and every endpoint added later, answers
// `{ok, data}` only. Checked over every operation of the OpenAPI document the server serves
// (each documented success's top-level keys), then on real answers of each family, with
// Idempotency-Key replays.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, minimalGame, startTestApp, type Reply, type TestApp } from './support/harness.js';

type Schema = {
  $ref?: string; type?: string; properties?: Record<string, Schema>; required?: string[];
  allOf?: Schema[]; anyOf?: Schema[]; oneOf?: Schema[]; additionalProperties?: unknown; const?: unknown; enum?: unknown[];
};
type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>>;
  components: { schemas: Record<string, Schema> };
};

/** The endpoints that open a session: `token` beside `ok` and `data`. */
const SESSION = new Set(['post /players/register', 'post /players/login', 'post /players/google', 'post /players/login/jeton', 'post /players/login/steam', 'post /players/login/discord', 'post /players/invite']);
/** Their own fields beside `ok` (docs/api.md's table says them). */
const OWN_FIELDS = (template: string) =>
  template.startsWith('/matchmaking/') || template.startsWith('/match/') || template === '/realtime/config';

/** What the contract allows beside `ok` for an operation: exact keys, or any (its own fields). */
function allowed(method: string, template: string): { keys: string[] } | 'own-fields' {
  if (OWN_FIELDS(template)) return 'own-fields';
  if (SESSION.has(`${method} ${template}`)) return { keys: ['data', 'ok', 'token'] };
  return { keys: ['data', 'ok'] };
}

let app: TestApp;
let api: ReturnType<typeof client>;
let doc: Doc;

beforeAll(async () => {
  app = await startTestApp();
  api = client(app.baseUrl, await app.applyGame(minimalGame('enveloppe', {
    tables: { notes: { colonnes: { texte: { type: 'text' } }, lecture: 'public', ecriture: 'joueurs' } },
    classements: { points: {} },
    monnaies: { or: { nom: 'Or', depart: 100 } },
    objets: { potion: { nom: 'Potion', max: 99 } },
    boutique: [{ code: 'potion', nom: 'Potion', prix: 10, devise: 'or', contenu: { objets: { potion: 1 } } }],
    modes: { duel: { equipes: 2, joueurs_par_equipe: 1, regles: 'libre' } },
  })));
  const r = await api.get('/openapi.json');
  expect(r.status).toBe(200);
  doc = r.body as Doc;
});
afterAll(async () => { await app?.close(); });

/** A schema with its $ref followed. */
function resolve(s: Schema): Schema {
  if (!s.$ref) return s;
  const name = s.$ref.replace('#/components/schemas/', '');
  const target = doc.components.schemas[name];
  expect(target, `${s.$ref} is in the document`).toBeDefined();
  return resolve(target!);
}

/** The top-level keys of an object schema (every branch of a union or intersection) and the required ones. */
function topLevel(s: Schema): { keys: Set<string>; required: Set<string>; open: boolean } {
  const r = resolve(s);
  const keys = new Set(Object.keys(r.properties ?? {}));
  const required = new Set(r.required ?? []);
  let open = r.additionalProperties !== undefined && r.additionalProperties !== false;
  for (const part of [...(r.allOf ?? []), ...(r.anyOf ?? []), ...(r.oneOf ?? [])]) {
    const t = topLevel(part);
    t.keys.forEach((k) => keys.add(k));
    if (r.allOf?.includes(part)) t.required.forEach((k) => required.add(k));
    open ||= t.open;
  }
  return { keys, required, open };
}

const sorted = (s: Iterable<string>) => [...s].sort();

describe('the OpenAPI document: every success is {ok, data}, but for the contract’s exceptions', () => {
  it('documents, for every operation, only the allowed keys beside ok', () => {
    const operations = Object.entries(doc.paths).flatMap(([template, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ template, method, op })));
    expect(operations.length).toBeGreaterThan(30);
    const wrong: string[] = [];
    let checked = 0;
    for (const { template, method, op } of operations) {
      const successes = Object.entries(op.responses).filter(([status]) => status !== 'default');
      expect(successes.length, `${method} ${template} documents a success`).toBeGreaterThan(0);
      for (const [status, response] of successes) {
        const schema = response.content?.['application/json']?.schema;
        expect(schema, `${method} ${template} ${status} has a JSON schema`).toBeDefined();
        const { keys, required, open } = topLevel(schema!);
        const where = `${method.toUpperCase()} ${template} ${status}`;
        // ok: true, always, and required.
        const ok = resolve(resolve(schema!).properties?.ok ?? {});
        expect(ok.const === true || JSON.stringify(ok.enum) === '[true]', `${where}: ok is true (${JSON.stringify(ok)})`).toBe(true);
        expect(required.has('ok'), `${where}: ok is required`).toBe(true);
        const rule = allowed(method, template);
        if (rule === 'own-fields') continue;
        checked++;
        if (open) wrong.push(`${where}: allows any key beside ok`);
        if (JSON.stringify(sorted(keys)) !== JSON.stringify(rule.keys)) {
          wrong.push(`${where}: {${sorted(keys).join(', ')}} instead of {${rule.keys.join(', ')}}`);
        }
        for (const k of rule.keys) if (!required.has(k)) wrong.push(`${where}: ${k} is not required`);
      }
    }
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThan(25);
  });

  it('has every exception of the list among its operations (the list is closed, and not stale)', () => {
    const documented = new Set(Object.entries(doc.paths).flatMap(([template, ops]) => Object.keys(ops).map((m) => `${m} ${template}`)));
    for (const op of SESSION) expect(documented, op).toContain(op);
    const own = [...documented].filter((op) => OWN_FIELDS(op.split(' ')[1]!)).sort();
    expect(own).toEqual([
      'get /match/history', 'get /match/live', 'get /match/state', 'get /matchmaking/status', 'get /realtime/config',
      'post /match/action', 'post /matchmaking/join', 'post /matchmaking/leave',
    ]);
  });
});

describe('real answers follow the envelope', () => {
  /** Checks a success against the contract's rule for its operation; returns its body. */
  function follows(method: string, template: string, reply: Reply, status = 200) {
    const where = `${method.toUpperCase()} ${template}`;
    expect(reply.status, `${where}: ${JSON.stringify(reply.body)}`).toBe(status);
    expect(reply.body?.ok, where).toBe(true);
    // One spacing for every answer: none, as JSON.stringify writes it (jsonb's text has spaces).
    expect(reply.text, where).toBe(JSON.stringify(reply.body));
    const rule = allowed(method, template);
    if (rule !== 'own-fields') expect(sorted(Object.keys(reply.body)), `${where}: ${JSON.stringify(reply.body)}`).toEqual(rule.keys);
    return reply.body;
  }

  it('players, tables, files, leaderboards, shop, economy, panel: {ok, data}; sessions add token', async () => {
    const reg = follows('post', '/players/register', await api.post('/players/register',
      { pseudo: 'Enveloppe', email: 'enveloppe@example.test', password: 'motdepasse-solide' }), 201);
    expect(reg.token).toMatch(/^pt_/);
    const token = reg.token as string;
    follows('post', '/players/login', await api.post('/players/login', { identifiant: 'enveloppe', password: 'motdepasse-solide' }));
    follows('post', '/players/invite', await api.post('/players/invite'));
    follows('get', '/players/me', await api.get('/players/me', { token }));

    const row = follows('post', '/tables/{nomTable}', await api.post('/tables/notes', { donnees: { texte: 'salut, "toi" : {a, b}\\ [1, 2]\t' } }, { token }), 201);
    expect(row.data.donnees.texte).toBe('salut, "toi" : {a, b}\\ [1, 2]\t'); // strings keep their spaces
    follows('get', '/tables/{nomTable}', await api.get('/tables/notes'));
    follows('get', '/tables/{nomTable}/{id}', await api.get(`/tables/notes/${row.data.id}`));

    follows('post', '/storage/upload', await api.post('/storage/upload', { nom: 'a.txt', contenu: 'bonjour', mime_type: 'text/plain' }, { token }), 201);
    follows('get', '/storage/files', await api.get('/storage/files', { token }));

    follows('post', '/leaderboards/{id}/submit', await api.post('/leaderboards/points/submit', { valeur: 3 }, { token }));
    follows('get', '/leaderboards/{id}/scores', await api.get('/leaderboards/points/scores'));

    follows('get', '/shop/articles', await api.get('/shop/articles'));
    follows('get', '/panel', await api.get('/panel'));

    // The economy: the payload in data.
    expect(follows('get', '/economie/portefeuille', await api.get('/economie/portefeuille', { token })).data)
      .toEqual([{ code: 'or', nom: 'Or', solde: 100, max: null }]);
    expect(follows('get', '/economie/inventaire', await api.get('/economie/inventaire', { token })).data).toEqual([]);
    const achat = follows('post', '/shop/acheter', await api.post('/shop/acheter', { code: 'potion', quantite: 2 }, { token }));
    expect(achat.data).toEqual({
      achat: { article: 'potion', quantite: 2, prix_total: 20, devise: 'or' },
      portefeuille: [{ code: 'or', nom: 'Or', solde: 80, max: null }],
      inventaire: [{ code: 'potion', nom: 'Potion', quantite: 2, empilable: true, max: 99 }],
    });
    expect(follows('post', '/economie/utiliser', await api.post('/economie/utiliser', { objet: 'potion', quantite: 1 }, { token })).data)
      .toEqual({ inventaire: [{ code: 'potion', nom: 'Potion', quantite: 1, empilable: true, max: 99 }] });
    const page = follows('get', '/economie/historique', await api.get('/economie/historique?limit=2', { token })).data;
    expect(sorted(Object.keys(page))).toEqual(['mouvements', 'suivant']);
    expect(page.mouvements).toHaveLength(2);
    expect(page.suivant).toBe(page.mouvements[1].id);
    const rest = follows('get', '/economie/historique', await api.get(`/economie/historique?avant=${page.suivant}`, { token })).data;
    expect(rest.suivant).toBeNull();

    follows('get', '/players/me/export', await api.get('/players/me/export', { token }));
    follows('post', '/players/logout', await api.post('/players/logout', undefined, { token }));
  });

  it('an Idempotency-Key replay answers the first answer, in the same envelope', async () => {
    const { token } = await api.register('Rejoue');
    const headers = { 'idempotency-key': 'enveloppe-achat-1' };
    const first = follows('post', '/shop/acheter', await api.post('/shop/acheter', { code: 'potion' }, { token, headers }));
    const again = follows('post', '/shop/acheter', await api.post('/shop/acheter', { code: 'potion' }, { token, headers }));
    expect(again).toEqual(first);
    expect(first.data.inventaire).toEqual([expect.objectContaining({ code: 'potion', quantite: 1 })]);
    const use = { 'idempotency-key': 'enveloppe-utiliser-1' };
    const used = follows('post', '/economie/utiliser', await api.post('/economie/utiliser', { objet: 'potion', quantite: 1 }, { token, headers: use }));
    expect(used).toEqual({ ok: true, data: { inventaire: [] } });
    expect(follows('post', '/economie/utiliser', await api.post('/economie/utiliser', { objet: 'potion', quantite: 1 }, { token, headers: use })))
      .toEqual(used);
    expect(follows('get', '/economie/portefeuille', await api.get('/economie/portefeuille', { token })).data[0].solde).toBe(90);
  });

  it('the exceptions answer their own fields beside ok', async () => {
    const { token } = await api.register('Exception');
    const rival = (await api.register('Rivale')).token;
    expect(follows('get', '/matchmaking/status', await api.get('/matchmaking/status', { token })).status).toBe('idle');
    expect(follows('post', '/matchmaking/join', await api.post('/matchmaking/join', { mode_jeu: 'duel', elo_actuel: 1000 }, { token })).status).toBe('waiting');
    const matched = follows('post', '/matchmaking/join', await api.post('/matchmaking/join', { mode_jeu: 'duel', elo_actuel: 1000 }, { token: rival }));
    expect(matched.status).toBe('matched');
    expect(follows('get', '/match/state', await api.get(`/match/state?partie_id=${matched.partie_id}`, { token })).partie.id).toBe(matched.partie_id);
    expect(follows('get', '/realtime/config', await api.get('/realtime/config')).url).toEqual(expect.any(String));
  });
});
