// validation_failed and invalid_query over real HTTP: each field's message is a readable
// sentence naming the field, in English when Accept-Language prefers it, in French otherwise
// (the API's default, docs/api.md);
// zod's own texts ("Trop petit : chaîne de caractères doit avoir >=1 caractères") never
// reach a player (issue 19).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, minimalGame, startTestApp, type TestApp } from './support/harness.js';

let app: TestApp;
let api: ReturnType<typeof client>;
let token: string;

beforeAll(async () => {
  app = await startTestApp();
  api = client(app.baseUrl, await app.applyGame(minimalGame('validation-jeu', {
    classements: { points: {} },
    tables: { notes: { colonnes: { texte: { type: 'text' } }, lecture: 'public', ecriture: 'joueurs' } },
    modes: { duel: { equipes: 2, joueurs_par_equipe: 1, regles: 'libre' } },
  })));
  token = (await api.register('Valide')).token;
});
afterAll(async () => { await app?.close(); });

const FR = { 'accept-language': 'fr-CA,fr;q=0.9' };
const EN = { 'accept-language': 'en-US,en;q=0.9' };
// What zod's locales write (French and English): none of it may be sent.
const RAW = /Trop (petit|grand)|Too (small|big)|Invalid (input|option|string)|Entrée invalide|>=|<=|expected (string|number)/;

type Case = {
  name: string; method: 'GET' | 'POST'; path: string; body?: unknown; player?: boolean;
  error: 'validation_failed' | 'invalid_query';
  fr: Array<[champ: string, message: string]>; en: Array<[champ: string, message: string]>;
};

const CASES: Case[] = [
  {
    name: 'too short (an empty string)', method: 'POST', path: '/players/login', body: { identifiant: 'x', password: '' },
    error: 'validation_failed',
    fr: [['password', 'password ne doit pas être vide']], en: [['password', 'password must not be empty']],
  },
  {
    name: 'too long', method: 'POST', path: '/players/login', body: { identifiant: 'x'.repeat(255), password: 'p' },
    error: 'validation_failed',
    fr: [['identifiant', 'identifiant doit avoir au plus 254 caractères']],
    en: [['identifiant', 'identifiant must have at most 254 characters']],
  },
  {
    name: 'wrong type', method: 'POST', path: '/players/login', body: { identifiant: 'x', password: 12345678 },
    error: 'validation_failed',
    fr: [['password', 'password doit être une chaîne de caractères']], en: [['password', 'password must be a string']],
  },
  {
    name: 'missing field', method: 'POST', path: '/players/register', body: { pseudo: 'Nouveau', email: 'nouveau@example.test' },
    error: 'validation_failed',
    fr: [['password', 'password est obligatoire']], en: [['password', 'password is required']],
  },
  {
    name: 'bad format (e-mail) and bad pattern (pseudo, the schema\'s own text)', method: 'POST', path: '/players/register',
    body: { pseudo: 'a b', email: 'pas-une-adresse', password: 'motdepasse-solide' },
    error: 'validation_failed',
    fr: [['pseudo', '3 à 32 caractères : lettres, chiffres, _ - .'], ['email', 'email doit être une adresse e-mail valide']],
    en: [['pseudo', '3 to 32 characters: letters, digits, _ - .'], ['email', 'email must be a valid e-mail address']],
  },
  {
    name: 'number too big, and too small, in a player route', method: 'POST', path: '/matchmaking/join', player: true,
    body: { mode_jeu: '', elo_actuel: 20000 },
    error: 'validation_failed',
    fr: [['mode_jeu', 'mode_jeu ne doit pas être vide'], ['elo_actuel', 'elo_actuel doit valoir au plus 10000']],
    en: [['mode_jeu', 'mode_jeu must not be empty'], ['elo_actuel', 'elo_actuel must be at most 10000']],
  },
  {
    name: 'a body that is not an object', method: 'POST', path: '/players/login', body: [],
    error: 'validation_failed',
    fr: [['', 'le corps de la requête doit être un objet']], en: [['', 'the request body must be an object']],
  },
  {
    name: 'a value outside a list (query string)', method: 'GET', path: '/tables/notes?order_dir=haut',
    error: 'invalid_query',
    fr: [['order_dir', 'order_dir doit valoir "asc" ou "desc"']], en: [['order_dir', 'order_dir must be "asc" or "desc"']],
  },
  {
    name: 'an unknown query parameter', method: 'GET', path: '/leaderboards/points/scores?limit=5&page=2',
    error: 'invalid_query',
    fr: [['page', 'page n’est pas un champ accepté']], en: [['page', 'page is not an accepted field']],
  },
  {
    name: 'a query parameter out of range', method: 'GET', path: '/leaderboards/points/scores?limit=500',
    error: 'invalid_query',
    fr: [['limit', 'limit doit valoir au plus 100']], en: [['limit', 'limit must be at most 100']],
  },
];

describe('validation messages name the field, in the player\'s language', () => {
  it.each(CASES)('$name', async (c) => {
    for (const [lang, headers, expected] of [['fr', FR, c.fr], ['en', EN, c.en], ['none (French, the API\'s default)', {}, c.fr]] as const) {
      const r = await api.request(c.method, c.path, { body: c.body, headers, token: c.player ? token : undefined });
      expect(r.status, `${lang} ${JSON.stringify(r.body)}`).toBe(400);
      expect(r.body).toMatchObject({ ok: false, error: c.error });
      const got = (r.body.details as Array<{ champ: string; message: string }>).map((d) => [d.champ, d.message]);
      expect(got, lang).toEqual(expected);
      for (const [, message] of got) expect(message).not.toMatch(RAW);
    }
  });
});
