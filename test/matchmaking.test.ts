// Matchmaking (docs/matchmaking.md), over real HTTP: every endpoint, response shape and
// error, rejoin, mode change, join while matched, leave, idle/waiting/matched, elo windows
// and stale entries (time travel by moving the stored timestamps back).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from './support/harness.js';

let app: TestApp;
let api: ReturnType<typeof client>;
let apiB: ReturnType<typeof client>;
let keyA: string;
let counter = 0;

const GAME = {
  jeu: 'mm-a',
  nom: 'Matchmaking A',
  modes: {
    '1v1': { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion' },
    duel: { equipes: 2, joueurs_par_equipe: 1, regles: 'libre' },
    '2v2': { equipes: 2, joueurs_par_equipe: 2, regles: 'tour_par_tour', elo_ecart_initial: 1000 },
    lent: { equipes: 2, joueurs_par_equipe: 1, regles: 'libre', elo_ecart_initial: 50, elo_elargissement_par_s: 5 },
    stale: { equipes: 2, joueurs_par_equipe: 1, regles: 'libre', delai_inactivite_s: 30 },
    move: { equipes: 2, joueurs_par_equipe: 1, regles: 'libre' },
    trio: { equipes: 3, joueurs_par_equipe: 3, regles: 'mm_perso.regles', elo_ecart_initial: 10000 },
    course: { equipes: 2, joueurs_par_equipe: 1, regles: 'libre' },
  },
};

beforeAll(async () => {
  app = await startTestApp();
  // A game's own rule function (README, "Writing a rule function"); apply checks it exists.
  await app.sql(`create schema mm_perso;
    create function mm_perso.regles(partie jsonb, joueur_id uuid, action text, donnees jsonb) returns jsonb
      language sql as $$ select '{}'::jsonb $$;
    grant usage on schema mm_perso to manette_rules;
    grant execute on function mm_perso.regles(jsonb, uuid, text, jsonb) to manette_rules`);
  keyA = await app.applyGame(GAME);
  const keyB = await app.applyGame({ jeu: 'mm-b', nom: 'Matchmaking B', modes: { '1v1': GAME.modes['1v1'] } });
  api = client(app.baseUrl, keyA);
  apiB = client(app.baseUrl, keyB);
});
afterAll(async () => { await app?.close(); });

/** A new player of game A (or B): its token and id. */
async function player(c = api) {
  const r = await c.register(`mm_${++counter}_${Math.random().toString(36).slice(2, 8)}`);
  return { token: r.token, id: r.data.joueur.id, pseudo: r.data.joueur.pseudo };
}
const join = (token: string, mode_jeu: string, elo_actuel: number, c = api) =>
  c.post('/matchmaking/join', { mode_jeu, elo_actuel }, { token });
const status = (token: string, c = api) => c.get('/matchmaking/status', { token });
const leave = (token: string, c = api) => c.post('/matchmaking/leave', undefined, { token });

describe('POST /matchmaking/join', () => {
  it('queues the player: {ok, status: waiting, queue_id, position}, fields beside ok', async () => {
    const p = await player();
    const r = await join(p.token, 'duel', 1500);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['ok', 'position', 'queue_id', 'status']);
    expect(r.body).toMatchObject({ ok: true, status: 'waiting', position: 1 });
    expect(r.body.queue_id).toMatch(/^[0-9a-f-]{36}$/);
    await leave(p.token);
  });

  it('forms a 1v1 room as soon as two players fit: {ok, status: matched, partie_id, code_salon, equipe, participants}', async () => {
    const a = await player();
    const b = await player();
    expect((await join(a.token, '1v1', 1200)).body.status).toBe('waiting');
    const r = await join(b.token, '1v1', 1250);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['code_salon', 'equipe', 'ok', 'participants', 'partie_id', 'status']);
    expect(r.body).toMatchObject({ ok: true, status: 'matched' });
    expect(r.body.code_salon).toMatch(/^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{6}$/);
    // Team 1 (plays first) is the team with the lower elo total: a. Each one's elo is the
    // elo_actuel it joined with (a client mode).
    expect(r.body.participants).toEqual([
      { joueur_id: a.id, pseudo: a.pseudo, equipe: 1, elo: 1200 },
      { joueur_id: b.id, pseudo: b.pseudo, equipe: 2, elo: 1250 },
    ]);
    expect(r.body.equipe).toBe(2);

    const s = await status(a.token);
    expect(s.body).toEqual({ ...r.body, equipe: 1 });

    const [m] = await app.sql(`select * from manette.matches where id = $1`, [r.body.partie_id]);
    expect(m).toMatchObject({ status: 'en_cours', turn_number: 1, turn_player_id: a.id, mode: '1v1', rules: 'morpion',
      room_code: r.body.code_salon, board: { cases: [null, null, null, null, null, null, null, null, null] } });
    const seats = await app.sql(`select player_id, team, seat from manette.match_players where match_id = $1 order by seat`, [m!.id]);
    expect(seats).toEqual([{ player_id: a.id, team: 1, seat: 1 }, { player_id: b.id, team: 2, seat: 2 }]);
    expect(await app.sql(`select 1 from manette.queue_entries where player_id in ($1, $2)`, [a.id, b.id])).toHaveLength(0);
  });

  it('keeps apart players whose elos do not fit a window', async () => {
    const a = await player();
    const b = await player();
    await join(a.token, 'duel', 1000);
    const r = await join(b.token, 'duel', 1101); // gap 101 > 100
    expect(r.body).toMatchObject({ status: 'waiting', position: 2 });
    await leave(a.token);
    await leave(b.token);
  });

  it('forms 2v2 rooms of exactly four, teams balanced by elo', async () => {
    const ps = await Promise.all([0, 1, 2, 3].map(() => player()));
    const elos = [1000, 1300, 1100, 1200];
    for (let i = 0; i < 3; i++) expect((await join(ps[i]!.token, '2v2', elos[i]!)).body.status).toBe('waiting');
    const r = await join(ps[3]!.token, '2v2', elos[3]!);
    expect(r.body.status).toBe('matched');
    expect(r.body.participants).toHaveLength(4);
    const teamOf = new Map<string, number>(r.body.participants.map((p: any) => [p.joueur_id, p.equipe]));
    // {1000, 1300} against {1100, 1200}: 2300 each.
    expect(teamOf.get(ps[0]!.id)).toBe(teamOf.get(ps[1]!.id));
    expect(teamOf.get(ps[2]!.id)).toBe(teamOf.get(ps[3]!.id));
    expect(teamOf.get(ps[0]!.id)).not.toBe(teamOf.get(ps[2]!.id));
    expect(r.body.participants.map((p: any) => p.equipe)).toEqual([1, 1, 2, 2]);
    const [m] = await app.sql(`select rules, board, turn_player_id from manette.matches where id = $1`, [r.body.partie_id]);
    expect(m).toEqual({ rules: 'tour_par_tour', board: {}, turn_player_id: r.body.participants[0].joueur_id });
  });

  it('forms rooms of 3 teams of 3 (a custom rule set starts from an empty board)', async () => {
    const ps = await Promise.all(Array.from({ length: 9 }, () => player()));
    const results = [];
    for (const [i, p] of ps.entries()) results.push((await join(p.token, 'trio', 1000 + 10 * i)).body);
    expect(results.slice(0, 8).map((r) => r.status)).toEqual(Array(8).fill('waiting'));
    const last = results[8];
    expect(last.status).toBe('matched');
    expect(last.participants).toHaveLength(9);
    expect(last.participants.map((p: any) => p.equipe)).toEqual([1, 1, 1, 2, 2, 2, 3, 3, 3]);
    const [m] = await app.sql(`select rules, board from manette.matches where id = $1`, [last.partie_id]);
    expect(m).toEqual({ rules: 'mm_perso.regles', board: {} });
  });

  it('joining again while waiting returns the current entry (same id, place and elo)', async () => {
    const a = await player();
    const b = await player();
    await join(a.token, 'move', 3000);
    const first = await join(b.token, 'move', 5000);
    const again = await join(b.token, 'move', 3000); // a new elo does not change the entry
    expect(again.body).toEqual(first.body);
    expect(again.body).toMatchObject({ status: 'waiting', position: 2 });
    expect(await app.sql(`select elo from manette.queue_entries where player_id = $1`, [b.id])).toEqual([{ elo: 5000 }]);
    await leave(a.token);
    await leave(b.token);
  });

  it('joining another mode moves the entry (one entry per player, back of the new queue)', async () => {
    const a = await player();
    const b = await player();
    const c = await player();
    await join(a.token, 'lent', 7000);
    const first = await join(b.token, 'move', 7000);
    const moved = await join(b.token, 'lent', 7500);
    expect(moved.body).toMatchObject({ status: 'waiting', queue_id: first.body.queue_id, position: 2 });
    const rows = await app.sql(`select m.code, e.elo from manette.queue_entries e join manette.modes m on m.id = e.mode_id
                                where e.player_id = $1`, [b.id]);
    expect(rows).toEqual([{ code: 'lent', elo: 7500 }]);
    // Nobody is left in `move`: a newcomer there waits alone.
    expect((await join(c.token, 'move', 7000)).body).toMatchObject({ status: 'waiting', position: 1 });
    for (const p of [a, b, c]) await leave(p.token);
  });

  it('joining while in a match in progress returns that match', async () => {
    const a = await player();
    const b = await player();
    await join(a.token, '1v1', 2000);
    const matched = await join(b.token, '1v1', 2000);
    const again = await join(a.token, '2v2', 2000);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ status: 'matched', partie_id: matched.body.partie_id, equipe: 1 });
    expect(await app.sql(`select 1 from manette.queue_entries where player_id = $1`, [a.id])).toHaveLength(0);
  });

  it('refuses an unknown mode (404 mode_not_found), in the player’s language', async () => {
    const a = await player();
    const r = await join(a.token, 'inconnu', 1000);
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ ok: false, error: 'mode_not_found' });
    expect(r.body.message).toBe('Mode de jeu introuvable.');
    const en = await api.post('/matchmaking/join', { mode_jeu: 'inconnu', elo_actuel: 1 }, { token: a.token, headers: { 'accept-language': 'en' } });
    expect(en.body.message).toBe('Game mode not found.');
    // A mode of another game is unknown here.
    const other = await apiB.post('/matchmaking/join', { mode_jeu: 'duel', elo_actuel: 1 }, { token: (await player(apiB)).token });
    expect(other.status).toBe(404);
  });

  it('refuses a bad body (400 validation_failed naming the field)', async () => {
    const a = await player();
    for (const body of [
      { mode_jeu: '1v1', elo_actuel: -1 },
      { mode_jeu: '1v1', elo_actuel: 10000.5 },
      { mode_jeu: '1v1', elo_actuel: '1000' },
      { mode_jeu: '1v1' },
      { mode_jeu: '1v1', elo_actuel: null },
    ]) {
      const r = await api.post('/matchmaking/join', body, { token: a.token });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error).toBe('validation_failed');
      expect(r.body.details.map((d: any) => d.champ)).toEqual(['elo_actuel']);
    }
    const infinite = await api.request('POST', '/matchmaking/join', { raw: '{"mode_jeu": "1v1", "elo_actuel": 1e400}', token: a.token, headers: { 'content-type': 'application/json' } });
    expect(infinite.status).toBe(400);
    expect(infinite.body.details.map((d: any) => d.champ)).toEqual(['elo_actuel']);
    const noMode = await api.post('/matchmaking/join', { elo_actuel: 5 }, { token: a.token });
    expect(noMode.body.details.map((d: any) => d.champ)).toEqual(['mode_jeu']);
    expect((await api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 0 }, { token: a.token })).body.status).toBe('waiting');
    await leave(a.token);
    expect((await api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 10000 }, { token: a.token })).body.status).toBe('waiting');
    await leave(a.token);
  });

  it('needs the key and a valid token of this game (401)', async () => {
    const a = await player();
    const body = { mode_jeu: '1v1', elo_actuel: 1000 };
    const noKey = await api.post('/matchmaking/join', body, { token: a.token, key: null });
    expect([noKey.status, noKey.body.error]).toEqual([401, 'missing_key']);
    const noToken = await api.post('/matchmaking/join', body);
    expect([noToken.status, noToken.body.error]).toEqual([401, 'missing_player']);
    const bad = await api.post('/matchmaking/join', body, { token: `pt_${'x'.repeat(43)}` });
    expect([bad.status, bad.body.error]).toEqual([401, 'invalid_token']);
    const otherGame = await apiB.post('/matchmaking/join', body, { token: a.token });
    expect([otherGame.status, otherGame.body.error]).toEqual([401, 'invalid_token']);
    for (const r of [await api.get('/matchmaking/status'), await api.post('/matchmaking/leave')]) {
      expect([r.status, r.body.error]).toEqual([401, 'missing_player']);
    }
    const badKey = await api.get('/matchmaking/status', { token: a.token, key: `sk_live_${'Z'.repeat(32)}` });
    expect([badKey.status, badKey.body.error]).toEqual([401, 'invalid_key']);
    expect(await app.sql(`select 1 from manette.queue_entries where player_id = $1`, [a.id])).toHaveLength(0);
  });

  it('never matches players of two games together', async () => {
    const a = await player();
    const b = await player(apiB);
    expect((await join(a.token, '1v1', 4321)).body.status).toBe('waiting');
    expect((await join(b.token, '1v1', 4321, apiB)).body).toMatchObject({ status: 'waiting', position: 1 });
    await leave(a.token);
    await leave(b.token, apiB);
  });
});

