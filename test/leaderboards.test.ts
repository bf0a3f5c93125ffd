// Leaderboards (docs/leaderboards.md) over real HTTP: submission and its operators, atomic
// concurrent submissions, listing with competition ranking, autour=moi, periods, config
// changes, every error path; the bucket counters under concurrent writers (hot and
// crossing counters, no retries); and, with a large board, plans that touch a bounded
// number of index entries whatever the rank or the offset.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, minimalGame, startTestApp, twinAdminUrlOf, type TestApp } from './support/harness.js';
import { planLoggingClient } from '../twin/postgres/plans.js';

const BOARDS = {
  score: {},
  temps: { ordre: 'asc' },
  dernier: { operateur: 'dernier' },
  total: { operateur: 'somme' },
  borne: { valeur_min: 0, valeur_max: 100 },
  plancher: { valeur_min: -10 },
  classique: {},
  fenetre: {},
  jour: { reinitialisation: 'quotidienne' },
  evolutif: {},
  ephemere: {},
  grand: {},
  foule: {},
  bascule: { operateur: 'dernier' },
};
const GAME = minimalGame('classements', { classements: BOARDS });

let app: TestApp;
let key: string;
let keyB: string;
let api: ReturnType<typeof client>;
const players: Record<string, { token: string; id: string }> = {};

async function player(pseudo: string) {
  if (!players[pseudo]) {
    const r = await api.register(pseudo);
    players[pseudo] = { token: r.token, id: r.data.joueur.id };
  }
  return players[pseudo]!;
}

const submit = async (board: string, pseudo: string, valeur: unknown) =>
  api.post(`/leaderboards/${board}/submit`, { valeur }, { token: (await player(pseudo)).token });

/** "pseudo:rang:valeur ..." in listing order. */
const view = (data: { pseudo: string; rang: number; valeur: number }[]) =>
  data.map((s) => `${s.pseudo}:${s.rang}:${s.valeur}`).join(' ');

beforeAll(async () => {
  app = await startTestApp();
  key = await app.applyGame(GAME);
  keyB = await app.applyGame(minimalGame('classements-b', { classements: { seulement_b: {} } }));
  api = client(app.baseUrl, key);
});
afterAll(async () => { await app?.close(); });

