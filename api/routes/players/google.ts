// POST /players/google → signature check here, then api.players_google (audience, account)
// SQL now: supabase/schema/functions/api.players_google.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { callApi } from '../../db/pool.js';
import { ERRORS } from '../../http/errors.js';
import { newPlayerToken } from '../../security/tokens.js';
import { Session } from '../schemas.js';

export default defineRoute({
  method: 'post',
  path: '/players/google',
  tag: 'Players',
  summary: 'Log in with a Google ID token',
  description: 'Checks the signature, issuer, expiry and audience (the game’s client id). '
    + 'The player is found by their Google id (`sub`), never by e-mail: the first login creates a new '
    + 'player, even when a password account already uses that address (registration e-mails are not '
    + 'verified). That player gets the Google e-mail when it is verified and free in the game, else none. '
    + 'A suspended player is `compte_suspendu` (403, `jusqu_a`: the end, or null until lifted).',
  auth: 'key',
  body: z.object({ id_token: z.string().min(1).max(8192) }),
  response: Session,
  async handler({ body, ctx, deps }) {
    const identity = await deps.verifyGoogleIdToken(body.id_token);
    if (!identity) throw ERRORS.invalidCredentials();
    return callApi(deps.pool, 'players_google', ctx, { ...identity, token: newPlayerToken() });
  },
});