describe('GET /matchmaking/status', () => {
  it('is idle for a player who never joined: {ok, status: idle}', async () => {
    const a = await player();
    const r = await status(a.token);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ok: true, status: 'idle' });
  });

  it('is waiting with the 1-based position in join order within the mode', async () => {
    const ps = await Promise.all([0, 1, 2].map(() => player()));
    const ids = [];
    for (const [i, p] of ps.entries()) ids.push((await join(p.token, 'lent', 100 + 1000 * i)).body.queue_id);
    for (const [i, p] of ps.entries()) {
      expect((await status(p.token)).body).toEqual({ ok: true, status: 'waiting', queue_id: ids[i], position: i + 1 });
    }
    await leave(ps[0]!.token);
    expect((await status(ps[2]!.token)).body.position).toBe(2);
    for (const p of ps) await leave(p.token);
  });

  it('forms the room when the windows have widened enough (poll = formation)', async () => {
    const a = await player();
    const b = await player();
    await join(a.token, 'lent', 6000);
    expect((await join(b.token, 'lent', 6100)).body.status).toBe('waiting'); // 100 > 50
    // Time travel: both have waited 9 s (gap 50 + 5 × 9 = 95 < 100), then 10 s (100).
    await app.sql(`update manette.queue_entries set joined_at = now() - interval '9 seconds' where player_id in ($1, $2)`, [a.id, b.id]);
    expect((await status(a.token)).body.status).toBe('waiting');
    await app.sql(`update manette.queue_entries set joined_at = now() - interval '10 seconds' where player_id = $1`, [a.id]);
    expect((await status(a.token)).body.status).toBe('waiting'); // b still accepts only 95
    await app.sql(`update manette.queue_entries set joined_at = now() - interval '10 seconds' where player_id = $1`, [b.id]);
    const r = await status(a.token);
    expect(r.body).toMatchObject({ status: 'matched', equipe: 1 });
    expect((await status(b.token)).body).toMatchObject({ status: 'matched', partie_id: r.body.partie_id, equipe: 2 });
  });

  it('drops an entry neither joined nor polled for delai_inactivite_s; it is never put in a room', async () => {
    const a = await player();
    const b = await player();
    await join(a.token, 'stale', 8000);
    await app.sql(`update manette.queue_entries set seen_at = now() - interval '31 seconds' where player_id = $1`, [a.id]);
    // b fits a's elo exactly, but a is stale: b waits alone, first in line.
    expect((await join(b.token, 'stale', 8000)).body).toMatchObject({ status: 'waiting', position: 1 });
    expect(await app.sql(`select 1 from manette.queue_entries where player_id = $1`, [a.id])).toHaveLength(0);
    expect((await status(a.token)).body).toEqual({ ok: true, status: 'idle' });
    await leave(b.token);
  });

  it('a poll is the heartbeat: a polled entry stays and is matched later', async () => {
    const a = await player();
    const b = await player();
    await join(a.token, 'stale', 8500);
    await app.sql(`update manette.queue_entries set seen_at = now() - interval '29 seconds', joined_at = now() - interval '29 seconds' where player_id = $1`, [a.id]);
    expect((await status(a.token)).body.status).toBe('waiting');
    const [row] = await app.sql(`select extract(epoch from now() - seen_at) as age from manette.queue_entries where player_id = $1`, [a.id]);
    expect(Number(row!.age)).toBeLessThan(5);
    expect((await join(b.token, 'stale', 8500)).body.status).toBe('matched');
  });

  it('a stale player who polls is idle, and joining again starts a new entry', async () => {
    const a = await player();
    const first = await join(a.token, 'stale', 9000);
    await app.sql(`update manette.queue_entries set seen_at = now() - interval '31 seconds' where player_id = $1`, [a.id]);
    expect((await status(a.token)).body).toEqual({ ok: true, status: 'idle' });
    const again = await join(a.token, 'stale', 9000);
    expect(again.body).toMatchObject({ status: 'waiting', position: 1 });
    expect(again.body.queue_id).not.toBe(first.body.queue_id);
    await leave(a.token);
  });

  it('is idle once the match is over', async () => {
    const a = await player();
    const b = await player();
    await join(a.token, 'duel', 4000);
    const r = await join(b.token, 'duel', 4000);
    await app.sql(`update manette.matches set status = 'terminee', ended_at = now() where id = $1`, [r.body.partie_id]);
    expect((await status(a.token)).body).toEqual({ ok: true, status: 'idle' });
    expect((await join(a.token, 'duel', 4000)).body.status).toBe('waiting');
    await leave(a.token);
  });
});

