// GET /leaderboards: a client lists the game's boards without knowing their ids (issue 31):
// id, name, order, operator, reset and the current period; a retired board is gone; only
// this game's boards; a missing key is refused as everywhere.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from './support/harness.js';

let app: TestApp;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  app = await startTestApp();
  api = client(app.baseUrl, await app.applyGame({
    jeu: 'liste-classements', nom: 'Liste',
    classements: {
      score: { nom: 'Meilleur score' },
      jour: { ordre: 'asc', operateur: 'dernier', reinitialisation: 'quotidienne' },
      mois: { operateur: 'somme', reinitialisation: 'mensuelle' },
    },
  }));
  await app.applyGame({ jeu: 'autre-jeu', nom: 'Autre', classements: { secret: {} } });
});
afterAll(async () => { await app?.close(); });

describe('GET /leaderboards', () => {
  it('lists the game\'s boards by id, with their order, operator and current period', async () => {
    const r = await api.get('/leaderboards');
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['ok', 'data']);
    const now = new Date();
    const day = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
    const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
    const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    const iso = (d: Date) => d.toISOString().replace('.000Z', 'Z');
    expect(r.body.data).toEqual([
      { id: 'jour', nom: null, ordre: 'asc', operateur: 'dernier', reinitialisation: 'quotidienne',
        periode_debut: expect.any(String), periode_fin: expect.any(String) },
      { id: 'mois', nom: null, ordre: 'desc', operateur: 'somme', reinitialisation: 'mensuelle',
        periode_debut: expect.any(String), periode_fin: expect.any(String) },
      { id: 'score', nom: 'Meilleur score', ordre: 'desc', operateur: 'meilleur', reinitialisation: 'aucune', periode_debut: null, periode_fin: null },
    ]);
    const [jour, mois] = r.body.data;
    // Around midnight UTC the day may turn between the two reads: either day's bounds.
    expect([iso(day), iso(new Date(day.getTime() + 86_400_000))]).toContain(jour.periode_debut.replace(/\.\d+Z$/, 'Z'));
    expect(Date.parse(jour.periode_fin) - Date.parse(jour.periode_debut)).toBe(86_400_000);
    expect(mois.periode_debut.replace(/\.\d+Z$/, 'Z')).toBe(iso(month));
    expect(mois.periode_fin.replace(/\.\d+Z$/, 'Z')).toBe(iso(nextMonth));
  });

  it('a retired board is not listed; another game\'s never is; a missing key is refused', async () => {
    await app.applyGame({ jeu: 'liste-classements', nom: 'Liste', classements: { score: { nom: 'Meilleur score' } } });
    expect((await api.get('/leaderboards')).body.data.map((b: { id: string }) => b.id)).toEqual(['score']);
    const none = await api.get('/leaderboards', { key: null });
    expect([none.status, none.body.error]).toEqual([401, 'missing_key']);
  });
});
