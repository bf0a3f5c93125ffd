// The operator ends or cancels a match (docs/matches.md "Statuses, admin end and cancel",
// docs/admin.md): the real `manette` CLI in a child process on the test database, the real
// façade over HTTP for what players see afterwards, and the unmodified
// @supabase/realtime-js on the local Realtime for the `action` then `etat` they receive.
import WebSocket from 'ws';
import { RealtimeClient, type RealtimeChannel, type RealtimeClientOptions } from '@supabase/realtime-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from './support/harness.js';
import { runManette, runManetteJson } from './support/manette-cli.js';
import { waitUntil as waitFor } from './support/wait.js';
const waitUntil = <V>(fn: () => V | undefined | false | Promise<V | undefined | false>, what = 'condition', timeoutMs = 10_000) =>
  waitFor(fn, what, timeoutMs, 10);

const FR = 'fr_FR.UTF-8';
const EN = 'en_US.UTF-8';
const T = 180_000;

let app: TestApp;
let api: ReturnType<typeof client>;
let counter = 0;

const GAME = {
  jeu: 'fin-admin', nom: 'Fins de partie',
  classements: { victoires: { operateur: 'somme' } },
  modes: {
    '1v1': { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', elo_ecart_initial: 10000, classement_victoires: 'victoires' },
    libre: { equipes: 2, joueurs_par_equipe: 1, regles: 'libre', elo_ecart_initial: 10000 },
  },
};

const cli = (args: string[], lang = FR) => runManette(args, app.databaseUrl, lang);
const cliJson = (args: string[], lang = FR) => runManetteJson(args, app.databaseUrl, lang);

beforeAll(async () => {
  app = await startTestApp({}, undefined, { realtime: true });
  api = client(app.baseUrl, await app.applyGame(GAME));
}, T);
afterAll(async () => { await app?.close(); });

interface Player { token: string; id: string; pseudo: string }
async function player(): Promise<Player> {
  const r = await api.register(`fa_${++counter}_${Math.random().toString(36).slice(2, 8)}`);
  return { token: r.token, id: r.data.joueur.id, pseudo: r.data.joueur.pseudo };
}
const join = async (p: Player, mode = '1v1') => (await api.post('/matchmaking/join', { mode_jeu: mode, elo_actuel: 1000 }, { token: p.token })).body;
const status = async (p: Player) => (await api.get('/matchmaking/status', { token: p.token })).body;
/** These two players matched through /matchmaking/join; seat order. */
async function match(ps: Player[], mode = '1v1'): Promise<{ id: string; seats: Player[] }> {
  let last: any;
  for (const p of ps) last = await join(p, mode);
  expect(last.status, JSON.stringify(last)).toBe('matched');
  const byId = new Map(ps.map((p) => [p.id, p]));
  return { id: last.partie_id, seats: last.participants.map((x: any) => byId.get(x.joueur_id)!) };
}
const act = (p: Player, partie_id: string, action: string, donnees: unknown = {}) =>
  api.post('/match/action', { partie_id, action, donnees }, { token: p.token });
const state = async (p: Player, partie_id: string) => (await api.get(`/match/state?partie_id=${partie_id}`, { token: p.token })).body.partie;
/** GET /match/history, every page. */
async function history(p: Player, partie_id: string): Promise<{ actions: any[] }> {
  const actions: any[] = [];
  let depuis: number | null = 0;
  while (depuis !== null) {
    const r: { status: number; body: any } = await api.get(`/match/history?partie_id=${partie_id}&depuis=${depuis}&limit=500`, { token: p.token });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    actions.push(...r.body.actions);
    depuis = r.body.suivant;
  }
  return { actions };
}

// realtime-js, configured from GET /realtime/config only ------------------------------
const clients: RealtimeClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map(async (c) => { await c.removeAllChannels(); c.disconnect(); }));
});
/** Joins the match's room as `p` with realtime-js; resolves once SUBSCRIBED. */
async function watch(p: Player, partie_id: string): Promise<{ got: { event: string; payload: any }[] }> {
  const config = (await api.get('/realtime/config', { token: p.token })).body;
  const rt = new RealtimeClient(config.url, {
    params: { apikey: config.key },
    transport: WebSocket as unknown as RealtimeClientOptions['transport'], // Node 20 has no global WebSocket
    timeout: 5_000,
  });
  clients.push(rt);
  await rt.setAuth(config.token);
  const got: { event: string; payload: any }[] = [];
  const channel: RealtimeChannel = rt.channel(config.channel_prefix + partie_id, { config: { private: config.private } })
    .on('broadcast', { event: '*' }, (m: any) => got.push({ event: m.event, payload: m.payload }));
  await new Promise<void>((resolve, reject) => {
    channel.subscribe((s, err) => {
      if (s === 'SUBSCRIBED') resolve();
      else if (s !== 'CLOSED') reject(new Error(`${s} ${err?.message ?? ''}`));
    });
  });
  return { got };
}

