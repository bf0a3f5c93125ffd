// POST /players/login/steam → api.players_jeton_start (the game's `connexions.steam`), Steam's Web API here (security/steam.ts), then api.players_jeton (the identity: issuer `steam`, the SteamID)
// SQL now: supabase/schema/functions/api.players_jeton_start.sql, supabase/schema/functions/api.players_jeton.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { callApi } from '../../db/pool.js';
import { ERRORS } from '../../http/errors.js';
import { newPlayerToken } from '../../security/tokens.js';
import type { Provider } from '../../security/identity-token.js';
import { STEAM_TICKET } from '../../security/steam.js';
import { Session } from '../schemas.js';

export const SteamTicket = z.string().regex(STEAM_TICKET, 'ticket Steam : hexadécimal (GetAuthSessionTicket ou GetAuthTicketForWebApi)');

export default defineRoute({
  method: 'post',
  path: '/players/login/steam',
  tag: 'Players',
  summary: 'Log in with a Steam session ticket',
  description: '`ticket`: the hex-encoded ticket of `ISteamUser::GetAuthTicketForWebApi(identity)` (the identity of the '
    + 'game file’s `connexions.steam.identite`) or `GetAuthSessionTicket`. The server checks it with Steam’s Web API '
    + '(`ISteamUserAuth/AuthenticateUserTicket`, the game file’s app id, the server’s publisher key) and finds or '
    + 'creates the player of that SteamID (docs/accounts.md). A ticket opens one login. An invalid, expired, cancelled or '
    + 'another app’s ticket is `invalid_credentials`; a VAC- or publisher-banned account `compte_steam_banni` (403, '
    + '`reason`: `vac` or `editeur`); a game without `connexions.steam` `fournisseur_inconnu`; a server without the '
    + 'publisher key `fournisseur_non_configure` (503); Steam unreachable `unavailable`.',
  auth: 'key',
  body: z.object({ ticket: SteamTicket }),
  response: Session,
  async handler({ body, ctx, deps }) {
    const provider = await callApi<Provider>(deps.pool, 'players_jeton_start', ctx, { fournisseur: 'steam' });
    const identity = await deps.verifyIdentityToken!(body.ticket, provider);
    if (!identity) throw ERRORS.invalidCredentials();
    return callApi(deps.pool, 'players_jeton', ctx, { ...identity, fournisseur: 'steam', token: newPlayerToken() });
  },
});
