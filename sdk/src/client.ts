// createClient: the SDK's whole surface (docs/sdk.md).
import { ManetteError, abortedError } from './errors.js';
import { apiBase, randomId, request, shortHash, type RequestOptions, type Transport } from './http.js';
import { isLocalId } from './queue.js';
import { createNotifications, type Notifications } from './notifications.js';
import { RealtimeHub, defaultRealtimeLoader, type RealtimeLoader } from './realtime.js';
import { replayStates, type Replay, type Rules, type ShippedRules } from './replay.js';
import { Session, defaultStorage, reportAsync } from './session.js';
import { Sync, type PendingOp, type SyncEvent } from './sync.js';
import { followSupabaseAuth, supabaseAsPlayer, type FromSupabaseOptions, type SupabaseAuthClientLike, type SupabaseCreateClient } from './supabase.js';
import type {
  AccountExport, DeletionProof, LinkWith, Achat, Article, EloMode, Fichier, Historique, Joueur, ObjetPossede, Solde, MatchActionEvent, MatchHistory, MatchStatus, PanelConfig, Partie, RealtimeConfig, Row, Score, Classement,
  SessionStorage, SubmitResult,
} from './types.js';

declare const __SDK_MODULE_URL__: string | undefined;

/** A Discord code's wire form (POST /players/login/discord, /players/lier). */
function discordBody(p: { code: string; codeVerifier?: string; redirectUri?: string }) {
  return {
    code: p.code,
    ...(p.codeVerifier !== undefined ? { code_verifier: p.codeVerifier } : {}),
    ...(p.redirectUri !== undefined ? { redirect_uri: p.redirectUri } : {}),
  };
}

/**
 * A PKCE pair (RFC 7636, S256) for an OAuth2 authorization such as Discord's: send
 * `codeChallenge` (with `code_challenge_method=S256`) in the authorization URL, keep
 * `codeVerifier` until the code comes back, then pass it to `auth.loginWithDiscord`.
 */
export async function createPkcePair(): Promise<{ codeVerifier: string; codeChallenge: string }> {
  const b64url = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  const codeVerifier = b64url(crypto.getRandomValues(new Uint8Array(48)));
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(codeVerifier)));
  return { codeVerifier, codeChallenge: b64url(digest) };
}

/** The URL this SDK was loaded from: the classic script's src, or the module's URL. */
const sdkUrl: string | undefined = (() => {
  try {
    const s = typeof document !== 'undefined' ? document.currentScript : null;
    if (s && 'src' in s && typeof s.src === 'string' && s.src) return s.src;
  } catch { /* no DOM */ }
  return typeof __SDK_MODULE_URL__ !== 'undefined' ? __SDK_MODULE_URL__ : undefined;
})();

export interface ClientOptions {
  /** The server (`http://localhost:3000`) or the API base (`.../api/public/v1`). Default: where the SDK was loaded from. */
  baseUrl?: string;
  apiKey: string;
  /** Language of the server's messages. Default 'fr'. */
  lang?: 'fr' | 'en';
  /** Where the session is kept. Default localStorage (shared between tabs). */
  storage?: SessionStorage;
  /** How to load @supabase/realtime-js, e.g. `() => import('@supabase/realtime-js')` in a bundled app. */
  realtime?: RealtimeLoader;
  /**
   * The WebSocket class realtime-js uses, where there is no global one (Node 20: the `ws`
   * package's `WebSocket`). Default: the global WebSocket.
   */
  transport?: unknown;
  fetch?: typeof fetch;
}

export interface ListOptions {
  limit?: number; offset?: number; order_by?: string; order_dir?: 'asc' | 'desc';
  where?: Record<string, string | number | boolean>;
}

export interface Table<D extends Record<string, unknown> = Record<string, unknown>> {
  list(opts?: ListOptions): Promise<Row<D>[]>;
  get(id: string): Promise<Row<D>>;
  /** Answers at once with `en_attente: true` (and a `local_` id) when the write is queued. */
  insert(donnees: D): Promise<Row<D>>;
  update(id: string, donnees: Partial<D>): Promise<Row<D>>;
  remove(id: string): Promise<Row<D>>;
}

export interface MatchSubscription {
  onAction?: (e: MatchActionEvent) => void;
  /**
   * The match's state, never older than the last one: each `etat` event, and a fresh
   * GET /match/state whenever an event may have been missed (Realtime delivers at most once):
   * after every (re)join, on a gap in `numero_tour`, when the `etat` of this client's own
   * accepted action has not come within 2 s, and after `pollMs` without any event.
   */
  onEtat?: (partie: Partie) => void;
  /** The room cannot be joined any more (e.g. the player is not a participant). */
  onError?: (err: ManetteError) => void;
  /** Re-read the state after this long without an event while the match is on. Default 15000 ms (at least 500). */
  pollMs?: number;
}

