// Atomic room formation across processes: 200 players join a 2v2 mode at once through TWO
// real API processes (`node bin/manette.js start`) sharing one database, then poll until
// settled. Meanwhile a fifth of them first wait in another mode and move, another fifth
// join, leave and join again, so entries change under the formers' feet. Every player
// must end in exactly one full room, every room must have exactly four players in two
// balanced teams of two, and no request may fail.
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyGameFile } from '../api/config/apply.js';
import { freshDatabase } from './support/harness.js';
import { startManette, stopManette, type ManetteProcess } from './support/manette-process.js';

const PLAYERS = 200;
const MODE = { equipes: 2, joueurs_par_equipe: 2, regles: 'tour_par_tour', elo_ecart_initial: 100, elo_elargissement_par_s: 100 };

let dir: string;
let databaseUrl: string;
let apiKey: string;
const bases: string[] = [];
const running: ManetteProcess[] = [];

/** `manette start` number `n` on the test's database; resolves with its base URL. */
async function startProcess(n: number): Promise<string> {
  const r = await startManette(databaseUrl, path.join(dir, `data-${n}`), { MANETTE_DB_POOL_SIZE: '20' });
  running[n] = r;
  return r.base;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'manette-mm-stress-'));
  await chmod(dir, 0o755);
  databaseUrl = await freshDatabase();
  const file = path.join(dir, 'game.json');
  await writeFile(file, JSON.stringify({ jeu: 'stress', nom: 'Stress', modes: {
    '2v2': MODE,
    // Rooms of 128: never formed here, a place to wait before moving.
    attente: { equipes: 2, joueurs_par_equipe: 64, regles: 'libre' },
  } }));
  apiKey = (await applyGameFile(databaseUrl, file)).api_key;
  bases.push(...await Promise.all([startProcess(0), startProcess(1)]));
}, 180_000);

afterAll(async () => {
  await Promise.all(running.map((r) => stopManette(r.proc)));
  await rm(dir, { recursive: true, force: true });
});

interface Reply { status: number; body: any }
const failures: string[] = [];