describe('POST /leaderboards/:id/submit', () => {
  it('returns the kept value, its rank and whether the submission changed it', async () => {
    const first = await submit('score', 'Alice', 10);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ ok: true, data: { valeur: 10, rang: 1, ameliore: true } });
    expect((await submit('score', 'Alice', 5)).body.data).toEqual({ valeur: 10, rang: 1, ameliore: false });
    expect((await submit('score', 'Alice', 12.75)).body.data).toEqual({ valeur: 12.75, rang: 1, ameliore: true });
    expect((await submit('score', 'Bruno', 11)).body.data).toEqual({ valeur: 11, rang: 2, ameliore: true });
    expect((await submit('score', 'Alice', -3)).body.data).toEqual({ valeur: 12.75, rang: 1, ameliore: false });
  });

  it('applies the operator: meilleur asc, dernier, somme', async () => {
    expect((await submit('temps', 'Alice', 61.5)).body.data).toEqual({ valeur: 61.5, rang: 1, ameliore: true });
    expect((await submit('temps', 'Alice', 70)).body.data).toEqual({ valeur: 61.5, rang: 1, ameliore: false });
    expect((await submit('temps', 'Alice', 59)).body.data).toEqual({ valeur: 59, rang: 1, ameliore: true });

    expect((await submit('dernier', 'Alice', 40)).body.data).toEqual({ valeur: 40, rang: 1, ameliore: true });
    expect((await submit('dernier', 'Alice', 15)).body.data).toEqual({ valeur: 15, rang: 1, ameliore: true });
    expect((await submit('dernier', 'Alice', 15)).body.data).toEqual({ valeur: 15, rang: 1, ameliore: false });

    expect((await submit('total', 'Alice', 0.1)).body.data).toEqual({ valeur: 0.1, rang: 1, ameliore: true });
    expect((await submit('total', 'Alice', 0.2)).body.data).toEqual({ valeur: 0.1 + 0.2, rang: 1, ameliore: true });
    expect((await submit('total', 'Alice', 0)).body.data.ameliore).toBe(false);
  });

  it('keeps values as exact doubles', async () => {
    for (const v of [Number.MAX_SAFE_INTEGER, 1e300, -1e-300, 5e-324, 1234567890.1234567]) {
      expect((await submit('dernier', 'Doubles', v)).body.data.valeur).toBe(v);
    }
  });

  it('100 concurrent somme submissions of 1 by one player give exactly 100', async () => {
    const { token, id } = await player('Rafale');
    const replies = await Promise.all(Array.from({ length: 100 }, () =>
      api.post('/leaderboards/total/submit', { valeur: 1 }, { token })));
    expect(replies.map((r) => r.status)).toEqual(Array(100).fill(200));
    // Each submission saw its own total: the updates were serialized, none was lost.
    expect(replies.map((r) => r.body.data.valeur).sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(replies.every((r) => r.body.data.ameliore === true)).toBe(true);
    const rows = await app.sql(`select e.value from manette.leaderboard_entries e join manette.leaderboards l on l.id = e.leaderboard_id
                                where l.code = 'total' and e.player_id = $1`, [id]);
    expect(rows).toEqual([{ value: 100 }]);
  });

  it('concurrent first submissions of one player create one entry', async () => {
    const { token, id } = await player('Jumeau');
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) =>
      api.post('/leaderboards/score/submit', { valeur: i }, { token })));
    expect(replies.every((r) => r.status === 200)).toBe(true);
    expect(replies.filter((r) => r.body.data.valeur === 19)).not.toHaveLength(0);
    const rows = await app.sql(`select e.value from manette.leaderboard_entries e join manette.leaderboards l on l.id = e.leaderboard_id
                                where l.code = 'score' and e.player_id = $1`, [id]);
    expect(rows).toEqual([{ value: 19 }]);
  });

  describe('errors', () => {
    it('missing_key, invalid_key (401)', async () => {
      const { token } = await player('Alice');
      const none = await api.post('/leaderboards/score/submit', { valeur: 1 }, { token, key: null });
      expect(none.status).toBe(401);
      expect(none.body).toMatchObject({ ok: false, error: 'missing_key' });
      const bad = await api.post('/leaderboards/score/submit', { valeur: 1 }, { token, key: `sk_live_${'Z'.repeat(40)}` });
      expect(bad.status).toBe(401);
      expect(bad.body.error).toBe('invalid_key');
    });

    it('missing_player without a token, invalid_token with a bad one or one of another game (401)', async () => {
      const none = await api.post('/leaderboards/score/submit', { valeur: 1 });
      expect(none.status).toBe(401);
      expect(none.body.error).toBe('missing_player');
      const bad = await api.post('/leaderboards/score/submit', { valeur: 1 }, { token: `pt_${'x'.repeat(43)}` });
      expect(bad.status).toBe(401);
      expect(bad.body.error).toBe('invalid_token');
      const other = await client(app.baseUrl, keyB).register('Etranger');
      const foreign = await api.post('/leaderboards/score/submit', { valeur: 1 }, { token: other.token });
      expect(foreign.status).toBe(401);
      expect(foreign.body.error).toBe('invalid_token');
    });

    it('leaderboard_not_found (404): unknown board, board of another game, impossible code', async () => {
      const { token } = await player('Alice');
      for (const board of ['inconnu', 'seulement_b', 'SCORE', 'a%00b', 'x'.repeat(200)]) {
        const r = await api.post(`/leaderboards/${board}/submit`, { valeur: 1 }, { token });
        expect(r.status, board).toBe(404);
        expect(r.body).toMatchObject({ ok: false, error: 'leaderboard_not_found', message: 'Classement introuvable.' });
      }
      const en = await api.post('/leaderboards/inconnu/submit', { valeur: 1 }, { token, headers: { 'accept-language': 'en' } });
      expect(en.body.message).toBe('Leaderboard not found.');
    });

    it.each([
      ['no valeur', {}],
      ['a string', { valeur: '12' }],
      ['null', { valeur: null }],
      ['a boolean', { valeur: true }],
      ['an unknown field', { valeur: 1, value: 1 }],
    ])('validation_failed (400) for %s, naming the field', async (_label, body) => {
      const r = await api.post('/leaderboards/score/submit', body, { token: (await player('Alice')).token });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ ok: false, error: 'validation_failed' });
      expect(r.body.details.length).toBeGreaterThan(0);
      // An unknown field is reported under its own name (api/http/validation.ts).
      expect(r.body.details[0].champ).toMatch(/^(valeur|value)$/);
    });

    it('validation_failed for a number JSON cannot hold as a finite double (1e400)', async () => {
      const r = await api.request('POST', '/leaderboards/score/submit', {
        raw: '{"valeur": 1e400}', headers: { 'content-type': 'application/json' }, token: (await player('Alice')).token,
      });
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('validation_failed');
      expect(r.body.details[0].champ).toBe('valeur');
    });

    it('validation_failed outside valeur_min / valeur_max, with details, and nothing stored', async () => {
      const { id } = await player('Bornee');
      for (const [board, v, text] of [
        ['borne', -0.5, 'doit être comprise entre 0 et 100'],
        ['borne', 100.01, 'doit être comprise entre 0 et 100'],
        ['plancher', -11, 'doit être au moins -10'],
      ] as const) {
        const r = await submit(board, 'Bornee', v);
        expect(r.status).toBe(400);
        expect(r.body).toMatchObject({ ok: false, error: 'validation_failed', details: [{ champ: 'valeur', message: text }] });
      }
      expect(await app.sql('select 1 from manette.leaderboard_entries where player_id = $1', [id])).toHaveLength(0);
      expect((await submit('borne', 'Bornee', 0)).body.data.valeur).toBe(0);
      expect((await submit('borne', 'Bornee', 100)).body.data.valeur).toBe(100);
      expect((await submit('plancher', 'Bornee', 1e9)).body.data.valeur).toBe(1e9);
    });

    it('validation_failed when a sum would leave double precision', async () => {
      expect((await submit('total', 'Enorme', 1.7e308)).status).toBe(200);
      const r = await submit('total', 'Enorme', 1.7e308);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ error: 'validation_failed', details: [{ champ: 'valeur' }] });
      expect((await submit('total', 'Enorme', -1.7e308)).body.data).toEqual({ valeur: 0, rang: expect.any(Number), ameliore: true });
    });

    it('invalid_json (400) and unsupported_media_type (415)', async () => {
      const { token } = await player('Alice');
      const broken = await api.request('POST', '/leaderboards/score/submit', { raw: '{"valeur": ', token, headers: { 'content-type': 'application/json' } });
      expect(broken.status).toBe(400);
      expect(broken.body.error).toBe('invalid_json');
      const text = await api.request('POST', '/leaderboards/score/submit', { raw: 'valeur=3', token, headers: { 'content-type': 'text/plain' } });
      expect(text.status).toBe(415);
      expect(text.body.error).toBe('unsupported_media_type');
    });
  });
});