export interface MatchHandle {
  readonly id: string;
  state(): Promise<Partie>;
  /**
   * One page of the accepted actions (GET /match/history), with the initial state: the actions
   * with `numero` > `depuis` (default 0), at most `limit` (1–500, default 100). Call again with
   * `depuis: page.suivant` while it is not null.
   */
  history(opts?: { depuis?: number; limit?: number }): Promise<MatchHistory>;
  /**
   * Every state of the match: reads every page of its history and rebuilds, with the mode's
   * rules (`regles`: a shipped rule set's name, or the game's own function, see `Rules`),
   * the initial state then the state after each action, exactly as the server answered them.
   */
  replay(regles: ShippedRules | Rules): Promise<Replay>;
  act(action: string, donnees?: Record<string, unknown>, opts?: { numero_tour?: number }): Promise<Partie>;
  /** Resolves once the room is joined, with the function that leaves it. */
  subscribe(handlers: MatchSubscription): Promise<() => Promise<void>>;
}

export interface ManetteClient {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly lang: 'fr' | 'en';
  auth: {
    register(p: { pseudo: string; email: string; password: string; pays?: string }): Promise<Joueur>;
    login(p: { identifiant: string; password: string } | { email: string; password: string }): Promise<Joueur>;
    loginWithGoogle(idToken: string): Promise<Joueur>;
    /**
     * Signs in with a signed identity token (POST /players/login/jeton): `fournisseur` names
     * a provider of the game file's `connexions` (e.g. `apple`, `supabase`), `jeton` is the
     * token it gave (an Apple identity token, a Supabase session's access_token...). Each
     * token signs in once: get a fresh one for the next login. Session kept.
     */
    loginWithToken(fournisseur: string, jeton: string): Promise<Joueur>;
    /**
     * Signs in with a Steam ticket (POST /players/login/steam): the hex of the bytes of
     * `ISteamUser::GetAuthTicketForWebApi(identity)` (the game file's `connexions.steam.identite`)
     * or `GetAuthSessionTicket`. Each ticket signs in once. Session kept.
     */
    loginWithSteam(ticket: string): Promise<Joueur>;
    /**
     * Signs in with a Discord OAuth2 authorization code (POST /players/login/discord): with the
     * PKCE verifier and redirect URI of the authorization (`createPkcePair()` makes the pair),
     * or the code alone from a Discord Activity's `authorize` command. Session kept.
     */
    loginWithDiscord(p: { code: string; codeVerifier?: string; redirectUri?: string }): Promise<Joueur>;
    restore(): Promise<Joueur | null>;
    logout(): Promise<void>;
    readonly player: Joueur | null;
    /** The session token (for calls the SDK does not wrap); null when logged out. */
    readonly token: string | null;
    onChange(cb: (joueur: Joueur | null) => void): () => void;
    uploadAvatar(blob: Blob): Promise<Joueur>;
    /** The player's server-side ratings, by mode code (modes with `"elo": "serveur"`; GET /players/me). */
    ratings(): Promise<Record<string, EloMode>>;
    /**
     * Plays without an account (POST /players/invite): a guest (`invite: true`) with a
     * generated pseudo; session kept. The SDK sends this device's `appareil_id` (made on the
     * first call, kept per game in `storage`), so the same guest comes back after a logout
     * or a reload. `appareilId`: the game's own id instead (not kept), or `false` for none
     * (a new guest every time).
     */
    guest(opts?: { appareilId?: string | false }): Promise<Joueur>;
    /**
     * Turns the signed-in guest into a full account (POST /players/lier), keeping its id
     * and data: `{pseudo?, email, password}`, `{idToken}` (Google) or `{fournisseur, jeton}`
     * (an identity token, as loginWithToken). The session stays.
     */
    link(p: LinkWith): Promise<Joueur>;
    /** Asks for a reset code by e-mail (POST /players/mot-de-passe/oubli); the same answer whether the account exists or not. */
    requestReset(email: string): Promise<void>;
    /**
     * Sets a new password with the e-mailed code (POST /players/mot-de-passe/reinitialiser).
     * Every session of that account is revoked: the kept session is cleared when it is that
     * account's.
     */
    reset(p: { email: string; code: string; password: string }): Promise<void>;
    /** Every datum Manette holds about the player (GET /players/me/export). */
    exportData(): Promise<AccountExport>;
    /**
     * Deletes the account (POST /players/me/supprimer) with its password, a fresh Google ID
     * token, or nothing for a guest. Then the session, the device's guest id and the
     * player's queued offline writes are cleared (onChange(null)).
     */
    deleteAccount(proof?: DeletionProof): Promise<void>;
    /**
     * Signs in from a Supabase Auth session (docs/sdk.md, "Supabase"): `supabase` is the
     * studio's supabase-js client; its session's access token goes to POST
     * /players/login/jeton (`fournisseur`, default `supabase`: the game file's
     * `{"supabase": true}` entry), then its auth state changes are followed (another user
     * signed in: signed in as that user; signed out: logged out of Manette). Resolves with
     * the function that stops following.
     */
    fromSupabase(supabase: SupabaseAuthClientLike, opts?: FromSupabaseOptions): Promise<() => void>;
  };
  /**
   * A supabase-js client acting as the signed-in player (docs/sdk.md, "Supabase"): made with
   * the studio's own `createClient` (the SDK does not bundle supabase-js), its access token
   * the player's Realtime token (role `authenticated`, `sub` = the player's id), renewed
   * before it expires: the studio's tables, storage and channels see `auth.uid()` = the player.
   * Resolves once its Realtime client holds the token.
   */
  supabase<C>(createClient: SupabaseCreateClient<C>, supabaseUrl: string, supabaseKey: string, options?: Record<string, unknown>): Promise<C>;
  table<D extends Record<string, unknown> = Record<string, unknown>>(nom: string): Table<D>;
  sync: {
    pending(): Promise<PendingOp[]>;
    flush(): Promise<void>;
    onChange(cb: (e: SyncEvent) => void): () => void;
  };
  files: {
    upload(p: { nom: string; contenu: string; mime_type: string; ecraser?: boolean }): Promise<Fichier>;
    list(): Promise<Fichier[]>;
    get(nom: string): Promise<{ fichier: Fichier; contenu: string }>;
    remove(nom: string): Promise<Fichier>;
  };
  /** The game's leaderboards, by id (GET /leaderboards). */
  leaderboards(): Promise<Classement[]>;
  leaderboard(id: string): {
    submit(valeur: number): Promise<SubmitResult>;
    scores(opts?: { limit?: number; offset?: number; autour?: 'moi' }): Promise<Score[]>;
  };
  shop: { articles(): Promise<Article[]> };
  economy: {
    /** Every currency of the game with the player's balance (GET /economie/portefeuille). */
    wallet(): Promise<Solde[]>;
    /** The objects the player holds (GET /economie/inventaire). */
    inventory(): Promise<ObjetPossede[]>;
    /**
     * Buys `quantite` (1–100, default 1) of the article `code` (POST /shop/acheter). One
     * Idempotency-Key per call, sent again on the SDK's own retries (no answer, 502/503/504,
     * 429), so a lost answer never buys twice. `idempotencyKey`: the game's own key instead
     * (kept by the game across a restart, so a purchase asked again is not bought twice).
     */
    buy(code: string, opts?: { quantite?: number; idempotencyKey?: string }): Promise<Achat>;
    /** Consumes `quantite` (default 1) of an object (POST /economie/utiliser): the new inventory. */
    use(objet: string, quantite?: number): Promise<ObjetPossede[]>;
    /** The player's ledger, newest first (GET /economie/historique); `avant`: the page's `suivant`. */
    history(opts?: { limit?: number; avant?: number }): Promise<Historique>;
  };
  panel(): Promise<PanelConfig>;
  matchmaking: {
    join(mode_jeu: string, elo_actuel: number): Promise<MatchStatus>;
    status(): Promise<MatchStatus>;
    leave(): Promise<MatchStatus>;
    /** Resolves with the matched status (player channel's `matched` event, polling as heartbeat and fallback). */
    waitForMatch(opts?: { signal?: AbortSignal; pollMs?: number }): Promise<MatchStatus>;
  };
  match(partie_id: string): MatchHandle;
  matches: {
    /**
     * The matches in progress this player may watch (GET /match/live): those of the game's modes
     * with `"spectateurs": true` (of `mode_jeu` only, when given), newest first, at most `limit`
     * (1–100, default 20). Watch one with `match(partie.id).subscribe(...)`; a spectator reads,
     * never acts.
     */
    live(opts?: { mode_jeu?: string; limit?: number }): Promise<Partie[]>;
  };
  realtime: { config(): Promise<RealtimeConfig> };
  /** 'Your turn' notifications: Web Push subscription, kinds, presence (docs/notifications.md). */
  notifications: Notifications;
}