async function call(base: string, method: string, url: string, token: string | undefined, body?: unknown): Promise<Reply> {
  const res = await fetch(base + url, {
    method,
    headers: { 'x-api-key': apiKey, ...(token ? { 'x-player-token': token } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const reply = { status: res.status, body: await res.json() };
  if (res.status < 200 || res.status > 299) failures.push(`${method} ${url} → ${res.status} ${JSON.stringify(reply.body)}`);
  return reply;
}

describe('matchmaking across two API processes', () => {
  it('puts 200 simultaneous players in 50 full, balanced 2v2 rooms, each player in exactly one', async () => {
    const players = await Promise.all(Array.from({ length: PLAYERS }, async (_, i) => {
      const base = bases[i % 2]!;
      const r = await call(base, 'POST', '/players/register',
        undefined, { pseudo: `stress_${i}`, email: `stress_${i}@example.test`, password: 'motdepasse-solide' });
      return { i, base, token: r.body.token as string, id: r.body.data.joueur.id as string, elo: 1000 + ((i * 7919) % 600) };
    }));
    expect(failures).toEqual([]);

    // Everyone joins at once, half through each process; some move or leave first.
    const started = Date.now();
    const state = new Map<string, any>();
    await Promise.all(players.map(async (p) => {
      const other = bases[(p.i + 1) % 2]!;
      if (p.i % 5 === 0) await call(other, 'POST', '/matchmaking/join', p.token, { mode_jeu: 'attente', elo_actuel: p.elo });
      if (p.i % 5 === 1) {
        await call(other, 'POST', '/matchmaking/join', p.token, { mode_jeu: '2v2', elo_actuel: p.elo });
        await call(p.base, 'POST', '/matchmaking/leave', p.token);
      }
      const r = await call(p.base, 'POST', '/matchmaking/join', p.token, { mode_jeu: '2v2', elo_actuel: p.elo });
      state.set(p.id, r.body);
    }));
    expect(failures).toEqual([]);

    // Poll (alternating processes) until every player is matched.
    let rounds = 0;
    while ([...state.values()].some((s) => s.status !== 'matched')) {
      expect(Date.now() - started, `not settled: ${[...state.values()].filter((s) => s.status !== 'matched').length} players left`)
        .toBeLessThan(60_000);
      rounds++;
      await new Promise((r) => setTimeout(r, 100));
      await Promise.all(players.filter((p) => state.get(p.id).status !== 'matched').map(async (p) => {
        const r = await call(bases[(p.i + rounds) % 2]!, 'GET', '/matchmaking/status', p.token);
        state.set(p.id, r.body);
      }));
      expect(failures).toEqual([]);
    }
    // A final poll of everyone through the other process: they all still see their room.
    await Promise.all(players.map(async (p) => {
      const r = await call(bases[(p.i + 1) % 2]!, 'GET', '/matchmaking/status', p.token);
      expect(r.body).toEqual(state.get(p.id));
      state.set(p.id, r.body);
    }));
    expect(failures).toEqual([]);

    // Rooms as the players see them.
    const rooms = new Map<string, { participants: any[]; members: string[] }>();
    for (const p of players) {
      const s = state.get(p.id);
      expect(s).toMatchObject({ ok: true, status: 'matched' });
      const room = rooms.get(s.partie_id) ?? { participants: s.participants as any[], members: [] as string[] };
      expect(s.participants).toEqual(room.participants); // every member sees the same room
      room.members.push(p.id);
      rooms.set(s.partie_id, room);
      expect(s.participants.find((x: any) => x.joueur_id === p.id)?.equipe).toBe(s.equipe);
    }
    expect(rooms.size).toBe(PLAYERS / 4);
    const eloOf = new Map(players.map((p) => [p.id, p.elo]));
    const seen = new Set<string>();
    for (const room of rooms.values()) {
      expect(room.participants).toHaveLength(4);
      expect(room.participants.map((x) => x.equipe)).toEqual([1, 1, 2, 2]);
      expect(new Set(room.participants.map((x) => x.joueur_id))).toEqual(new Set(room.members));
      for (const id of room.members) {
        expect(seen.has(id), `player ${id} in two rooms`).toBe(false);
        seen.add(id);
      }
      // Balanced: with elos a ≥ b ≥ c ≥ d, the teams are {a, d} and {b, c}.
      const sorted = [...room.participants].sort((x, y) => eloOf.get(y.joueur_id)! - eloOf.get(x.joueur_id)!);
      expect(sorted[0].equipe).toBe(sorted[3].equipe);
      expect(sorted[1].equipe).toBe(sorted[2].equipe);
    }
    expect(seen.size).toBe(PLAYERS);

    // And as the database stores them.
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const [counts] = (await db.query(`
        select (select count(*)::int from manette.matches where status = 'en_cours') as matches,
               (select count(*)::int from manette.match_players) as seats,
               (select count(distinct player_id)::int from manette.match_players) as players,
               (select count(*)::int from manette.queue_entries) as queued,
               (select count(*)::int from (select match_id from manette.match_players group by match_id
                                            having count(*) <> 4 or count(distinct team) <> 2
                                                or max(seat) <> 4) bad) as bad_rooms,
               (select count(distinct room_code)::int from manette.matches) as codes`)).rows;
      expect(counts).toEqual({ matches: 50, seats: 200, players: 200, queued: 0, bad_rooms: 0, codes: 50 });
    } finally {
      await db.end();
    }
    console.log(`stress: ${PLAYERS} players settled ${Date.now() - started} ms after the joins started, ${rounds} poll rounds`);
  }, 150_000);

  it('logged no server error in either process', () => {
    expect(running.map((r) => r.out()).join('\n')).not.toMatch(/"level":(50|60)/);
  });
});
