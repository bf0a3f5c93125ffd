// POST /players/login/discord → api.players_jeton_start (the game's `connexions.discord`), Discord's token and user endpoints here (security/discord.ts), then api.players_jeton (issuer `discord`, the user id)
// SQL now: supabase/schema/functions/api.players_jeton_start.sql, supabase/schema/functions/api.players_jeton.sql
import { z } from 'zod';
import { defineRoute, type Deps } from '../../http/route.js';
import { callApi, type RequestContext } from '../../db/pool.js';
import { ERRORS } from '../../http/errors.js';
import { newPlayerToken } from '../../security/tokens.js';
import type { Provider } from '../../security/identity-token.js';
import { Session } from '../schemas.js';

export const DiscordCode = z.string().min(1).max(512);
/** RFC 7636: 43 to 128 characters of the unreserved set. */
export const CodeVerifier = z.string().regex(/^[A-Za-z0-9._~-]{43,128}$/, 'code_verifier : 43 à 128 caractères A-Z a-z 0-9 - . _ ~ (RFC 7636)');
export const RedirectUri = z.string().url().max(2048);

/** The Discord provider of the game, or fournisseur_inconnu. */
export async function discordProvider(deps: Deps, ctx: RequestContext) {
  const provider = await callApi<Provider>(deps.pool, 'players_jeton_start', ctx, { fournisseur: 'discord' });
  if (provider.type !== 'discord') throw ERRORS.internal();
  return provider;
}

export default defineRoute({
  method: 'post',
  path: '/players/login/discord',
  tag: 'Players',
  summary: 'Log in with a Discord OAuth2 authorization code',
  description: '`code`: what Discord’s authorization gave (a redirect to `redirect_uri`, or a Discord Activity’s '
    + '`authorize` command: then no `redirect_uri`); `code_verifier`: the PKCE verifier whose S256 challenge the '
    + 'authorization carried; `redirect_uri`: the one of the authorization, if any. The server exchanges the code at '
    + 'Discord’s `/oauth2/token` for the game file’s `connexions.discord.client_id` (with the server’s client secret, '
    + 'when it has one), reads `/users/@me`, forgets Discord’s tokens, and finds or creates the player of that Discord '
    + 'user (docs/accounts.md). A bad, used or expired code, or a wrong verifier, is `invalid_credentials`; a game '
    + 'without `connexions.discord` `fournisseur_inconnu`; Discord refusing the client `fournisseur_non_configure` (503).',
  auth: 'key',
  body: z.object({ code: DiscordCode, code_verifier: CodeVerifier.optional(), redirect_uri: RedirectUri.optional() }),
  response: Session,
  async handler({ body, ctx, deps }) {
    const provider = await discordProvider(deps, ctx);
    const identity = await deps.verifyDiscordCode!(body, provider);
    if (!identity) throw ERRORS.invalidCredentials();
    return callApi(deps.pool, 'players_jeton', ctx, { ...identity, fournisseur: 'discord', token: newPlayerToken() });
  },
});
