// The server's names (issue 31, point 1; docs/accounts.md, "Names the server gives"): a
// tombstone (`supprime-…`) and a guest (`invite_…`) carry names no player can choose, and an
// erasure never fails on a name. Before: registering `supprime-<first 12 hex of an id>` (ids
// are public) made that player's deletion answer 500 (players_game_pseudo_key) for good, in
// any case and through POST /players/lier too.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, minimalGame, startTestApp, type Reply, type TestApp } from './support/harness.js';

let app: TestApp;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  app = await startTestApp();
  api = client(app.baseUrl, await app.applyGame(minimalGame('noms-serveur')));
});
afterAll(async () => { await app?.close(); });

const uniq = () => randomBytes(4).toString('hex');
const hex = (id: string) => id.replaceAll('-', '');
function expectReserved(r: Reply, lang: 'fr' | 'en' = 'fr') {
  expect(r.status, JSON.stringify(r.body)).toBe(400);
  expect(r.body).toMatchObject({ ok: false, error: 'validation_failed' });
  const detail = r.body.details.find((d: any) => d.champ === 'pseudo');
  expect(detail?.message, JSON.stringify(r.body)).toBe(lang === 'fr'
    ? 'pseudo réservé : supprime-… et invite_… sont des noms du serveur'
    : 'reserved pseudo: supprime-… and invite_… are names of the server');
}
const registerRaw = (pseudo: string, headers?: Record<string, string>) => api.post('/players/register',
  { pseudo, email: `${uniq()}@example.test`, password: 'motdepasse-solide' }, { headers });
const erase = (token: string) => api.post('/players/me/supprimer', { password: 'motdepasse-solide' }, { token });

describe('reserved prefixes', () => {
  it('register refuses supprime-… and invite_…, in any case, with the validation envelope (French and English)', async () => {
    const victim = await api.register(`victime_${uniq()}`);
    const tomb = `supprime-${hex(victim.data.joueur.id).slice(0, 12)}`;
    for (const pseudo of [tomb, tomb.toUpperCase(), 'Supprime-x', 'invite_123456', 'INVITE_999999', 'Invite_abc']) {
      expectReserved(await registerRaw(pseudo));
    }
    expectReserved(await registerRaw('SUPPRIME-abc', { 'accept-language': 'en' }), 'en');
    // Names that only look alike stay free.
    for (const pseudo of [`supprimer_${uniq()}`, `invite-${uniq()}`, `re_supprime-${uniq()}`]) {
      expect((await registerRaw(pseudo)).status).toBe(201);
    }
    expect((await erase(victim.token)).status).toBe(200);
  });

  it('the SQL refuses them too (a caller that skipped the façade)', async () => {
    const rows = await app.sql(`select manette.pseudo_is_reserved(p) as r from unnest($1::text[]) p`,
      [['supprime-abc', 'SUPPRIME-abc', 'Invite_1', 'supprimé-abc', 'invite-1', 'joueur']]);
    expect(rows.map((x: any) => x.r)).toEqual([true, true, true, false, false, false]);
    // A first Google login named like one of them gets the default name (api.players_google).
    const names = await app.sql(`select manette.pseudo_from_name(n) as p from unnest($1::text[]) n`, [['Supprime-Moi', 'INVITE_42', 'Zoé']]);
    expect(names.map((x: any) => x.p)).toEqual(['joueur', 'joueur', 'Zoe']);
  });

  it('a guest cannot link with a reserved pseudo; linking without one keeps its own', async () => {
    const victim = await api.register(`victime_${uniq()}`);
    const g = (await api.post('/players/invite', {})).body;
    const r = await api.post('/players/lier', {
      pseudo: `SUPPRIME-${hex(victim.data.joueur.id).slice(0, 12)}`, email: `${uniq()}@example.test`, password: 'motdepasse-solide',
    }, { token: g.token });
    expectReserved(r);
    expect((await app.sql('select guest from manette.players where id = $1', [g.data.joueur.id]))[0]!.guest).toBe(true);
    const ok = await api.post('/players/lier', { email: `${uniq()}@example.test`, password: 'motdepasse-solide' }, { token: g.token });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.data.joueur.pseudo).toBe(g.data.joueur.pseudo);
    expect((await erase(victim.token)).status).toBe(200);
  });
});

describe('an erasure never fails on a name', () => {
  it('players already holding supprime-… names (taken before the reservation) do not block a deletion', async () => {
    const victim = await api.register(`victime_${uniq()}`);
    const h = hex(victim.data.joueur.id);
    const gameId = (await app.sql('select game_id from manette.players where id = $1', [victim.data.joueur.id]))[0]!.game_id;
    // As they were before the reservation: inserted with the names an erasure could pick.
    for (const squat of [`supprime-${h.slice(0, 12)}`, `SUPPRIME-${h.slice(0, 23)}`]) {
      await app.sql('insert into manette.players (game_id, pseudo) values ($1, $2)', [gameId, squat]);
    }
    const r = await erase(victim.token);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const row = (await app.sql('select pseudo, deleted_at from manette.players where id = $1', [victim.data.joueur.id]))[0]!;
    expect(row.deleted_at).not.toBeNull();
    expect(row.pseudo).toBe(`supprime-${h}`);
  });

  it('the tombstone name is the whole id: no valid pseudo (at most 32 characters) can equal it', async () => {
    const victim = await api.register(`victime_${uniq()}`);
    expect((await erase(victim.token)).status).toBe(200);
    const [row] = await app.sql('select pseudo from manette.players where id = $1', [victim.data.joueur.id]);
    expect(row!.pseudo).toMatch(/^supprime-[0-9a-f]{32}$/);
    // A tombstone name is accepted for a tombstone only, and only its own.
    const [g] = await app.sql('select game_id from manette.players where id = $1', [victim.data.joueur.id]);
    await expect(app.sql('insert into manette.players (game_id, pseudo) values ($1, $2)', [g!.game_id, `supprime-${'0'.repeat(32)}`]))
      .rejects.toThrow(/players_pseudo_check/);
  });
});