describe('POST /matchmaking/leave', () => {
  it('leaves the queue: {ok, status: idle}', async () => {
    const a = await player();
    await join(a.token, 'duel', 100);
    const r = await leave(a.token);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ok: true, status: 'idle' });
    expect((await status(a.token)).body).toEqual({ ok: true, status: 'idle' });
  });

  it('answers idle when not queued, also with a JSON body', async () => {
    const a = await player();
    expect((await leave(a.token)).body).toEqual({ ok: true, status: 'idle' });
    expect((await api.post('/matchmaking/leave', {}, { token: a.token })).body).toEqual({ ok: true, status: 'idle' });
  });

  it('does not leave a match in progress', async () => {
    const a = await player();
    const b = await player();
    await join(a.token, 'duel', 4500);
    const r = await join(b.token, 'duel', 4500);
    expect((await leave(a.token)).body).toEqual({ ok: true, status: 'idle' });
    expect((await status(a.token)).body).toMatchObject({ status: 'matched', partie_id: r.body.partie_id });
  });
});

// A request in flight in another process is played by a second connection that holds its
// transaction open; the formation (a real HTTP poll) runs meanwhile.
describe('formation racing with other requests', () => {
  /** Queues players in `course` directly (no formation), oldest first. */
  async function queue(players: { id: string }[], elo = 5000) {
    for (const [i, p] of players.entries()) {
      await app.sql(`insert into manette.queue_entries (game_id, mode_id, player_id, elo, joined_at, seen_at)
                     select m.game_id, m.id, $1, $2, now() + $3 * interval '1 ms', now()
                     from manette.modes m join manette.games g on g.id = m.game_id
                     where g.slug = 'mm-a' and m.code = 'course'`, [p.id, elo, i]);
    }
  }
  async function holding<T>(statement: string, values: unknown[], during: () => Promise<T>): Promise<T> {
    const other = new pg.Client({ connectionString: app.databaseUrl });
    await other.connect();
    try {
      await other.query('begin');
      await other.query(statement, values);
      const pending = during();
      await new Promise((r) => setTimeout(r, 300)); // the former is now waiting on the row
      await other.query('commit');
      return await pending;
    } finally {
      await other.end();
    }
  }

  it('a player who leaves while the former locks the room is replaced by the next one', async () => {
    const [a, b, c] = [await player(), await player(), await player()];
    await queue([a, b, c]);
    const r = await holding('delete from manette.queue_entries where player_id = $1', [b.id], () => status(a.token));
    expect(r.body).toMatchObject({ status: 'matched' });
    expect(r.body.participants.map((p: any) => p.joueur_id)).toEqual([a.id, c.id]);
    expect((await status(b.token)).body.status).toBe('idle');
  });

  it('a player who moves to another mode meanwhile is not put in the room', async () => {
    const [a, b, c] = [await player(), await player(), await player()];
    await queue([a, b, c], 5100);
    const r = await holding(`update manette.queue_entries set mode_id = (select id from manette.modes where code = 'move'
                               and game_id = (select id from manette.games where slug = 'mm-a')) where player_id = $1`,
      [b.id], () => status(a.token));
    expect(r.body.participants.map((p: any) => p.joueur_id)).toEqual([a.id, c.id]);
    expect((await status(b.token)).body).toMatchObject({ status: 'waiting', position: 1 });
    await leave(b.token);
  });

  it('a heartbeat in flight delays the former, which then takes the player', async () => {
    const [a, b] = [await player(), await player()];
    await queue([a, b], 5200);
    const r = await holding('update manette.queue_entries set seen_at = now() where player_id = $1', [b.id],
      () => status(a.token));
    expect(r.body.participants.map((p: any) => p.joueur_id)).toEqual([a.id, b.id]);
  });
});

describe('OpenAPI', () => {
  it('documents the three operations', async () => {
    const doc = (await api.get('/openapi.json')).body;
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/matchmaking/join', '/matchmaking/status', '/matchmaking/leave']));
  });
});