let last: ManetteClient | undefined;

/** How long the `etat` of the client's own accepted action may take before the state is re-read. */
const OWN_ETAT_WAIT_MS = 2000;
const DEFAULT_POLL_MS = 15_000;
/** Waits before the retries of a purchase (or a use) left without a usable answer. */
const ECONOMY_RETRY_MS = [300, 1000, 3000];

/** The last client created (the panels use it when no `client` property is set). */
export function lastClient(): ManetteClient | undefined {
  return last;
}

function without<T>(body: object): T {
  const { ok: _ok, ...rest } = body as Record<string, unknown>;
  return rest as T;
}

export function createClient(options: ClientOptions): ManetteClient {
  if (!options || typeof options.apiKey !== 'string' || !options.apiKey) throw new TypeError('createClient: apiKey is required');
  const given = options.baseUrl ?? (sdkUrl ? new URL(sdkUrl).origin : undefined);
  if (!given) throw new TypeError('createClient: baseUrl is required');
  const lang = options.lang === 'en' ? 'en' : 'fr';
  const base = apiBase(given);
  const t: Transport = { base, apiKey: options.apiKey, lang, fetch: options.fetch ?? globalThis.fetch.bind(globalThis) };
  const storage = options.storage ?? defaultStorage();
  const session = new Session(options.apiKey, storage);
  const scope = shortHash(`${base}|${options.apiKey}`);
  const sync = new Sync(t, session, scope);

  /** A call with the session token; an `invalid_token` answer ends the session. */
  async function call<T = Record<string, unknown>>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const token = session.currentToken;
    try {
      return await request<T>(t, method, path, { token, ...opts });
    } catch (err) {
      if (err instanceof ManetteError && err.code === 'invalid_token' && token && session.currentToken === token) session.clear();
      throw err;
    }
  }

  async function signedIn(body: { token: string; data: { joueur: Joueur } }): Promise<Joueur> {
    session.set(body.token, body.data.joueur);
    return body.data.joueur;
  }

  const hub = new RealtimeHub(
    () => call<RealtimeConfig & { ok: true }>('GET', '/realtime/config').then((b) => without<RealtimeConfig>(b)),
    options.realtime ?? defaultRealtimeLoader(sdkUrl, base),
    lang,
    options.transport,
  );

  /**
   * A POST that must not happen twice: one Idempotency-Key for the call, the same on every
   * retry after no answer (or a 502/503/504/429), so the server answers a replay with the
   * first answer instead of doing it again.
   */
  async function retried(method: string, path: string, body: unknown, idempotencyKey = randomId()): Promise<Record<string, unknown>> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await call(method, path, { body, idempotencyKey });
      } catch (err) {
        const again = err instanceof ManetteError && (err.code === 'network_error' || [429, 502, 503, 504].includes(err.status));
        if (!again || attempt >= ECONOMY_RETRY_MS.length) throw err;
        await new Promise((r) => setTimeout(r, ECONOMY_RETRY_MS[attempt]));
      }
    }
  }

  /** Subscriptions of this client, by match: told each action it got accepted (the HTTP answer, and the action as sent). */
  const accepted = new Map<string, Set<(partie: Partie, played: { action: string; donnees: Record<string, unknown>; numero_tour?: number }) => void>>();

  const tablePath = (nom: string, id?: string) => `/tables/${encodeURIComponent(nom)}${id === undefined ? '' : `/${encodeURIComponent(id)}`}`;

  const client: ManetteClient = {
    baseUrl: base,
    apiKey: options.apiKey,
    lang,
    auth: {
      async register(p) {
        return signedIn(await call('POST', '/players/register', { body: p, token: null }));
      },
      async login(p) {
        return signedIn(await call('POST', '/players/login', { body: p, token: null }));
      },
      async loginWithGoogle(idToken) {
        return signedIn(await call('POST', '/players/google', { body: { id_token: idToken }, token: null }));
      },
      async loginWithToken(fournisseur, jeton) {
        // A Steam ticket is no signed token: Steam's own endpoint (so a panel's provider button works for it too).
        if (fournisseur === 'steam') return signedIn(await call('POST', '/players/login/steam', { body: { ticket: jeton }, token: null }));
        return signedIn(await call('POST', '/players/login/jeton', { body: { fournisseur, jeton }, token: null }));
      },
      async loginWithSteam(ticket) {
        return signedIn(await call('POST', '/players/login/steam', { body: { ticket }, token: null }));
      },
      async loginWithDiscord(p) {
        return signedIn(await call('POST', '/players/login/discord', { body: discordBody(p), token: null }));
      },
      async restore() {
        if (!session.currentToken) return null;
        try {
          const body = await call<{ data: { joueur: Joueur } }>('GET', '/players/me');
          session.setPlayer(body.data.joueur);
          return body.data.joueur;
        } catch (err) {
          if (err instanceof ManetteError && (err.code === 'invalid_token' || err.code === 'missing_player')) return null;
          throw err;
        }
      },
      async logout() {
        if (!session.currentToken) return;
        try {
          await call('POST', '/players/logout');
        } catch (err) {
          // Logged out locally in any case; only a refusal other than "already invalid" is worth telling.
          session.clear();
          if (err instanceof ManetteError && (err.code === 'invalid_token' || err.code === 'network_error')) return;
          throw err;
        }
        session.clear();
      },
      get player() { return session.player; },
      get token() { return session.currentToken; },
      onChange: (cb) => session.onChange(cb),
      async uploadAvatar(blob) {
        const contenu = await base64Of(blob);
        const body = await call<{ data: { joueur: Joueur } }>('POST', '/players/avatar', { body: { contenu, mime_type: blob.type } });
        session.setPlayer(body.data.joueur);
        return body.data.joueur;
      },
      async ratings() {
        const body = await call<{ data: { joueur: Joueur; elo: Record<string, EloMode> } }>('GET', '/players/me');
        session.setPlayer(body.data.joueur);
        return body.data.elo;
      },
      async guest(opts = {}) {
        const appareil = opts.appareilId === undefined ? session.deviceId() : opts.appareilId;
        const body = appareil === false ? {} : { appareil_id: appareil };
        return signedIn(await call('POST', '/players/invite', { body, token: null }));
      },
      async link(p) {
        const body = 'idToken' in p ? { id_token: p.idToken }
          : 'code' in p ? { fournisseur: 'discord', ...discordBody(p) }
          : 'jeton' in p ? { fournisseur: p.fournisseur, jeton: p.jeton }
            : { ...(p.pseudo !== undefined ? { pseudo: p.pseudo } : {}), email: p.email, password: p.password };
        const res = await call<{ data: { joueur: Joueur } }>('POST', '/players/lier', { body });
        // The server forgot the device (a return by appareil_id makes a new guest now): so does the SDK.
        session.forgetDevice();
        session.setPlayer(res.data.joueur);
        return res.data.joueur;
      },
      async requestReset(email) {
        await call('POST', '/players/mot-de-passe/oubli', { body: { email }, token: null });
      },
      async reset(p) {
        await call('POST', '/players/mot-de-passe/reinitialiser', { body: { email: p.email, code: p.code, password: p.password }, token: null });
        const mine = session.player?.email;
        if (mine && mine.trim().toLowerCase() === p.email.trim().toLowerCase()) session.clear();
      },
      async exportData() {
        return (await call<{ data: AccountExport }>('GET', '/players/me/export')).data;
      },
      async deleteAccount(proof) {
        const body = !proof ? {} : 'idToken' in proof ? { id_token: proof.idToken }
          : 'code' in proof ? { fournisseur: 'discord', ...discordBody(proof) }
          : 'jeton' in proof ? { fournisseur: proof.fournisseur, jeton: proof.jeton } : { password: proof.password };
        const player = session.player?.id;
        // Idempotent on the server (the same, now revoked, token answers the same 200): a
        // lost answer is asked again.
        for (let attempt = 0; ; attempt++) {
          try {
            await call('POST', '/players/me/supprimer', { body });
            break;
          } catch (err) {
            const again = err instanceof ManetteError && (err.code === 'network_error' || [502, 503, 504].includes(err.status));
            if (!again || attempt >= ECONOMY_RETRY_MS.length) throw err;
            await new Promise((r) => setTimeout(r, ECONOMY_RETRY_MS[attempt]));
          }
        }
        session.forgetDevice();
        session.clear();
        if (player) await sync.forget(player);
      },
      fromSupabase(sb, opts) {
        return followSupabaseAuth({
          loginWithToken: (f, j) => client.auth.loginWithToken(f, j),
          logout: () => client.auth.logout(),
          get player() { return session.player; },
          storage,
          linkKey: `manette.supabase.${shortHash(options.apiKey)}`,
        }, sb, opts);
      },
    },

    supabase(createClient, supabaseUrl, supabaseKey, supabaseOptions) {
      return supabaseAsPlayer(() => client.realtime.config(), () => session.player, createClient, supabaseUrl, supabaseKey, supabaseOptions);
    },

    table<D extends Record<string, unknown>>(nom: string): Table<D> {
      return {
        async list(opts = {}) {
          const { where, ...rest } = opts;
          const body = await call<{ data: Row<D>[] }>('GET', tablePath(nom), { query: { ...rest, ...where } });
          return body.data;
        },
        async get(id) {
          const target = isLocalId(id) ? await serverIdOf(id) : id;
          const body = await call<{ data: Row<D> }>('GET', tablePath(nom, target));
          return body.data;
        },
        insert: (donnees) => sync.write('insert', nom, undefined, donnees) as Promise<Row<D>>,
        update: (id, donnees) => sync.write('update', nom, id, donnees as Record<string, unknown>) as Promise<Row<D>>,
        remove: (id) => sync.write('remove', nom, id, undefined) as Promise<Row<D>>,
      };
    },

    sync: {
      pending: () => sync.pending(),
      flush: () => sync.flush(),
      onChange: (cb) => sync.onChange(cb),
    },

    files: {
      async upload(p) {
        return (await call<{ data: { fichier: Fichier } }>('POST', '/storage/upload', { body: p })).data.fichier;
      },
      async list() {
        return (await call<{ data: Fichier[] }>('GET', '/storage/files')).data;
      },
      async get(nom) {
        return (await call<{ data: { fichier: Fichier; contenu: string } }>('GET', `/storage/files/${encodeURIComponent(nom)}`)).data;
      },
      async remove(nom) {
        return (await call<{ data: { fichier: Fichier } }>('DELETE', `/storage/files/${encodeURIComponent(nom)}`)).data.fichier;
      },
    },

    async leaderboards() {
      return (await call<{ data: Classement[] }>('GET', '/leaderboards')).data;
    },

    leaderboard(id) {
      const path = `/leaderboards/${encodeURIComponent(id)}`;
      return {
        async submit(valeur) {
          return (await call<{ data: SubmitResult }>('POST', `${path}/submit`, { body: { valeur } })).data;
        },
        async scores(opts = {}) {
          return (await call<{ data: Score[] }>('GET', `${path}/scores`, { query: opts })).data;
        },
      };
    },

    shop: {
      async articles() { return (await call<{ data: Article[] }>('GET', '/shop/articles')).data; },
    },

    economy: {
      async wallet() {
        return (await call<{ data: Solde[] }>('GET', '/economie/portefeuille')).data;
      },
      async inventory() {
        return (await call<{ data: ObjetPossede[] }>('GET', '/economie/inventaire')).data;
      },
      async buy(code, opts = {}) {
        const body: Record<string, unknown> = { code };
        if (opts.quantite !== undefined) body.quantite = opts.quantite;
        return (await retried('POST', '/shop/acheter', body, opts.idempotencyKey)).data as Achat;
      },
      async use(objet, quantite = 1) {
        return ((await retried('POST', '/economie/utiliser', { objet, quantite })).data as { inventaire: ObjetPossede[] }).inventaire;
      },
      async history(opts = {}) {
        return (await call<{ data: Historique }>('GET', '/economie/historique', { query: { limit: opts.limit, avant: opts.avant } })).data;
      },
    },

    async panel() {
      return (await call<{ data: PanelConfig }>('GET', '/panel', { token: null })).data;
    },

    matchmaking: {
      async join(mode_jeu, elo_actuel) {
        return without<MatchStatus>(await call('POST', '/matchmaking/join', { body: { mode_jeu, elo_actuel } }));
      },
      async status() {
        return without<MatchStatus>(await call('GET', '/matchmaking/status'));
      },
      async leave() {
        return without<MatchStatus>(await call('POST', '/matchmaking/leave'));
      },
      waitForMatch: (opts = {}) => waitForMatch(opts),
    },

    match(partie_id) {
      const handle: MatchHandle = {
        id: partie_id,
        async state() {
          return (await call<{ partie: Partie }>('GET', '/match/state', { query: { partie_id } })).partie;
        },
        async history(opts = {}) {
          return without<MatchHistory>(await call('GET', '/match/history', {
            query: { partie_id, depuis: opts.depuis, limit: opts.limit },
          }));
        },
        async replay(regles) {
          const first = await handle.history({ limit: 500 });
          const actions = [...first.actions];
          let page = first;
          while (page.suivant !== null) {
            page = await handle.history({ depuis: page.suivant, limit: 500 });
            actions.push(...page.actions);
          }
          // The last page read says whether the end counted (it is the freshest).
          return { partie_id, actions, etats: replayStates({ etat_initial: first.etat_initial, actions, comptee: page.comptee }, regles) };
        },
        async act(action, donnees = {}, opts = {}) {
          const body: Record<string, unknown> = { partie_id, action, donnees };
          if (opts.numero_tour !== undefined) body.numero_tour = opts.numero_tour;
          const partie = (await call<{ partie: Partie }>('POST', '/match/action', { body })).partie;
          for (const told of accepted.get(partie_id) ?? []) told(partie, { action, donnees, numero_tour: opts.numero_tour ?? undefined });
          return partie;
        },
        subscribe: (handlers) => subscribeMatch(handle, handlers),
      };
      return handle;
    },

    matches: {
      async live(opts = {}) {
        return (await call<{ parties: Partie[] }>('GET', '/match/live', {
          query: { mode_jeu: opts.mode_jeu, limit: opts.limit },
        })).parties;
      },
    },

    realtime: {
      config: () => call<RealtimeConfig & { ok: true }>('GET', '/realtime/config').then((b) => without<RealtimeConfig>(b)),
    },
    notifications: createNotifications(call, { sdkUrl, scope, lang, loggedIn: () => !!session.currentToken }),
  };

  async function serverIdOf(localId: string): Promise<string> {
    const pending = await sync.pending();
    const mapped = (await sync.mappedId(localId));
    if (mapped) return mapped;
    if (pending.some((op) => op.row_id === localId)) {
      throw new ManetteError({ code: 'row_pending', status: 0, message: lang === 'en' ? 'This row is not on the server yet.' : 'Cette ligne n’est pas encore sur le serveur.' });
    }
    return localId; // the server answers row_not_found
  }

  async function subscribeMatch(handle: MatchHandle, h: MatchSubscription): Promise<() => Promise<void>> {
    // Realtime delivers at most once (nothing is replayed after a disconnection, a quota
    // may drop events): the state is re-read whenever an event may have been missed.
    let latest: Partie | undefined;
    let stopped = false;
    let lastHeard = Date.now();
    const pollMs = Math.max(500, h.pollMs ?? DEFAULT_POLL_MS);
    const ownWaits = new Set<ReturnType<typeof setTimeout>>();
    // Events and re-reads may cross: never go back to an older state.
    const deliver = (p: Partie) => {
      if (stopped) return;
      if (latest && (p.numero_tour < latest.numero_tour
        || (p.numero_tour === latest.numero_tour && Date.parse(p.maj_le) < Date.parse(latest.maj_le))
        || (latest.statut !== 'en_cours' && p.statut === 'en_cours'))) return; // terminee and annulee are final
      latest = p;
      try { h.onEtat?.(p); } catch (err) { reportAsync(err); }
    };
    // One read at a time; a request made meanwhile runs once it ends.
    let reading = false;
    let again = false;
    const reread = () => {
      if (stopped) return;
      if (reading) { again = true; return; }
      reading = true;
      handle.state().then((p) => { lastHeard = Date.now(); deliver(p); }, (err) => {
        if (err instanceof ManetteError && err.code !== 'network_error') h.onError?.(err);
      }).finally(() => {
        reading = false;
        if (again) { again = false; reread(); }
      });
    };
    /** A `numero_tour` beyond the next one means an event was missed. */
    const gap = (numeroTour: unknown, ahead: number) => typeof numeroTour === 'number' && latest !== undefined
      && numeroTour > latest.numero_tour + ahead;
    // The game file's realtime.evenements (GET /realtime/config; absent: action_etat), and
    // whether this client listens on its own channel (a participant in etat_aux_autres).
    let setting: RealtimeConfig['evenements'] = 'action_etat';
    let ownChannel = false;
    const me = session.player?.id;
    const played = (e: MatchActionEvent) => {
      // Played in a turn after the last state known: an `etat` was missed.
      if (gap(e.numero_tour, 0)) reread();
      try { h.onAction?.(e); } catch (err) { reportAsync(err); }
    };
    // The client's own accepted action. On its own channel nothing comes back (the server
    // sends it to the others only): the HTTP answer is delivered as the room would have,
    // the action then its state. Elsewhere its `etat` should follow at once.
    const expectOwn = (partie: Partie, sent: { action: string; donnees: Record<string, unknown>; numero_tour?: number }) => {
      if (stopped) return;
      if (ownChannel) {
        lastHeard = Date.now();
        const turn = sent.numero_tour ?? (latest && latest.numero_tour <= partie.numero_tour ? latest.numero_tour : partie.numero_tour);
        if (!latest || partie.numero_tour > latest.numero_tour || Date.parse(partie.maj_le) > Date.parse(latest.maj_le)) {
          try { h.onAction?.({ joueur_id: me ?? null, action: sent.action, donnees: sent.donnees, numero_tour: turn }); } catch (err) { reportAsync(err); }
        }
        deliver(partie);
        return;
      }
      const numeroTour = partie.numero_tour;
      if (latest && latest.numero_tour >= numeroTour) return;
      const t = setTimeout(() => {
        ownWaits.delete(t);
        if (!latest || latest.numero_tour < numeroTour) reread();
      }, OWN_ETAT_WAIT_MS);
      ownWaits.add(t);
    };
    const watchers = accepted.get(handle.id) ?? new Set();
    accepted.set(handle.id, watchers);
    watchers.add(expectOwn);
    // Nothing heard for pollMs while the match is on: read it.
    const poll = setInterval(() => {
      if ((latest?.statut ?? 'en_cours') === 'en_cours' && Date.now() - lastHeard >= pollMs) {
        lastHeard = Date.now();
        reread();
      }
    }, Math.max(250, Math.floor(pollMs / 4)));
    const end = () => {
      stopped = true;
      clearInterval(poll);
      for (const t of ownWaits) clearTimeout(t);
      watchers.delete(expectOwn);
      if (watchers.size === 0 && accepted.get(handle.id) === watchers) accepted.delete(handle.id);
    };
    let channel: { stop(): Promise<void> };
    try {
      channel = await hub.join(
        async (cfg) => {
          setting = cfg.evenements ?? 'action_etat';
          if (setting !== 'etat_aux_autres' || !me) return cfg.channel_prefix + handle.id;
          // etat_aux_autres: a participant hears the others' actions on its own channel; a
          // spectator (or the console) on the room. Which one is this client: the state says.
          const p = latest ?? await handle.state();
          deliver(p);
          ownChannel = p.participants.some((x) => x.joueur_id === me);
          return ownChannel ? `manette_joueur_${me}` : cfg.channel_prefix + handle.id;
        },
        {
          action: (payload) => {
            lastHeard = Date.now();
            played(payload as MatchActionEvent);
          },
          etat: (payload) => {
            const p = payload as Partie & { action?: MatchActionEvent };
            // A player's own channel carries the events of all its matches.
            if (p.id !== handle.id) return;
            lastHeard = Date.now();
            if (setting !== 'action_etat' && p.action && typeof p.action === 'object') {
              // One event per action: the action it carries, then the state (as `etat` always was).
              const { action, ...partie } = p;
              played(action);
              if (gap(partie.numero_tour, 1)) reread();
              deliver(partie as Partie);
              return;
            }
            if (gap(p.numero_tour, 1)) reread();
            deliver(p);
          },
        },
        // Every (re)join follows a gap in which events may have been missed.
        reread,
        h.onError,
      );
    } catch (err) {
      end();
      throw err;
    }
    // The page slept or the network came back: the socket may not have noticed yet.
    const onWake = () => { if (typeof document === 'undefined' || document.visibilityState !== 'hidden') reread(); };
    if (typeof window !== 'undefined') {
      window.addEventListener('online', onWake);
      document.addEventListener?.('visibilitychange', onWake);
    }
    return async () => {
      end();
      if (typeof window !== 'undefined') {
        window.removeEventListener('online', onWake);
        document.removeEventListener?.('visibilitychange', onWake);
      }
      await channel.stop();
    };
  }

  async function waitForMatch(opts: { signal?: AbortSignal; pollMs?: number }): Promise<MatchStatus> {
    const { signal } = opts;
    const pollMs = Math.max(500, opts.pollMs ?? 2000);
    if (signal?.aborted) throw abortedError(lang);
    const first = await client.matchmaking.status();
    if (first.status === 'matched') return first;
    const me = session.player;
    return new Promise<MatchStatus>((resolve, reject) => {
      let done = false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      let channel: { stop(): Promise<void> } | undefined;
      const finish = (fn: () => void) => {
        if (done) return;
        done = true;
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        void channel?.stop();
        fn();
      };
      const onAbort = () => finish(() => reject(abortedError(lang)));
      signal?.addEventListener('abort', onAbort);
      // Polling: the queue's heartbeat (an entry not polled is dropped), and the fallback.
      const poll = async () => {
        if (done) return;
        try {
          const s = await client.matchmaking.status();
          if (s.status === 'matched') return finish(() => resolve(s));
          if (s.status === 'idle') {
            return finish(() => reject(new ManetteError({ code: 'not_queued', status: 0, message: lang === 'en' ? 'Not in the matchmaking queue.' : 'Pas dans la file d’attente.' })));
          }
        } catch (err) {
          if (!(err instanceof ManetteError) || err.code !== 'network_error') return finish(() => reject(err));
        }
        if (!done) timer = setTimeout(() => { void poll(); }, pollMs);
      };
      timer = setTimeout(() => { void poll(); }, pollMs);
      if (me) {
        hub.join(() => `manette_joueur_${me.id}`, {
          matched: (payload) => finish(() => resolve(payload as MatchStatus)),
        }, () => { /* joined: a match made before the join is caught by the next poll */ }, undefined, true).then((c) => {
          if (done) void c.stop(); else channel = c;
        }, () => { /* realtime unavailable: polling alone */ });
      }
    });
  }

  last = client;
  return client;
}

async function base64Of(blob: Blob): Promise<string> {
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}
