// Signed identity tokens (OpenID Connect ID tokens, Supabase Auth access tokens...): the
// check of a token against a provider of a game file's `connexions` (docs/accounts.md, "Sign
// in with any identity token"). The database gives the provider (api.players_jeton_start);
// this checks the signature with the provider's key set, the issuer, the audience, the expiry
// and not-before; the database then checks the claims again against the game file as it is
// at that moment, keeps the token's hash (one use) and finds or creates the player.
// Google's ID tokens go through the same key sets (./google.ts).
import { createHash } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import type { SteamProvider } from './steam.js';
import { discordNeedsCode, type DiscordProvider } from './discord.js';

/** Signature algorithms a key set may verify: asymmetric only (an HS256 token would be
 *  "signed" with a secret nobody published, and a key set never holds one). */
export const TOKEN_ALGORITHMS = ['RS256', 'ES256'];
/** Clock difference tolerated on exp and nbf, in seconds. */
export const CLOCK_SKEW_S = 60;
/** The longest token accepted (the route's body limit too). */
export const MAX_TOKEN_CHARS = 8192;
/** OpenID Connect: `sub` is at most 255 ASCII characters (as for Google). */
const SUB = /^[\x21-\x7e]{1,255}$/;
const MAX_KEY_SETS = 256;

/** What api.players_jeton_start answers. */
export type Provider =
  | { type: 'jwks'; emetteur: string; audiences: string[]; jwks_url: string }
  | { type: 'supabase' }
  | SteamProvider
  | DiscordProvider;

/** What the database receives of a verified token. */
export interface TokenIdentity {
  iss: string;
  sub: string;
  aud: string[];
  /** Expiry (seconds since the epoch): the token's hash is kept until then. */
  exp: number;
  /** SHA-256 (hex) of iss and jti, or of the whole token when it has no jti. */
  token_hash: string;
  /** A display name for a new player's pseudo, when the token has one. */
  name: string | null;
  /** When the token was issued (seconds since the epoch), null if absent: a deletion wants a fresh one. */
  iat: number | null;
}

type KeySet = ReturnType<typeof createRemoteJWKSet>;

/** A claim kept only if it is a string Postgres can store (no U+0000, no lone surrogate), else null. */
const text = (v: unknown): string | null => (typeof v === 'string' && !/\u0000|\p{Cs}/u.test(v) ? v : null);

/**
 * Key sets by URL, shared by every provider and game of this process: a set is fetched on
 * first use, kept for `cacheS` seconds, and refetched sooner when a token names a key id it
 * lacks (a rotation), at most once every `cooldownS` seconds (jose's createRemoteJWKSet).
 */
export function createKeySets(opts: { cacheS: number; cooldownS: number }) {
  const sets = new Map<string, KeySet>();
  return function keySet(url: string): KeySet {
    let set = sets.get(url);
    if (!set) {
      if (sets.size >= MAX_KEY_SETS) sets.delete(sets.keys().next().value!);
      set = createRemoteJWKSet(new URL(url), {
        cacheMaxAge: opts.cacheS * 1000, cooldownDuration: opts.cooldownS * 1000, timeoutDuration: 5_000,
      });
      sets.set(url, set);
    }
    return set;
  };
}
export type KeySets = ReturnType<typeof createKeySets>;

/** The Supabase Auth of the project as a provider: issuer, key set, audience. */
export function supabaseAuth(authUrl: string) {
  const issuer = authUrl.replace(/\/+$/, '');
  return { issuer, jwksUrl: `${issuer}/.well-known/jwks.json`, audiences: ['authenticated'] };
}

/**
 * Checks `token` against `provider`: the identity, or null when it is not a valid token of
 * that provider (bad signature or key, other issuer or audience, expired, not yet valid,
 * no sub). Throws only when the Supabase provider is declared and no Supabase Auth URL is set.
 */
export function createIdentityVerifier(
  keySets: KeySets, supabaseAuthUrl: string | undefined,
  /** Steam's tickets, sent as a `jeton` of the provider `steam` (security/steam.ts). */
  steam?: (ticket: string, provider: SteamProvider) => Promise<TokenIdentity | null>,
) {
  return async function verifyIdentityToken(token: string, provider: Provider): Promise<TokenIdentity | null> {
    if (provider.type === 'steam') {
      if (!steam) throw new Error('Steam tickets need a Steam verifier (security/steam.ts)');
      return steam(token, provider);
    }
    if (provider.type === 'discord') throw discordNeedsCode();
    let issuer: string;
    let audiences: string[];
    let jwksUrl: string;
    if (provider.type === 'supabase') {
      if (!supabaseAuthUrl) {
        throw new Error('a game file declares connexions {"supabase": true} but MANETTE_SUPABASE_AUTH_URL is not set (docs/accounts.md)');
      }
      ({ issuer, audiences, jwksUrl } = supabaseAuth(supabaseAuthUrl));
    } else {
      ({ emetteur: issuer, audiences, jwks_url: jwksUrl } = provider);
    }
    if (token.length > MAX_TOKEN_CHARS) return null;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keySets(jwksUrl), {
        issuer, audience: audiences, algorithms: TOKEN_ALGORITHMS, clockTolerance: CLOCK_SKEW_S,
        requiredClaims: ['iss', 'sub', 'aud', 'exp'],
      }));
    } catch {
      return null;
    }
    if (typeof payload.sub !== 'string' || !SUB.test(payload.sub) || typeof payload.exp !== 'number') return null;
    let name = text(payload.name);
    if (provider.type === 'supabase') {
      // An access token of a signed-in user (not the anon or service_role key: no sub, other role).
      if (payload.role !== 'authenticated') return null;
      const meta = payload.user_metadata as Record<string, unknown> | undefined;
      name = text(meta?.full_name) ?? text(meta?.name) ?? null;
    }
    const jti = text(payload.jti);
    const hash = createHash('sha256').update(jti ? `jti\n${payload.iss}\n${jti}` : `token\n${token}`).digest('hex');
    return {
      iss: payload.iss!,
      sub: payload.sub,
      aud: Array.isArray(payload.aud) ? payload.aud : [payload.aud!],
      exp: payload.exp,
      token_hash: hash,
      name,
      iat: typeof payload.iat === 'number' && Number.isFinite(payload.iat) ? payload.iat : null,
    };
  };
}
export type IdentityVerifier = ReturnType<typeof createIdentityVerifier>;