describe('GET /leaderboards/:id/scores', () => {
  beforeAll(async () => {
    // classique (desc): Ana 30, Ben 20 (first), Cid 20 (later), Dan 10; Ana submits again.
    await submit('classique', 'Ana', 25);
    await submit('classique', 'Ben', 20);
    await submit('classique', 'Cid', 20);
    await submit('classique', 'Dan', 10);
    await submit('classique', 'Ana', 30);
    await submit('classique', 'Ana', 1);
  });

  it('lists one entry per player with competition ranking; equal values by who reached them first', async () => {
    const r = await api.get('/leaderboards/classique/scores');
    expect(r.status).toBe(200);
    expect(r.body.ok).toBe(true);
    expect(view(r.body.data)).toBe('Ana:1:30 Ben:2:20 Cid:2:20 Dan:4:10');
    const [ana] = r.body.data;
    expect(Object.keys(ana).sort()).toEqual(['joueur_id', 'maj_le', 'pseudo', 'rang', 'valeur']);
    expect(ana.joueur_id).toBe(players.Ana!.id);
    expect(ana.maj_le).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('keeps the reached-first order when the later player resubmits the same value', async () => {
    await submit('classique', 'Cid', 20);
    expect(view((await api.get('/leaderboards/classique/scores')).body.data)).toBe('Ana:1:30 Ben:2:20 Cid:2:20 Dan:4:10');
  });

  it('needs the key only, and ignores a token without autour', async () => {
    expect((await api.get('/leaderboards/classique/scores', { token: `pt_${'x'.repeat(43)}` })).status).toBe(200);
  });

  it('pages with limit and offset; a page inside a tie keeps the shared rank', async () => {
    expect(view((await api.get('/leaderboards/classique/scores?limit=2')).body.data)).toBe('Ana:1:30 Ben:2:20');
    expect(view((await api.get('/leaderboards/classique/scores?limit=2&offset=2')).body.data)).toBe('Cid:2:20 Dan:4:10');
    expect(view((await api.get('/leaderboards/classique/scores?offset=3')).body.data)).toBe('Dan:4:10');
    expect((await api.get('/leaderboards/classique/scores?offset=4')).body.data).toEqual([]);
    expect((await api.get('/leaderboards/ephemere/scores')).body).toEqual({ ok: true, data: [] });
  });

  it('returns 10 entries by default and at most 100', async () => {
    await app.sql(`
      with g as (select id from manette.games where slug = 'classements'),
           p as (insert into manette.players (game_id, pseudo) select g.id, 'masse_' || i from g, generate_series(1, 120) i returning id, game_id, pseudo)
      insert into manette.leaderboard_entries (leaderboard_id, period_start, player_id, game_id, value, sort_key, reached_at)
      select l.id, '-infinity', p.id, p.game_id, substr(p.pseudo, 7)::int, -substr(p.pseudo, 7)::int, now()
      from p join manette.leaderboards l on l.game_id = p.game_id and l.code = 'fenetre'`);
    const byDefault = await api.get('/leaderboards/fenetre/scores');
    expect(byDefault.body.data).toHaveLength(10);
    expect(byDefault.body.data[0]).toMatchObject({ pseudo: 'masse_120', rang: 1, valeur: 120 });
    const max = await api.get('/leaderboards/fenetre/scores?limit=100&offset=50');
    expect(max.body.data).toHaveLength(70);
    expect(max.body.data[0]).toMatchObject({ rang: 51, valeur: 70 });
  });

  it('autour=moi returns the window of limit entries centred on the caller', async () => {
    const moi = async (pseudo: string, limit: number) =>
      view((await api.get(`/leaderboards/classique/scores?autour=moi&limit=${limit}`, { token: (await player(pseudo)).token })).body.data);
    expect(await moi('Ben', 3)).toBe('Ana:1:30 Ben:2:20 Cid:2:20');
    expect(await moi('Cid', 3)).toBe('Ben:2:20 Cid:2:20 Dan:4:10');
    expect(await moi('Ana', 3)).toBe('Ana:1:30 Ben:2:20 Cid:2:20');   // at the top: extends below
    expect(await moi('Dan', 3)).toBe('Ben:2:20 Cid:2:20 Dan:4:10');   // at the bottom: extends above
    expect(await moi('Dan', 10)).toBe('Ana:1:30 Ben:2:20 Cid:2:20 Dan:4:10');
    expect(await moi('Cid', 1)).toBe('Cid:2:20');
    // On a longer board: 4 before, the caller, 5 after.
    const { token } = await player('Milieu');
    await app.sql(`insert into manette.leaderboard_entries (leaderboard_id, period_start, player_id, game_id, value, sort_key, reached_at)
                   select l.id, '-infinity', $1, l.game_id, 60.5, -60.5, now() from manette.leaderboards l where l.code = 'fenetre'`,
    [players.Milieu!.id]);
    const around = await api.get('/leaderboards/fenetre/scores?autour=moi', { token });
    expect(around.body.data.map((s: { valeur: number }) => s.valeur)).toEqual([64, 63, 62, 61, 60.5, 60, 59, 58, 57, 56]);
    expect(around.body.data[4]).toMatchObject({ pseudo: 'Milieu', rang: 61 });
    expect(around.body.data[5]).toMatchObject({ rang: 62 });
  });

  it('autour=moi for a player without an entry is an empty list', async () => {
    const r = await api.get('/leaderboards/classique/scores?autour=moi', { token: (await player('Absent')).token });
    expect(r.body).toEqual({ ok: true, data: [] });
  });

  describe('errors', () => {
    it('missing_key, invalid_key (401)', async () => {
      expect((await api.get('/leaderboards/classique/scores', { key: null })).body.error).toBe('missing_key');
      const bad = await api.get('/leaderboards/classique/scores', { key: `sk_live_${'Z'.repeat(40)}` });
      expect(bad.status).toBe(401);
      expect(bad.body.error).toBe('invalid_key');
    });

    it('autour=moi without a token is missing_player, with a bad token invalid_token (401)', async () => {
      const none = await api.get('/leaderboards/classique/scores?autour=moi');
      expect(none.status).toBe(401);
      expect(none.body.error).toBe('missing_player');
      const bad = await api.get('/leaderboards/classique/scores?autour=moi', { token: `pt_${'x'.repeat(43)}` });
      expect(bad.status).toBe(401);
      expect(bad.body.error).toBe('invalid_token');
    });

    it('leaderboard_not_found (404)', async () => {
      for (const board of ['inconnu', 'seulement_b', 'Classique', '%F0%9F%8F%86']) {
        const r = await api.get(`/leaderboards/${board}/scores`);
        expect(r.status, board).toBe(404);
        expect(r.body.error).toBe('leaderboard_not_found');
      }
    });

    it.each([
      'limit=0', 'limit=101', 'limit=abc', 'limit=1.5', 'limit=-1', 'limit=', 'limit=1e1', 'limit=10&limit=20',
      'offset=-1', 'offset=abc', 'offset=1.5', 'offset[a]=1',
      'autour=toi', 'autour=', 'autour=moi&offset=2',
      'order_by=valeur', 'page=2',
    ])('invalid_query (400) for ?%s', async (qs) => {
      const r = await api.get(`/leaderboards/classique/scores?${qs}`, { token: (await player('Ana')).token });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ ok: false, error: 'invalid_query' });
    });
  });
});