async function audit(partieId: string) {
  return app.sql<{ command: string; details: any; db_user: string; at: Date }>(
    `select command, details, db_user, at from manette.admin_audit where details->>'partie_id' = $1 order by id`, [partieId]);
}
async function wins(): Promise<Map<string, number>> {
  const r = await api.get('/leaderboards/victoires/scores?limit=100');
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return new Map(r.body.data.map((s: any) => [s.joueur_id, s.valeur]));
}

describe('manette match cancel', () => {
  it('cancels: both players get action then etat over realtime-js, are freed, and are matched together again', async () => {
    const a = await player();
    const b = await player();
    const { id, seats: [x, o] } = await match([a, b]);
    expect((await act(x!, id, 'jouer', { case: 4 })).status).toBe(200);
    const [wx, wo] = [await watch(x!, id), await watch(o!, id)];

    // Named as every match command names a match: the game, then its room code (or id).
    const code = (await state(x!, id)).code_salon as string;
    const r = await cliJson(['match', 'cancel', GAME.jeu, code, '--raison', 'signalement de triche']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.body.ok).toBe(true);
    expect(r.body.data.partie).toMatchObject({ id, statut: 'annulee', gagnant_id: null, gagnant_equipe: null, numero_tour: 2, tour_joueur: o!.id });
    expect(r.body.data.partie.termine_le).toBe(r.body.data.partie.maj_le);
    expect(r.body.data.action).toEqual({ numero: 2, joueur_id: null, action: 'annulation_admin', donnees: {}, numero_tour: 2, cree_le: r.body.data.partie.termine_le });

    // What both participants receive: the server's action, then the state as GET /match/state gives it.
    const official = await state(x!, id);
    expect(official).toEqual(r.body.data.partie);
    for (const w of [wx, wo]) {
      await waitUntil(() => w.got.length >= 2, 'action and etat');
      expect(w.got).toEqual([
        { event: 'action', payload: { joueur_id: null, action: 'annulation_admin', donnees: {}, numero_tour: 2, id: expect.any(String) } },
        { event: 'etat', payload: official },
      ]);
    }

    // Freed: matchmaking forgets the match, actions are refused, nothing is credited.
    expect(await status(a)).toEqual({ ok: true, status: 'idle' });
    expect(await status(b)).toEqual({ ok: true, status: 'idle' });
    const refused = await act(o!, id, 'jouer', { case: 0 });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ ok: false, error: 'action_refusee', reason: 'partie_terminee' });
    expect([...(await wins()).keys()].filter((k) => k === a.id || k === b.id)).toEqual([]);
    expect((await history(x!, id)).actions.map((h: any) => [h.numero, h.joueur_id, h.action])).toEqual([[1, x!.id, 'jouer'], [2, null, 'annulation_admin']]);

    // Both join again and are matched together, in a new match.
    const again = await match([a, b]);
    expect(again.id).not.toBe(id);
    expect(new Set(again.seats.map((p) => p.id))).toEqual(new Set([a.id, b.id]));
    expect((await state(a, again.id)).statut).toBe('en_cours');

    // Audited: who, when, why, before and after.
    const rows = await audit(id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ command: 'match cancel', db_user: expect.any(String) });
    expect(rows[0]!.details).toMatchObject({
      partie_id: id, mode_jeu: '1v1', raison: 'signalement de triche', numero: 2,
      avant: { statut: 'en_cours', numero_tour: 2, tour_joueur: o!.id }, apres: { statut: 'annulee', gagnant_id: null, termine_le: official.termine_le },
    });
  }, T);

  it('text output in the user’s language; a second cancel is match_over and changes nothing', async () => {
    const { id } = await match([await player(), await player()]);
    const fr = await cli(['match', 'cancel', id]);
    expect(fr).toMatchObject({ code: 0, stderr: '' });
    expect(fr.stdout.trim()).toBe(`Partie ${id} annulée : aucune victoire comptée, ses joueurs sont libres de rejouer.`);
    const again = await cli(['match', 'cancel', id], EN);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');
    expect(again.stderr.trim()).toBe('This match was cancelled: nothing changed.');
    const json = await cliJson(['match', 'end', id, '--nul'], EN); // a lone id, as earlier versions took it
    expect(json).toMatchObject({ code: 1, body: { ok: false, error: 'match_over', message: 'This match was cancelled: nothing changed.' } });
    // The match is looked up in the game named: an unknown game is refused before anything.
    const elsewhere = await cliJson(['match', 'cancel', 'pas-ce-jeu', id], EN);
    expect(elsewhere).toMatchObject({ code: 1, body: { ok: false, error: 'game_not_found' } });
    expect(await audit(id)).toHaveLength(1);
  }, T);
});

