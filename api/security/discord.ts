// Discord logins (docs/accounts.md, "Steam and Discord"): an OAuth2 authorization code (with
// PKCE from a web page or a game, without redirect_uri from a Discord Activity's
// `authorize` command) exchanged at <MANETTE_DISCORD_API_URL>/oauth2/token (form-encoded:
// grant_type=authorization_code, code, client_id, client_secret when the server has it,
// redirect_uri and code_verifier when given), then the user read at /users/@me with the
// access token. Discord's tokens are used for that one read and forgotten: never stored,
// never logged; the client secret is a secret of the server's environment.
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { ApiError } from '../errors.js';
import type { Settings } from '../config/settings.js';
import type { TokenIdentity } from './identity-token.js';
import { providerNotConfigured, providerUnavailable } from './steam.js';

export interface DiscordProvider { type: 'discord'; client_id: string }
export interface DiscordCode { code: string; code_verifier?: string | undefined; redirect_uri?: string | undefined }

/** A Discord user id (a snowflake: decimal digits). */
const SNOWFLAKE = /^[0-9]{1,20}$/;
/** Discord's authorization codes live minutes; a used one's hash is kept this long. */
const CODE_KEEP_S = 600;
const TIMEOUT_MS = 10_000;

const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' && !/\u0000|\p{Cs}/u.test(v) ? v : null);

export function createDiscordVerifier(settings: Settings, logger?: Logger) {
  const base = settings.MANETTE_DISCORD_API_URL.replace(/\/*$/, '/');
  async function call(path: string, init: RequestInit): Promise<{ status: number; body: Record<string, unknown> | null }> {
    try {
      const res = await fetch(new URL(path, base), { ...init, signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'error' });
      const body = await res.json().catch(() => null) as Record<string, unknown> | null;
      return { status: res.status, body: body && typeof body === 'object' ? body : null };
    } catch {
      logger?.warn('discord login: Discord could not be reached');
      throw providerUnavailable();
    }
  }
  return async function verifyDiscordCode(grant: DiscordCode, provider: DiscordProvider): Promise<TokenIdentity | null> {
    const secret = settings.MANETTE_DISCORD_CLIENT_SECRETS[provider.client_id] ?? settings.MANETTE_DISCORD_CLIENT_SECRET;
    const form = new URLSearchParams({ grant_type: 'authorization_code', code: grant.code, client_id: provider.client_id });
    if (secret) form.set('client_secret', secret);
    if (grant.redirect_uri !== undefined) form.set('redirect_uri', grant.redirect_uri);
    if (grant.code_verifier !== undefined) form.set('code_verifier', grant.code_verifier);
    const token = await call('oauth2/token', {
      method: 'POST', body: form,
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    });
    if (token.status === 401 || token.body?.error === 'invalid_client') {
      // A wrong client secret, or none for an application that is not a public client.
      logger?.error({ client_id: provider.client_id, status: token.status }, 'discord login: Discord refused the client (MANETTE_DISCORD_CLIENT_SECRET)');
      throw providerNotConfigured('discord');
    }
    if (token.status === 400) return null; // invalid_grant (a bad, used or expired code, a wrong verifier or redirect_uri), invalid_request
    const accessToken = text(token.body?.access_token);
    if (token.status !== 200 || !accessToken) {
      logger?.warn({ status: token.status }, 'discord login: unexpected answer from the token endpoint');
      throw providerUnavailable();
    }
    const user = await call('users/@me', { headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' } });
    if (user.status === 401) return null;
    if (user.status !== 200 || !user.body) {
      logger?.warn({ status: user.status }, 'discord login: unexpected answer from /users/@me');
      throw providerUnavailable();
    }
    const id = user.body.id;
    if (typeof id !== 'string' || !SNOWFLAKE.test(id)) return null;
    const now = Math.floor(Date.now() / 1000);
    return {
      iss: 'discord',
      sub: id,
      aud: [provider.client_id],
      exp: now + CODE_KEEP_S,
      token_hash: createHash('sha256').update(`discord\n${provider.client_id}\n${grant.code}`).digest('hex'),
      name: text(user.body.global_name) ?? text(user.body.username),
      iat: now,
    };
  };
}
export type DiscordVerifier = ReturnType<typeof createDiscordVerifier>;

/** A Discord provider asked for with a token (POST /players/login/jeton): Discord gives codes. */
export const discordNeedsCode = () => new ApiError(400, 'validation_failed', {
  details: [{ champ: 'fournisseur', message: 'discord : un code OAuth2 (POST /players/login/discord {code, code_verifier, redirect_uri})' }],
});