describe('periods', () => {
  it('a resetting board serves the current UTC period only and keeps the past ones', async () => {
    const { id } = await player('Quotidien');
    expect((await submit('jour', 'Quotidien', 50)).body.data).toEqual({ valeur: 50, rang: 1, ameliore: true });
    const [row] = await app.sql(`select e.period_start = date_trunc('day', now(), 'UTC') as today
                                 from manette.leaderboard_entries e join manette.leaderboards l on l.id = e.leaderboard_id
                                 where l.code = 'jour' and e.player_id = $1`, [id]);
    expect(row).toEqual({ today: true });
    // The day ends: the stored entry now belongs to yesterday.
    await app.sql(`update manette.leaderboard_entries e set period_start = period_start - interval '1 day',
                   reached_at = reached_at - interval '1 day'
                   from manette.leaderboards l where l.id = e.leaderboard_id and l.code = 'jour'`);
    expect((await api.get('/leaderboards/jour/scores')).body.data).toEqual([]);
    // A lower value than yesterday's best starts today's entry.
    expect((await submit('jour', 'Quotidien', 10)).body.data).toEqual({ valeur: 10, rang: 1, ameliore: true });
    expect(view((await api.get('/leaderboards/jour/scores')).body.data)).toBe('Quotidien:1:10');
    const kept = await app.sql(`select e.value from manette.leaderboard_entries e join manette.leaderboards l on l.id = e.leaderboard_id
                                where l.code = 'jour' and e.player_id = $1 order by e.period_start`, [id]);
    expect(kept).toEqual([{ value: 50 }, { value: 10 }]);
  });
});

