// Look-alike pseudos (issue 31, decided in docs/accounts.md): a pseudo that passes for
// another one is refused at register and at link, with the validation envelope naming the
// field: full-width or styled letters (the NFKC form differs) and letters of two scripts
// that look alike (a Cyrillic а among Latin letters). Names of one script, and Japanese or
// Korean written with ideographs, stay accepted.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, minimalGame, startTestApp, type Reply, type TestApp } from './support/harness.js';

let app: TestApp;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  app = await startTestApp();
  api = client(app.baseUrl, await app.applyGame(minimalGame('sosies')));
});
afterAll(async () => { await app?.close(); });

const uniq = () => randomBytes(4).toString('hex');
const register = (pseudo: string, headers?: Record<string, string>) => api.post('/players/register',
  { pseudo, email: `${uniq()}@example.test`, password: 'motdepasse-solide' }, { headers });
function refused(r: Reply, message: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(400);
  expect(r.body).toMatchObject({ ok: false, error: 'validation_failed' });
  expect(r.body.details).toContainEqual({ champ: 'pseudo', message });
}

describe('look-alike pseudos', () => {
  it('refuses full-width and styled letters, and mixed scripts, in French and English', async () => {
    refused(await register('Ｚｏｅ42'), 'pseudo trompeur : lettres pleine chasse ou stylisées');
    refused(await register('𝐙𝐨𝐞_42'), 'pseudo trompeur : lettres pleine chasse ou stylisées');
    refused(await register('ﬁnal_boss'), 'pseudo trompeur : lettres pleine chasse ou stylisées');
    refused(await register('pаypal'), 'pseudo trompeur : écritures mélangées'); // а is Cyrillic
    refused(await register('Αdmin'), 'pseudo trompeur : écritures mélangées'); // Α is Greek
    refused(await register('pаypal', { 'accept-language': 'en' }), 'misleading pseudo: letters of mixed scripts');
  });

  it('accepts names of one script, digits and signs, and Japanese or Korean with ideographs', async () => {
    for (const pseudo of [`Zoé_${uniq()}`, `Алиса${Date.now() % 1000}`, 'Σωκράτης', '山田たろう', 'カタカナ漢字', '김민준', '金민준', `x.y-${uniq()}`]) {
      const r = await register(pseudo);
      expect(r.status, `${pseudo}: ${JSON.stringify(r.body)}`).toBe(201);
    }
  });

  it('a guest linking an account is held to the same rule, and changes nothing when refused', async () => {
    const guest = await api.post('/players/invite', {});
    expect(guest.status).toBe(200);
    const token = guest.body.token as string;
    const r = await api.post('/players/lier', { pseudo: 'Ｍａｘ', email: `${uniq()}@example.test`, password: 'motdepasse-solide' }, { token });
    refused(r, 'pseudo trompeur : lettres pleine chasse ou stylisées');
    expect((await api.get('/players/me', { token })).body.data.joueur.invite).toBe(true);
  });
});
