// Manette and a studio's own Supabase (docs/sdk.md, "Supabase"), without bundling supabase-js:
// - followSupabaseAuth (m.auth.fromSupabase): signs the player in to Manette from the studio's
//   supabase-js client's Supabase Auth session (POST /players/login/jeton, provider
//   `{"supabase": true}`), and follows its auth state changes;
// - supabaseAsPlayer (m.supabase): a supabase-js client, made with the studio's own
//   `createClient`, whose access token is the player's Realtime token (GET /realtime/config),
//   so the studio's tables, storage and channels see `auth.uid()` = the Manette player.
import { ManetteError } from './errors.js';
import type { Joueur, RealtimeConfig, SessionStorage } from './types.js';

/** What Manette reads of a supabase-js Session: its access token and its user's id. */
export interface SupabaseSessionLike { access_token: string; user: { id: string } }
type SessionAnswer = { data: { session: SupabaseSessionLike | null }; error?: unknown };
/** The part of a supabase-js client (`SupabaseClient`) that `auth.fromSupabase` uses. */
export interface SupabaseAuthClientLike {
  auth: {
    getSession(): Promise<SessionAnswer>;
    refreshSession?(): Promise<SessionAnswer>;
    onAuthStateChange(cb: (event: string, session: SupabaseSessionLike | null) => void): { data: { subscription: { unsubscribe(): void } } };
  };
}

export interface FromSupabaseOptions {
  /** The game file's `connexions` entry that is `{"supabase": true}`. Default `supabase`. */
  fournisseur?: string;
  /** A later sign-in or sign-out (after an auth state change) that failed. */
  onError?: (err: unknown) => void;
}

/** What the follower needs of the Manette client. */
export interface FollowTarget {
  loginWithToken(fournisseur: string, jeton: string): Promise<Joueur>;
  logout(): Promise<void>;
  readonly player: Joueur | null;
  storage: SessionStorage | undefined;
  /** Where the link (Manette player ↔ Supabase user) is kept, per game. */
  linkKey: string;
}

interface Link { joueur_id: string; supabase_user_id: string }

function readLink(t: FollowTarget): Link | null {
  try {
    const raw = t.storage?.getItem(t.linkKey);
    const v = raw ? JSON.parse(raw) as Partial<Link> : null;
    return v && typeof v.joueur_id === 'string' && typeof v.supabase_user_id === 'string' ? v as Link : null;
  } catch { return null; }
}

function writeLink(t: FollowTarget, link: Link | null): void {
  try {
    if (link) t.storage?.setItem(t.linkKey, JSON.stringify(link)); else t.storage?.removeItem(t.linkKey);
  } catch { /* storage refused: the next page signs in again */ }
}

/** The Supabase user the Manette session was opened from (null when it was not, or it is over). */
function linkedUser(t: FollowTarget): string | null {
  const link = readLink(t);
  return link && t.player && t.player.id === link.joueur_id ? link.supabase_user_id : null;
}

/**
 * Signs in to Manette as the Supabase session's user (unless the Manette session already
 * is that user's), then follows the client's auth state: another user signed in → signs in
 * as that user; signed out → Manette logout (only of a session opened this way); the same
 * user (a refreshed token) → nothing. Resolves, once the current session is handled, with
 * the function that stops following.
 */