describe('config', () => {
  it('applying the same file again changes nothing', async () => {
    const before = await app.sql('select id, ctid::text, updated_at from manette.leaderboards order by id');
    expect(await app.applyGame(GAME)).toBe(key);
    expect(await app.sql('select id, ctid::text, updated_at from manette.leaderboards order by id')).toEqual(before);
  });

  it('changing a board keeps its scores; removing it hides them; declaring it again brings them back', async () => {
    await submit('evolutif', 'Ana', 3);
    await submit('evolutif', 'Ben', 7);
    expect(view((await api.get('/leaderboards/evolutif/scores')).body.data)).toBe('Ben:1:7 Ana:2:3');

    await app.applyGame({ ...GAME, classements: { ...BOARDS, evolutif: { ordre: 'asc', valeur_max: 5 } } });
    expect(view((await api.get('/leaderboards/evolutif/scores')).body.data)).toBe('Ana:1:3 Ben:2:7');
    expect((await submit('evolutif', 'Ben', 6)).body.error).toBe('validation_failed');
    expect((await submit('evolutif', 'Ben', 2)).body.data).toEqual({ valeur: 2, rang: 1, ameliore: true });

    const { evolutif: _gone, ...without } = BOARDS;
    await app.applyGame({ ...GAME, classements: without });
    expect((await api.get('/leaderboards/evolutif/scores')).body.error).toBe('leaderboard_not_found');
    expect((await submit('evolutif', 'Ana', 1)).status).toBe(404);

    await app.applyGame(GAME); // back to desc, no bounds
    expect(view((await api.get('/leaderboards/evolutif/scores')).body.data)).toBe('Ana:1:3 Ben:2:2');
  });
});

describe('OpenAPI', () => {
  it('documents the leaderboard routes, their auth and query parameters', async () => {
    const doc = (await api.get('/openapi.json')).body;
    const submitOp = doc.paths['/leaderboards/{id}/submit'].post;
    const scoresOp = doc.paths['/leaderboards/{id}/scores'].get;
    expect(submitOp.security).toEqual([{ apiKey: [], playerToken: [] }]);
    expect(scoresOp.security).toEqual([{ apiKey: [] }]);
    expect(scoresOp.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['autour', 'id', 'limit', 'offset']);
  });
});