describe('manette match end', () => {
  it('--gagnant: the winner’s team wins, the victory board credits them, action then etat are broadcast', async () => {
    const { id, seats: [x, o] } = await match([await player(), await player()]);
    const before = await wins();
    const w = await watch(x!, id);
    const r = await cli(['match', 'end', GAME.jeu, id, '--gagnant', o!.id, '--raison', 'x a quitté'], EN);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout.trim()).toBe(`Match ${id} ended: ${o!.pseudo} wins (team 2). Its players are free to play again.`);

    const official = await state(x!, id);
    expect(official).toMatchObject({ statut: 'terminee', gagnant_id: o!.id, gagnant_equipe: 2, tour_joueur: x!.id, numero_tour: 1 });
    await waitUntil(() => w.got.length >= 2, 'action and etat');
    expect(w.got).toEqual([
      { event: 'action', payload: { joueur_id: null, action: 'fin_admin', donnees: { gagnant_id: o!.id, gagnant_equipe: 2 }, numero_tour: 1, id: expect.any(String) } },
      { event: 'etat', payload: official },
    ]);
    const after = await wins();
    expect(after.get(o!.id)).toBe((before.get(o!.id) ?? 0) + 1);
    expect(after.get(x!.id)).toBe(before.get(x!.id));
    expect((await history(o!, id)).actions).toEqual([
      { numero: 1, joueur_id: null, action: 'fin_admin', donnees: { gagnant_id: o!.id, gagnant_equipe: 2 }, numero_tour: 1, cree_le: official.termine_le },
    ]);
    expect(await status(x!)).toEqual({ ok: true, status: 'idle' });
    expect((await audit(id)).map((a) => [a.command, a.details.raison, a.details.apres.gagnant_id])).toEqual([['match end', 'x a quitté', o!.id]]);
  }, T);

  it('--nul: a draw, nobody credited', async () => {
    const { id, seats: [x, o] } = await match([await player(), await player()]);
    const r = await cli(['match', 'end', id, '--nul']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout.trim()).toBe(`Partie ${id} terminée : match nul. Ses joueurs sont libres de rejouer.`);
    expect(await state(o!, id)).toMatchObject({ statut: 'terminee', gagnant_id: null, gagnant_equipe: null });
    const board = await wins();
    expect([board.get(x!.id), board.get(o!.id)]).toEqual([undefined, undefined]);
  }, T);

  it('refusals in the envelope, nothing changed: no result named, both, a non-participant, an unknown match', async () => {
    const { id, seats: [x] } = await match([await player(), await player()]);
    const outsider = await player();
    const neither = await cliJson(['match', 'end', id]);
    expect(neither).toMatchObject({ code: 1, body: { ok: false, error: 'invalid_input', message: 'précise --gagnant <joueur_id> ou --nul (l’un des deux)' } });
    const both = await cliJson(['match', 'end', id, '--nul', '--gagnant', x!.id], EN);
    expect(both.body).toEqual({ ok: false, error: 'invalid_input', message: 'give --gagnant <joueur_id> or --nul (one of them)' });
    const notHere = await cliJson(['match', 'end', id, '--gagnant', outsider.id], EN);
    expect(notHere).toMatchObject({ code: 1, body: { ok: false, error: 'validation_failed', message: 'Some fields are invalid.',
      details: [{ champ: 'gagnant', message: 'this player is not a participant of the match' }] } });
    const notHereFr = await cli(['match', 'end', id, '--gagnant', 'pas-un-uuid']);
    expect(notHereFr.code).toBe(1);
    expect(notHereFr.stderr.trim()).toBe('Certains champs sont invalides.\n  gagnant : ce joueur ne participe pas à la partie');
    const long = await cliJson(['match', 'cancel', id, '--raison', 'x'.repeat(1001)], EN);
    expect(long.body).toMatchObject({ error: 'validation_failed', details: [{ champ: 'raison', message: 'at most 1000 characters' }] });
    for (const bad of ['00000000-0000-4000-8000-000000000000', 'pas-un-uuid']) {
      const r = await cliJson(['match', 'cancel', bad], EN);
      expect(r).toMatchObject({ code: 1, body: { ok: false, error: 'match_not_found', message: 'Match not found.' } });
    }
    expect(await state(x!, id)).toMatchObject({ statut: 'en_cours' });
    expect(await audit(id)).toEqual([]);
    expect((await history(x!, id)).actions).toEqual([]);
  }, T);
});

