// The conformance cases (test/conformance/cases.json) for the browser SDK: one definition,
// run from Node (node-runner.ts) and in Chromium (test/sdk-conformance-browser.test.ts),
// against the conformance server. Plain code, no test framework: it runs in a page too.
import type { ManetteClient, ManetteError, Partie } from '../../../sdk/src/index.js';
import type { createPkcePair as CreatePkcePair } from '../../../sdk/src/index.js';

export interface Storage { getItem(k: string): string | null; setItem(k: string, v: string): void; removeItem(k: string): void }
export interface ConformanceEnv {
  /** A client of the SDK on the conformance server (baseUrl, realtime loading set by the runner). */
  createClient(opts: { apiKey: string; lang?: 'fr' | 'en'; storage: Storage }): ManetteClient;
  /** The SDK's PKCE helper (Manette.createPkcePair). */
  createPkcePair: typeof CreatePkcePair;
  /** The control API's URL. */
  control: string;
  log?: (line: string) => void;
}
export interface CaseResult { case: string; ok: boolean; message?: string }

const PASSWORD = 'motdepasse-solide';
// X wins on the top row: X 0, O 3, X 1, O 4, X 2.
const MOVES = [0, 3, 1, 4, 2];

function memoryStorage(): Storage {
  const m = new Map<string, string>();
  return { getItem: (k) => m.get(k) ?? null, setItem: (k, v) => { m.set(k, v); }, removeItem: (k) => { m.delete(k); } };
}
function check(cond: unknown, what: string): asserts cond {
  if (!cond) throw new Error(what);
}
function same(a: unknown, b: unknown, what: string): void {
  const sa = JSON.stringify(a), sb = JSON.stringify(b);
  if (sa !== sb) throw new Error(`${what}: ${sa} is not ${sb}`);
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function waitUntil(cond: () => boolean | Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}
async function rejects(p: Promise<unknown>): Promise<ManetteError> {
  try { await p; } catch (err) { return err as ManetteError; }
  throw new Error('expected an error, the call succeeded');
}

export async function runConformance(env: ConformanceEnv, only?: string[]): Promise<CaseResult[]> {
  const control = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
    const res = await fetch(env.control + path, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return res.json() as Promise<Record<string, any>>;
  };
  const config = await control('GET', '/config') as { baseUrl: string; keys: { default: string; etat_aux_autres: string }; tokenTtlS: number; tokenProvider: string };
  const identityToken = async (sub: string) => (await control('POST', '/identity-token', { sub })).jeton as string;
  /** A test ticket of the twin's Steam stand-in: the hex of manette-test-ticket:<SteamID64>:<unique>. */
  const steamTicket = (steamId: string) => Array.from(new TextEncoder().encode(`manette-test-ticket:${steamId}:${unique('t')}`), (b) => b.toString(16).padStart(2, '0')).join('');
  /** What Discord gives when the user `userId` approves the game's application (POST /discord-code). */
  const discordCode = async (userId: string, p: { codeChallenge?: string; redirectUri?: string } = {}) =>
    (await control('POST', '/discord-code', { user_id: userId, username: `u${userId}`, code_challenge: p.codeChallenge, redirect_uri: p.redirectUri })).code as string;
  const discordUserId = () => `1${String(Math.floor(Math.random() * 1e9)).padStart(9, '0')}${String(Date.now() % 1e8).padStart(8, '0')}`;
  let n = 0;
  const unique = (p: string) => `${p}${Date.now().toString(36).slice(-5)}${(n++).toString(36)}${Math.random().toString(36).slice(2, 5)}`;
  const newClient = (opts: { key?: string; lang?: 'fr' | 'en'; storage?: Storage } = {}) =>
    env.createClient({ apiKey: opts.key ?? config.keys.default, lang: opts.lang ?? 'en', storage: opts.storage ?? memoryStorage() });
  const registered = async (key?: string) => {
    const client = newClient({ key });
    const pseudo = unique('c');
    const joueur = await client.auth.register({ pseudo, email: `${pseudo}@exemple.fr`, password: PASSWORD });
    return { client, joueur, pseudo };
  };

  interface Seat { client: ManetteClient; id: string; latest: Partie | null; actions: number[]; stop?: () => Promise<void> }
  /** Two players matched in `mode`, each subscribed to the room; seats[0] plays first (X). */
  const matched = async (opts: { key?: string; mode?: string; pollMs?: number; subscribe?: boolean } = {}) => {
    const a = await registered(opts.key), b = await registered(opts.key);
    const mode = opts.mode ?? '1v1';
    check((await a.client.matchmaking.join(mode, 1000)).status === 'waiting', 'the first player waits');
    const m = await b.client.matchmaking.join(mode, 1000) as { status: string; partie_id: string; participants: Array<{ joueur_id: string }> };
    check(m.status === 'matched', `the second player is matched (${m.status})`);
    const byId = new Map([[a.joueur.id, a.client], [b.joueur.id, b.client]]);
    const seats: Seat[] = m.participants.map((p) => ({ client: byId.get(p.joueur_id)!, id: p.joueur_id, latest: null, actions: [] }));
    const id = m.partie_id;
    if (opts.subscribe !== false) {
      for (const s of seats) {
        s.stop = await s.client.match(id).subscribe({
          onAction: (e) => { s.actions.push((e as { numero_tour: number }).numero_tour); },
          onEtat: (p) => { s.latest = p; },
          pollMs: opts.pollMs,
        });
      }
    }
    const play = async (k: number) => {
      const s = seats[k % 2]!;
      await waitUntil(() => s.latest?.numero_tour === k + 1 && s.latest.tour_joueur === s.id, `player ${k % 2 ? 'O' : 'X'} knows turn ${k + 1} is its own`);
      await s.client.match(id).act('jouer', { case: MOVES[k] });
    };
    const official = async () => seats[0]!.client.match(id).state();
    /** Every seat's view ends equal to GET /match/state, over with X the winner. */
    const finished = async (winner = seats[0]!.id) => {
      for (const s of seats) await waitUntil(() => s.latest?.statut === 'terminee', 'every client sees the end');
      const state = await official();
      check(state.statut === 'terminee' && state.gagnant_id === winner, `the match is over, won by ${winner}`);
      for (const s of seats) same(s.latest, state, 'a client\'s final view and GET /match/state');
      return state;
    };
    const close = async () => { for (const s of seats) await s.stop?.(); };
    return { id, seats, play, finished, official, close };
  };
  const playWhole = async (key?: string) => {
    const m = await matched({ key });
    try {
      for (let k = 0; k < MOVES.length; k++) await m.play(k);
      const state = await m.finished();
      same(state.numero_tour, MOVES.length + 1, 'numero_tour at the end');
      // Each player got the action events of the other's moves (each numbered by its turn).
      for (const [i, s] of m.seats.entries()) {
        const theirs = MOVES.map((_, k) => k + 1).filter((_, k) => k % 2 !== i);
        for (const t of theirs) check(s.actions.includes(t), `seat ${i} got the action event of turn ${t - 1} (got ${JSON.stringify(s.actions)})`);
      }
      const history = await m.seats[1]!.client.match(m.id).history();
      same(history.actions.map((a: any) => a.donnees.case), MOVES, 'the history\'s moves');
    } finally {
      await m.close();
    }
  };

  const cases: Record<string, () => Promise<void>> = {
    async auth_register() {
      const storage = memoryStorage();
      const client = newClient({ storage });
      const pseudo = unique('r');
      const joueur = await client.auth.register({ pseudo, email: `${pseudo}@exemple.fr`, password: PASSWORD });
      same(joueur.pseudo, pseudo, 'the pseudo');
      check(client.auth.token, 'a session token is kept');
      same(client.auth.player?.id, joueur.id, 'the kept player');
      same((await client.auth.restore())?.id, joueur.id, 'the session is the new player\'s');
    },
    async auth_login() {
      const { joueur, pseudo } = await registered();
      const byPseudo = newClient();
      same((await byPseudo.auth.login({ identifiant: pseudo, password: PASSWORD })).id, joueur.id, 'login by pseudo');
      const byEmail = newClient();
      same((await byEmail.auth.login({ identifiant: `${pseudo}@exemple.fr`, password: PASSWORD })).id, joueur.id, 'login by e-mail');
    },
    async auth_guest_link() {
      const device = unique('appareil-');
      const first = newClient();
      const guest = await first.auth.guest({ appareilId: device });
      check(guest.invite === true, 'a guest');
      const again = await newClient().auth.guest({ appareilId: device });
      same(again.id, guest.id, 'the same device gets the same guest');
      const pseudo = unique('g');
      const linked = await first.auth.link({ pseudo, email: `${pseudo}@exemple.fr`, password: PASSWORD });
      same([linked.id, linked.invite, linked.pseudo], [guest.id, false, pseudo], 'the linked account keeps the id');
      same((await newClient().auth.login({ identifiant: pseudo, password: PASSWORD })).id, guest.id, 'the linked account logs in');
    },
    async auth_restore() {
      const storage = memoryStorage();
      const first = newClient({ storage });
      const pseudo = unique('s');
      const joueur = await first.auth.register({ pseudo, email: `${pseudo}@exemple.fr`, password: PASSWORD });
      // The client "restarts": a new instance over the same storage, no login.
      const restarted = newClient({ storage });
      same((await restarted.auth.restore())?.id, joueur.id, 'the restored player');
      same((await restarted.economy.wallet()).find((s) => s.code === 'or')?.solde, 100, 'an authenticated call of the restored session');
    },
    async auth_logout() {
      const storage = memoryStorage();
      const { client } = await registered();
      const pseudo = unique('l');
      const c = newClient({ storage });
      await c.auth.register({ pseudo, email: `${pseudo}@exemple.fr`, password: PASSWORD });
      const token = c.auth.token!;
      await c.auth.logout();
      check(c.auth.token === null && c.auth.player === null, 'the session is cleared');
      same(await newClient({ storage }).auth.restore(), null, 'restore after logout');
      const res = await fetch(`${config.baseUrl}/players/me`, { headers: { 'x-api-key': config.keys.default, 'x-player-token': token } });
      same([res.status, (await res.json()).error], [401, 'invalid_token'], 'the old token');
      void client;
    },
    async auth_token() {
      const sub = unique('sujet-');
      const first = await identityToken(sub);
      const a = newClient();
      const joueur = await a.auth.loginWithToken(config.tokenProvider, first);
      check(a.auth.token, 'a session token is kept');
      same((await newClient().auth.loginWithToken(config.tokenProvider, await identityToken(sub))).id, joueur.id, 'the same subject, the same player');
      const replay = await rejects(newClient().auth.loginWithToken(config.tokenProvider, first));
      same([replay.code, replay.status], ['invalid_credentials', 401], 'a token used again');
      const guest = newClient();
      const g = await guest.auth.guest({ appareilId: false });
      const linked = await guest.auth.link({ fournisseur: config.tokenProvider, jeton: await identityToken(unique('sujet-')) });
      same([linked.id, linked.invite], [g.id, false], 'the guest linked, the same id');
    },
    async auth_steam() {
      const steamId = `7656119${String(Math.floor(Math.random() * 1e10)).padStart(10, '0')}`;
      const first = steamTicket(steamId);
      const joueur = await newClient().auth.loginWithSteam(first);
      same((await newClient().auth.loginWithSteam(steamTicket(steamId))).id, joueur.id, 'the same SteamID, the same player');
      const replay = await rejects(newClient().auth.loginWithSteam(first));
      same([replay.code, replay.status], ['invalid_credentials', 401], 'a ticket used again');
    },
    async auth_discord() {
      const userId = discordUserId();
      const redirectUri = 'https://conformite.manette.test/discord';
      const pair = await env.createPkcePair();
      const first = await discordCode(userId, { codeChallenge: pair.codeChallenge, redirectUri });
      const a = newClient();
      const joueur = await a.auth.loginWithDiscord({ code: first, codeVerifier: pair.codeVerifier, redirectUri });
      check(a.auth.token && a.auth.player?.id === joueur.id && joueur.invite === false, 'a session is kept');
      same((await a.economy.wallet()).find((s) => s.code === 'or')?.solde, 100, 'an authenticated call of the session');
      const again = await env.createPkcePair();
      const second = await discordCode(userId, { codeChallenge: again.codeChallenge });
      same((await newClient().auth.loginWithDiscord({ code: second, codeVerifier: again.codeVerifier })).id, joueur.id, 'the same Discord user, the same player');
      const replay = await rejects(newClient().auth.loginWithDiscord({ code: first, codeVerifier: pair.codeVerifier, redirectUri }));
      same([replay.code, replay.status], ['invalid_credentials', 401], 'a code used again');
      const guest = newClient();
      const g = await guest.auth.guest({ appareilId: false });
      const other = await env.createPkcePair();
      const linked = await guest.auth.link({ fournisseur: 'discord', code: await discordCode(discordUserId(), { codeChallenge: other.codeChallenge }), codeVerifier: other.codeVerifier });
      same([linked.id, linked.invite], [g.id, false], 'the guest linked, the same id');
      same(guest.auth.player?.invite, false, 'the kept player is no longer a guest');
      const h = newClient();
      await h.auth.guest({ appareilId: false });
      const taken = await env.createPkcePair();
      const ofUser = await discordCode(userId, { codeChallenge: taken.codeChallenge });
      const conflict = await rejects(h.auth.link({ fournisseur: 'discord', code: ofUser, codeVerifier: taken.codeVerifier }));
      same([conflict.code, conflict.status], ['identity_taken', 409], 'linking a Discord account that is a player');
      same(h.auth.player?.invite, true, 'a refused link leaves the guest a guest');
    },
    async tables() {
      const { client } = await registered();
      const notes = client.table('notes');
      const row = await notes.insert({ texte: 'bonjour', points: 3 });
      check(!(row as { en_attente?: boolean }).en_attente, 'inserted online');
      same((await notes.get(row.id)).donnees, { texte: 'bonjour', points: 3 }, 'get');
      check((await notes.list()).some((r) => r.id === row.id), 'list has the row');
      same((await notes.update(row.id, { points: 7 })).donnees, { texte: 'bonjour', points: 7 }, 'update');
      await notes.remove(row.id);
      same((await rejects(notes.get(row.id))).code, 'row_not_found', 'the removed row');
    },
    async files() {
      const { client } = await registered();
      const contenu = 'sauvegarde: niveau 3 — é ✓';
      const f = await client.files.upload({ nom: 'sauvegarde.txt', contenu, mime_type: 'text/plain' });
      same(f.nom, 'sauvegarde.txt', 'uploaded');
      check((await client.files.list()).some((x) => x.nom === 'sauvegarde.txt'), 'listed');
      same((await client.files.get('sauvegarde.txt')).contenu, contenu, 'the same content');
      await client.files.remove('sauvegarde.txt');
      same((await rejects(client.files.get('sauvegarde.txt'))).code, 'file_not_found', 'removed');
    },
    async leaderboards() {
      const { client, joueur } = await registered();
      check((await client.leaderboards()).some((b) => b.id === 'meilleur-score'), 'the board is listed');
      const r = await client.leaderboard('meilleur-score').submit(4242);
      same(r.valeur, 4242, 'submitted');
      const scores = await client.leaderboard('meilleur-score').scores({ autour: 'moi' });
      same(scores.find((s) => s.joueur_id === joueur.id)?.valeur, 4242, 'the player\'s entry');
    },
    async economy() {
      const { client } = await registered();
      same((await client.economy.wallet()).find((s) => s.code === 'or')?.solde, 100, 'the starting balance');
      const key = unique('achat-');
      const bought = await client.economy.buy('potion', { idempotencyKey: key });
      same(bought.portefeuille.find((s) => s.code === 'or')?.solde, 70, 'the balance after the purchase');
      await client.economy.buy('potion', { idempotencyKey: key });
      same((await client.economy.wallet()).find((s) => s.code === 'or')?.solde, 70, 'a repeat of the same key buys nothing');
      same((await client.economy.inventory()).find((o) => o.code === 'potion')?.quantite, 1, 'one potion');
    },
    async matchmaking() {
      const a = await registered(), b = await registered();
      same((await a.client.matchmaking.join('1v1', 1000)).status, 'waiting', 'join');
      same((await a.client.matchmaking.status()).status, 'waiting', 'status');
      same((await a.client.matchmaking.leave()).status, 'idle', 'leave');
      same((await a.client.matchmaking.status()).status, 'idle', 'not in the queue any more');
      await a.client.matchmaking.join('1v1', 1000);
      const m = await b.client.matchmaking.join('1v1', 1000);
      same(m.status, 'matched', 'two players matched');
      check(typeof m.partie_id === 'string', 'a match id');
      same((await a.client.matchmaking.status()).partie_id, m.partie_id, 'the first player learns its match');
    },
    async realtime_config() {
      const { client } = await registered();
      const c = await client.realtime.config();
      check(typeof c.url === 'string' && c.url.startsWith('ws'), 'a ws url');
      check(c.key && c.channel_prefix && c.private === true && c.token, 'key, channel_prefix, private, token');
      check(Date.parse(c.token_expire_le!) > Date.now(), 'the token expires in the future');
    },
    async realtime_room() {
      const m = await matched({ subscribe: false });
      const stop = await m.seats[0]!.client.match(m.id).subscribe({});
      await stop();
      const outsider = await registered();
      let told: ManetteError | undefined;
      const err = await rejects(outsider.client.match(m.id).subscribe({ onError: (e) => { told = e; } }));
      check(typeof err.code === 'string' && typeof err.status === 'number' && err.message, `a typed error (${String(err)})`);
      void told;
    },
    async match_play() {
      await playWhole();
    },
    async match_play_etat_aux_autres() {
      await playWhole(config.keys.etat_aux_autres);
    },
    async match_turn_timeout() {
      const m = await matched({ mode: 'chrono' });
      try {
        await m.finished(m.seats[1]!.id);
      } finally {
        await m.close();
      }
    },
    async recovery_realtime_restart() {
      const m = await matched({ pollMs: 2000 });
      try {
        await m.play(0);
        await m.play(1);
        await control('POST', '/realtime/stop');
        try {
          await m.play(2); // committed while Realtime is down: its events are lost
        } finally {
          await control('POST', '/realtime/start');
        }
        await m.play(3);
        await m.play(4);
        await m.finished();
      } finally {
        await m.close();
      }
    },
    async recovery_dropped_etat() {
      const m = await matched({ pollMs: 2000 });
      try {
        const before = (await control('GET', '/realtime/dropped')).dropped as number;
        await m.play(0);
        await control('POST', '/realtime/drop', { event: 'etat', count: 1, topic: `manette_partie_${m.id}` });
        await m.play(1);
        await m.play(2);
        await m.play(3);
        await m.play(4);
        await m.finished();
        check((await control('GET', '/realtime/dropped')).dropped > before, 'an etat was dropped');
      } finally {
        await m.close();
      }
    },
    async token_renewal() {
      const m = await matched();
      try {
        // Longer than two lifetimes of the realtime token: the SDK renews it meanwhile.
        await sleep(config.tokenTtlS * 2_000 + 5_000);
        const after = m.seats.map((s) => s.actions.length);
        for (let k = 0; k < MOVES.length; k++) await m.play(k);
        await m.finished();
        for (const [i, s] of m.seats.entries()) check(s.actions.length > after[i]!, `seat ${i} still receives action events`);
      } finally {
        await m.close();
      }
    },
    async errors() {
      const { pseudo } = await registered();
      const en = await rejects(newClient({ lang: 'en' }).auth.login({ identifiant: pseudo, password: 'mauvais-mot-de-passe' }));
      same([en.code, en.status, en.message], ['invalid_credentials', 401, 'Wrong login or password.'], 'in English');
      const fr = await rejects(newClient({ lang: 'fr' }).auth.login({ identifiant: pseudo, password: 'mauvais-mot-de-passe' }));
      same([fr.code, fr.message], ['invalid_credentials', 'Identifiant ou mot de passe incorrect.'], 'in French');
      const m = await matched({ subscribe: false });
      const refused = await rejects(m.seats[1]!.client.match(m.id).act('jouer', { case: 4 }));
      check(refused.code === 'action_refusee' && refused.status === 409 && typeof refused.reason === 'string' && refused.reason, `a refused move has its reason (${refused.reason})`);
    },
  };

  const results: CaseResult[] = [];
  for (const [id, run] of Object.entries(cases)) {
    if (only && !only.includes(id)) continue;
    try {
      await run();
      results.push({ case: id, ok: true });
      env.log?.(`ok ${id}`);
    } catch (err) {
      results.push({ case: id, ok: false, message: (err as Error).message });
      env.log?.(`FAIL ${id}: ${(err as Error).message}`);
    }
  }
  return results;
}