describe('bucket counters under concurrent writers', () => {
  /** Players with sessions, written directly (registering 48 players would only add scrypt time). */
  async function crowd(prefix: string, n: number) {
    const tokens = Array.from({ length: n }, (_, i) => `pt_${`${prefix}${String(i).padStart(3, '0')}`.padEnd(43, 'z')}`);
    await app.sql(`
      with p as (insert into manette.players (game_id, pseudo)
                 select g.id, $2 || lpad(i::text, 3, '0') from manette.games g, generate_series(0, $3::integer - 1) i
                 where g.slug = 'classements' returning id, game_id, pseudo)
      insert into manette.sessions (token_hash, game_id, player_id, expires_at)
      select manette.token_hash(t.token), p.game_id, p.id, now() + interval '1 day'
      from p join unnest($1::text[]) with ordinality t(token, n) on p.pseudo = $2 || lpad((t.n - 1)::text, 3, '0')`,
    [tokens, prefix, n]);
    return tokens;
  }

  /** Counters that differ from the entries they count, on these boards. */
  const drift = async (codes: string[]) => (await app.sql(`
    select count(*)::int as n from (
      select c.leaderboard_id, c.period_start, c.bucket, c.entries from manette.leaderboard_buckets c
      join manette.leaderboards l on l.id = c.leaderboard_id where l.code = any($1)) c
    full join (select e.leaderboard_id, e.period_start, e.bucket, count(*) as n from manette.leaderboard_entries e
               join manette.leaderboards l on l.id = e.leaderboard_id where l.code = any($1) group by 1, 2, 3) x
      using (leaderboard_id, period_start, bucket)
    where coalesce(c.entries, 0) <> coalesce(x.n, 0)`, [codes]))[0]!.n;

  /** rang of every entry of a board, as listed, and as counted naively. */
  async function ranks(code: string) {
    const listed = (await api.get(`/leaderboards/${code}/scores?limit=100`)).body.data as { joueur_id: string; rang: number }[];
    const naive = await app.sql<{ joueur_id: string; rang: number }>(`
      select e.player_id as joueur_id, (rank() over (order by e.sort_key))::int as rang
      from manette.leaderboard_entries e join manette.leaderboards l on l.id = e.leaderboard_id
      where l.code = $1 order by e.sort_key, e.reached_at, e.player_id`, [code]);
    return { listed: listed.map((s) => ({ joueur_id: s.joueur_id, rang: s.rang })), naive };
  }

  it('hot counters and crossing moves: no lost update, no deadlock, exact ranks, without retries', async () => {
    const N = 48;
    const tokens = await crowd('foule_', N);
    // `foule` (meilleur desc): everyone climbs through the same four buckets ([998, 1000),
    // [1000, 1002), [1002, 1004), [1004, 1006)): one hot counter row per step.
    // `bascule` (dernier): even players go 10 → 20 → 10 …, odd ones 20 → 10 → 20 …: at
    // every moment some move between the two counters one way while others move the other
    // way, the order in which two writers could lock two rows crosswise.
    const climb = [999, 1000, 1001.5, 1002, 1003.5, 1004];
    const swing = (i: number, step: number) => ((i + step) % 2 === 0 ? 10 : 20);
    const jobs = (i: number) => climb.flatMap((v, step) => [
      { board: 'foule', valeur: v },
      { board: 'bascule', valeur: swing(i, step) },
    ]);

    // Straight SQL, as the façade's role, with no retry: a deadlock or a serialization
    // failure would surface here instead of being retried by callApi.
    const CONNECTIONS = 12;
    const conns = await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
      const c = new pg.Client({ connectionString: app.databaseUrl });
      await c.connect();
      await c.query('set role manette_api');
      return c;
    }));
    const errors: string[] = [];
    const answers: { board: string; i: number; rang: number; valeur: number }[] = [];
    try {
      await Promise.all(conns.map(async (c, k) => {
        // Connection k runs the players i ≡ k (mod CONNECTIONS), one step of each in turn.
        const mine = Array.from({ length: N }, (_, i) => i).filter((i) => i % CONNECTIONS === k);
        for (let step = 0; step < climb.length * 2; step++) {
          for (const i of mine) {
            const job = jobs(i)[step]!;
            try {
              const { rows } = await c.query('select api.leaderboards_submit($1::jsonb, $2::jsonb) as r', [
                JSON.stringify({ key, token: tokens[i], base_url: 'http://test' }), JSON.stringify({ id: job.board, valeur: job.valeur })]);
              answers.push({ board: job.board, i, rang: rows[0].r.data.rang, valeur: rows[0].r.data.valeur });
            } catch (err) {
              errors.push(`${(err as { code?: string }).code} ${(err as Error).message}`);
            }
          }
        }
      }));
    } finally {
      await Promise.all(conns.map((c) => c.end()));
    }
    expect(errors).toEqual([]);
    expect(answers).toHaveLength(N * climb.length * 2);
    for (const a of answers) expect(a.rang).toBeGreaterThanOrEqual(1);

    // Every counter equals the entries of its bucket: no increment or decrement was lost.
    expect(await drift(['foule', 'bascule'])).toBe(0);
    const counters = await app.sql(`select c.bucket, c.entries from manette.leaderboard_buckets c
                                    join manette.leaderboards l on l.id = c.leaderboard_id where l.code = 'foule' order by c.bucket`);
    expect(counters.map((c) => c.entries)).toEqual([N, 0, 0, 0]); // everyone at 1004; the left buckets keep their row at 0

    // The final ranks from the counters are the naive ones.
    const foule = await ranks('foule');
    expect(foule.listed).toHaveLength(N);
    expect(foule.listed.every((s) => s.rang === 1)).toBe(true);
    expect(foule.listed).toEqual(foule.naive);
    const bascule = await ranks('bascule');
    expect(bascule.listed).toEqual(bascule.naive);
    expect(new Set(bascule.listed.map((s) => s.rang))).toEqual(new Set([1, N / 2 + 1]));
  }, 60_000);

  it('through the façade too: concurrent first submissions into one bucket all count', async () => {
    const tokens = await crowd('ruee_', 60);
    const replies = await Promise.all(tokens.map((token, i) =>
      api.post('/leaderboards/foule/submit', { valeur: 500 + (i % 3) / 4 }, { token })));
    expect(replies.map((r) => r.status)).toEqual(Array(60).fill(200));
    expect(await drift(['foule'])).toBe(0);
    const { listed, naive } = await ranks('foule');
    expect(listed).toEqual(naive.slice(0, 100));
  });
});