describe('races', () => {
  it('players’ actions racing a cancel: every action is either in the history before the cancel, or refused', async () => {
    const { id, seats: [x, o] } = await match([await player(), await player()], 'libre');
    // Three loops per player keep acting until refused; the cancel lands among them.
    const results: Awaited<ReturnType<typeof act>>[] = [];
    let started = 0;
    const loop = async (p: Player) => {
      for (let i = 0; i < 5000; i++) {
        const r = await act(p, id, 'poser', { i });
        results.push(r);
        started++;
        if (r.status !== 200) return;
      }
    };
    const loops = [x!, x!, x!, o!, o!, o!].map(loop);
    await waitUntil(() => started >= 6, 'the first actions');
    const cancel = await cliJson(['match', 'cancel', id, '--raison', 'course']);
    await Promise.all(loops);
    expect(cancel.code, cancel.stderr).toBe(0);
    const accepted = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status !== 200);
    expect(refused).toHaveLength(6); // each loop stops at its first refusal
    expect(accepted.length).toBeGreaterThanOrEqual(6); // the cancel came after actions had been accepted
    for (const r of refused) expect(r.body, JSON.stringify(r.body)).toMatchObject({ error: 'action_refusee', reason: 'partie_terminee' });
    for (const r of accepted) expect(r.body.partie.statut).toBe('en_cours');

    const h = (await history(x!, id)).actions as any[];
    expect(h.map((a) => a.numero)).toEqual(h.map((_, i) => i + 1));
    expect(h.at(-1)).toMatchObject({ joueur_id: null, action: 'annulation_admin' });
    expect(h.length - 1).toBe(accepted.length);
    expect(cancel.body.data.action.numero).toBe(h.length);
    // Each accepted answer is the state just after its own action, all before the cancel.
    expect(accepted.map((r) => r.body.partie.numero_tour).sort((p, q) => p - q)).toEqual(h.slice(0, -1).map((a) => a.numero_tour + 1));
    expect(await state(o!, id)).toMatchObject({ statut: 'annulee', numero_tour: accepted.length + 1 });
  }, T);

  it('an end and a cancel at once: exactly one wins, the other is match_over', async () => {
    const { id, seats: [x] } = await match([await player(), await player()]);
    const [end, cancel] = await Promise.all([
      cliJson(['match', 'end', id, '--gagnant', x!.id]),
      cliJson(['match', 'cancel', id]),
    ]);
    const ok = [end, cancel].filter((r) => r.code === 0);
    const lost = [end, cancel].filter((r) => r.code !== 0);
    expect(ok).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]!.body).toMatchObject({ ok: false, error: 'match_over' });
    const final = await state(x!, id);
    expect(final.statut).toBe(ok[0] === end ? 'terminee' : 'annulee');
    expect((await history(x!, id)).actions).toHaveLength(1);
    expect(await audit(id)).toHaveLength(1);
  }, T);
});
