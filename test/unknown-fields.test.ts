// A body field the endpoint does not know is reported, not dropped (docs/api.md, "Unknown
// fields"): `country` sent for `pays` is validation_failed naming `country`, as a table
// reports an unknown column (and as a query parameter it does not read already was), and
// nothing is written.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, minimalGame, startTestApp, type TestApp } from './support/harness.js';

let app: TestApp;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  app = await startTestApp();
  api = client(app.baseUrl, await app.applyGame(minimalGame('champs-inconnus')));
});
afterAll(async () => { await app?.close(); });

const uniq = () => randomBytes(4).toString('hex');

describe('unknown body fields', () => {
  it('register: `country` for `pays` is refused, naming it, in French and English; nothing is written', async () => {
    const pseudo = `pays_${uniq()}`;
    const body = { pseudo, email: `${pseudo}@example.test`, password: 'motdepasse-solide', country: 'FR' };
    const fr = await api.post('/players/register', body);
    expect(fr.status).toBe(400);
    expect(fr.body).toMatchObject({ ok: false, error: 'validation_failed', details: [{ champ: 'country', message: 'country n’est pas un champ accepté' }] });
    const en = await api.post('/players/register', body, { headers: { 'accept-language': 'en' } });
    expect(en.body.details).toEqual([{ champ: 'country', message: 'country is not an accepted field' }]);
    expect(await app.sql('select count(*)::int as n from manette.players where pseudo = $1', [pseudo])).toEqual([{ n: 0 }]);
    // The right name is accepted.
    const { country: _c, ...good } = body;
    const ok = await api.post('/players/register', { ...good, pays: 'fr' });
    expect(ok.status).toBe(201);
    expect(ok.body.data.joueur.pays).toBe('FR');
  });

  it('the same everywhere: a matchmaking join, a leaderboard submit', async () => {
    const { token } = await api.register(`champ_${uniq()}`);
    const join = await api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1000, elo: 1000 }, { token });
    expect(join.status).toBe(400);
    expect(join.body.details).toEqual([{ champ: 'elo', message: 'elo n’est pas un champ accepté' }]);
    const submit = await api.post('/leaderboards/inconnu/submit', { valeur: 1, score: 2 }, { token });
    expect(submit.body).toMatchObject({ error: 'validation_failed', details: [{ champ: 'score' }] });
  });

});