describe('a board with many entries', () => {
  const ROWS = Number(process.env.LEADERBOARD_TEST_ROWS ?? 300_000);

  it(`serves top 10, deep pages and ranks from indexes, reading a bounded number of rows (${ROWS.toLocaleString('en')} entries)`, async () => {
    const t0 = Date.now();
    // One insert each: players, then one entry per player (values 0..99,999: ties everywhere).
    await app.sql(`insert into manette.players (game_id, pseudo)
                   select g.id, 'grand_' || i from manette.games g, generate_series(1, $1::integer) i where g.slug = 'classements'`, [ROWS]);
    // The players' statistics now, before the entries: a plan cached while the table was
    // small (the foreign key's check of each entry, prepared once per connection) would
    // otherwise scan 300,000 players for each of 300,000 entries. ANALYZE invalidates it.
    await app.sql('analyze manette.players');
    await app.sql(`insert into manette.leaderboard_entries (leaderboard_id, period_start, player_id, game_id, value, sort_key, reached_at)
                   select l.id, '-infinity', p.id, p.game_id, v.value, -v.value, now() - random() * interval '30 days'
                   from manette.leaderboards l
                   join manette.players p on p.game_id = l.game_id and p.pseudo like 'grand\\_%'
                   cross join lateral (select floor(random() * 100000)::double precision + 0 * length(p.pseudo) as value) v
                   where l.code = 'grand'`);
    await app.sql('vacuum (analyze) manette.players, manette.leaderboard_entries, manette.leaderboard_buckets');
    // Index-only scans need the visibility map; an autovacuum running at the same time
    // can hold the first pass back.
    for (let i = 0; i < 5; i++) {
      const [vm] = await app.sql(`select relallvisible >= relpages * 0.99 as done from pg_class
                                  where oid = 'manette.leaderboard_entries'::regclass`);
      if (vm!.done) break;
      await new Promise((r) => setTimeout(r, 500));
      await app.sql('vacuum manette.leaderboard_entries');
    }
    const loadMs = Date.now() - t0;

    // The bulk insert filled the counters (one statement trigger), exactly.
    const [buckets] = await app.sql<{ rows: number; total: number; largest: number }>(`
      select count(*)::int as rows, sum(c.entries)::int as total, max(c.entries)::int as largest
      from manette.leaderboard_buckets c join manette.leaderboards l on l.id = c.leaderboard_id where l.code = 'grand'`);
    expect(buckets!.total).toBe(ROWS);
    // The bound every call below must respect: one walk over the board's counters, the
    // entries of two buckets (a page's first entry and the first after its ties), a page;
    // far below the size of the board.
    const bound = buckets!.rows + 2 * buckets!.largest + 200;
    expect(bound).toBeLessThan(ROWS / 25);

    // The last player of the board: its rank was a count of nearly every entry.
    const [last] = await app.sql(`select e.player_id, e.sort_key from manette.leaderboard_entries e join manette.leaderboards l on l.id = e.leaderboard_id
                                  where l.code = 'grand' order by e.sort_key desc, e.reached_at desc, e.player_id desc limit 1`);
    const naiveRank = async (sortKey: number) => Number((await app.sql(`
      select 1 + count(*) as n from manette.leaderboard_entries e join manette.leaderboards l on l.id = e.leaderboard_id
      where l.code = 'grand' and e.sort_key < $1`, [sortKey]))[0]!.n);
    const token = `pt_${'g'.repeat(43)}`;
    await app.sql(`insert into manette.sessions (token_hash, game_id, player_id, expires_at)
                   select manette.token_hash($1), game_id, id, now() + interval '1 day' from manette.players where id = $2`,
    [token, last!.player_id]);

    // The plans of the statements inside the real api.* functions, with the rows each
    // scan returned (auto_explain, log_analyze).
    const db = await planLoggingClient(twinAdminUrlOf(app.databaseUrl), { role: 'manette_api', analyze: true });
    const plans: string[] = [];
    db.on('notice', (n) => { if (n.message?.includes('Query Text')) plans.push(n.message); });
    try {
      const call = async (fn: string, ctx: object, body: object) => {
        plans.length = 0;
        const t = performance.now();
        const { rows } = await db.query(`select api.${fn}($1, $2) as r`, [JSON.stringify(ctx), JSON.stringify(body)]);
        return { r: rows[0].r, ms: performance.now() - t, plans: [...plans] };
      };
      const entriesScans = (ps: string[]) => ps.filter((p) => p.includes('manette.leaderboard_entries'));
      /** Every scan node of the call's statements, with the rows it returned (all loops). */
      const scans = (ps: string[]) => ps.flatMap((p) => [...p.matchAll(/(Seq Scan|Index Only Scan|Index Scan|Bitmap Heap Scan)(?: Backward)?(?: using (\S+))? on (\S+) .*?\(actual rows=(\d+) loops=(\d+)\)/g)]
        .map((m) => ({ kind: m[1]!, index: m[2], table: m[3]!, rows: Number(m[4]) * Number(m[5]) })));
      const touched = (ps: string[]) => scans(ps).filter((s) => /^leaderboard_(entries|buckets)$/.test(s.table));
      const rowsTouched = (ps: string[]) => touched(ps).reduce((n, s) => n + s.rows, 0);
      const onlyIndexes = (ps: string[]) => {
        for (const s of touched(ps)) {
          expect(s.kind, JSON.stringify(s)).toMatch(/^Index (Only )?Scan$/);
          expect(s.index).toMatch(s.table === 'leaderboard_buckets' ? /^leaderboard_buckets_pkey$/ : /^leaderboard_entries_(ranking_idx|pkey|player_idx)$/);
        }
        // Index-only scans of the entries read no heap page (the table is vacuumed).
        for (const f of ps.join('\n').matchAll(/Heap Fetches: (\d+)/g)) expect(Number(f[1])).toBe(0);
      };

      const top = await call('leaderboards_scores', { key }, { id: 'grand' });
      expect(top.r.data).toHaveLength(10);
      expect(top.r.data[0].rang).toBe(1);
      const topPlans = entriesScans(top.plans);
      expect(topPlans.length).toBeGreaterThan(0);
      for (const p of topPlans) expect(p).toMatch(/Index (Only )?Scan using leaderboard_entries_ranking_idx/);
      onlyIndexes(top.plans);
      expect(rowsTouched(top.plans)).toBeLessThan(bound);

      // The rank of the last player: the counters before its bucket, then its own bucket.
      const rank = await call('leaderboards_submit', { key, token }, { id: 'grand', valeur: -1 });
      expect(rank.r.data.ameliore).toBe(false);
      expect(rank.r.data.rang).toBe(await naiveRank(last!.sort_key));
      expect(rank.r.data.rang).toBeGreaterThan(ROWS * 0.99);
      const rankPlan = rank.plans.find((p) => /sum\(c\.entries\)/.test(p));
      expect(rankPlan).toMatch(/Index Scan using leaderboard_buckets_pkey on leaderboard_buckets/);
      expect(rankPlan).toMatch(/Index Cond: .*bucket < /);
      expect(rankPlan).toMatch(/Index Only Scan using leaderboard_entries_ranking_idx/);
      expect(rankPlan).toMatch(/Index Cond: .*bucket = .*sort_key < /);
      const rankScans = touched([rankPlan!]);
      expect(rankScans.find((s) => s.table === 'leaderboard_buckets')!.rows).toBeLessThanOrEqual(buckets!.rows);
      expect(rankScans.find((s) => s.table === 'leaderboard_entries')!.rows).toBeLessThanOrEqual(buckets!.largest);
      onlyIndexes(rank.plans);
      expect(rowsTouched(rank.plans)).toBeLessThan(bound);

      const around = await call('leaderboards_scores', { key, token }, { id: 'grand', autour: 'moi' });
      expect(around.r.data).toHaveLength(10);
      expect(around.r.data[9].joueur_id).toBe(last!.player_id);
      expect(around.r.data[9].rang).toBe(rank.r.data.rang);
      onlyIndexes(around.plans);
      expect(rowsTouched(around.plans)).toBeLessThan(bound);

      // A page at the very end, by offset: a walk over the counters, then inside one bucket.
      const deep = await call('leaderboards_scores', { key }, { id: 'grand', limit: 10, offset: ROWS - 4 });
      expect(deep.r.data).toHaveLength(4);
      expect(deep.r.data[3].joueur_id).toBe(last!.player_id);
      for (const s of deep.r.data) expect(s.rang).toBe(await naiveRank(-s.valeur));
      onlyIndexes(deep.plans);
      expect(rowsTouched(deep.plans)).toBeLessThan(bound);

      console.info(`leaderboards: ${ROWS} entries loaded in ${(loadMs / 1000).toFixed(1)} s (${buckets!.rows} buckets, `
        + `at most ${buckets!.largest} entries in one); top 10 ${top.ms.toFixed(1)} ms, rank of the last player ${rank.ms.toFixed(1)} ms `
        + `(${rowsTouched(rank.plans)} index rows), autour=moi of the last player ${around.ms.toFixed(1)} ms, `
        + `offset ${ROWS - 4} ${deep.ms.toFixed(1)} ms (first calls, plans analyzed)`);
    } finally {
      await db.end();
    }
  }, 120_000);
});