export async function followSupabaseAuth(t: FollowTarget, sb: SupabaseAuthClientLike, opts: FromSupabaseOptions = {}): Promise<() => void> {
  if (!sb || typeof sb !== 'object' || !sb.auth || typeof sb.auth.onAuthStateChange !== 'function' || typeof sb.auth.getSession !== 'function') {
    throw new TypeError('auth.fromSupabase: a supabase-js client is required (createClient from @supabase/supabase-js)');
  }
  const fournisseur = opts.fournisseur ?? 'supabase';
  let stopped = false;
  // One change at a time, in order: a sign-in waits for the one before it.
  let chain: Promise<unknown> = Promise.resolve();

  const signIn = async (session: SupabaseSessionLike): Promise<void> => {
    let joueur: Joueur;
    try {
      joueur = await t.loginWithToken(fournisseur, session.access_token);
    } catch (err) {
      // A Supabase access token opens one login (Manette refuses a replay): one already used
      // (e.g. by an earlier page of this browser) is refreshed once, then sent again.
      if (!(err instanceof ManetteError && err.code === 'invalid_credentials') || typeof sb.auth.refreshSession !== 'function') throw err;
      const fresh = (await sb.auth.refreshSession()).data.session;
      if (!fresh || fresh.user.id !== session.user.id || fresh.access_token === session.access_token) throw err;
      joueur = await t.loginWithToken(fournisseur, fresh.access_token);
    }
    writeLink(t, { joueur_id: joueur.id, supabase_user_id: session.user.id });
  };

  // The Supabase user the last change was about: a change about the same user (a refreshed
  // token, a tab regaining focus) is not a new sign-in, even when the Manette session was
  // ended on its own meanwhile (a logout through the panel stays a logout).
  let lastUser: string | null | undefined;
  const handle = async (session: SupabaseSessionLike | null, initial = false): Promise<void> => {
    if (stopped) return;
    const user = session?.user?.id ?? null;
    if (!initial && user === lastUser) return;
    lastUser = user;
    const linked = linkedUser(t);
    if (session?.user?.id && typeof session.access_token === 'string') {
      if (linked === session.user.id) return; // the same user: a refreshed token needs no new login
      // Another Supabase user: the session opened for the previous one ends first (revoked).
      if (linked) {
        writeLink(t, null);
        await t.logout();
      }
      await signIn(session);
      return;
    }
    // No Supabase session: end the Manette session only if it was opened from one.
    if (linked) {
      writeLink(t, null);
      await t.logout();
    }
  };

  const first = (await sb.auth.getSession()).data.session;
  await handle(first, true);
  const { data } = sb.auth.onAuthStateChange((event, session) => {
    if (stopped) return;
    if (!['INITIAL_SESSION', 'SIGNED_IN', 'TOKEN_REFRESHED', 'USER_UPDATED', 'SIGNED_OUT'].includes(event)) return;
    const next = event === 'SIGNED_OUT' ? null : session;
    // Deferred: supabase-js runs the callback inside its own lock; calling it back from there
    // (refreshSession) would wait on itself (Supabase's onAuthStateChange documentation).
    setTimeout(() => {
      chain = chain.then(() => handle(next)).catch((err) => {
        if (opts.onError) opts.onError(err); else console.warn('manette: auth.fromSupabase:', err);
      });
    }, 0);
  });
  return () => {
    stopped = true;
    data.subscription.unsubscribe();
  };
}

/** supabase-js's `createClient`, as the studio imports it (any version with the `accessToken` option, 2.45 and later). */
export type SupabaseCreateClient<C> = (supabaseUrl: string, supabaseKey: string, options: { accessToken: () => Promise<string | null> } & Record<string, unknown>) => C;

/** How early before `token_expire_le` a new token is asked for. */
const RENEW_BEFORE_MS = 60_000;

/**
 * A supabase-js client acting as the signed-in Manette player: made by the studio's
 * `createClient` with `accessToken` returning the player's Realtime token (a JWT with role
 * `authenticated` and `sub` = the player's id, signed with the key the project trusts),
 * fetched from GET /realtime/config and asked again a minute before it expires. Signed out
 * (or on another player), the next call fetches for the new state; with no player,
 * `accessToken` gives null and supabase-js uses the project key alone (role `anon`).
 * Resolves once supabase-js's Realtime client holds the token (private channels joined
 * right after carry it).
 */
export async function supabaseAsPlayer<C>(
  config: () => Promise<RealtimeConfig>,
  currentPlayer: () => Joueur | null,
  createClient: SupabaseCreateClient<C>,
  supabaseUrl: string,
  supabaseKey: string,
  options: Record<string, unknown> = {},
): Promise<C> {
  if (typeof createClient !== 'function') throw new TypeError('supabase(): pass createClient from @supabase/supabase-js');
  let held: { player: string; token: string; renewAt: number } | null = null;
  let pending: Promise<string | null> | null = null;
  const accessToken = async (): Promise<string | null> => {
    const player = currentPlayer()?.id ?? null;
    if (!player) { held = null; return null; }
    if (held && held.player === player && Date.now() < held.renewAt) return held.token;
    // supabase-js may call this concurrently: one request at a time.
    pending ??= config().then((cfg) => {
      if (!cfg.token) return null;
      const expires = cfg.token_expire_le ? Date.parse(cfg.token_expire_le) : Date.now() + 2 * RENEW_BEFORE_MS;
      const left = expires - Date.now();
      held = { player, token: cfg.token, renewAt: Date.now() + Math.max(0, Math.min(left - RENEW_BEFORE_MS, left / 2)) };
      return cfg.token;
    }).finally(() => { pending = null; });
    return pending;
  };
  const sb = createClient(supabaseUrl, supabaseKey, { ...options, accessToken });
  // supabase-js hands the token to its Realtime client without waiting: a private channel
  // joined at once would join without it (as `anon`, refused by a policy on auth.uid()).
  // Waiting for it here is what Supabase's Realtime Authorization guide asks of callers.
  const realtime = (sb as { realtime?: { setAuth?: () => Promise<unknown> } } | null)?.realtime;
  if (player() && typeof realtime?.setAuth === 'function') await realtime.setAuth();
  return sb;

  function player(): string | null { return currentPlayer()?.id ?? null; }
}
