// POST /players/login/jeton → api.players_jeton_start (the provider), signature check here, api.players_jeton
// SQL now: supabase/schema/functions/api.players_jeton_start.sql, supabase/schema/functions/api.players_jeton.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { callApi } from '../../db/pool.js';
import { ERRORS } from '../../http/errors.js';
import { newPlayerToken } from '../../security/tokens.js';
import { MAX_TOKEN_CHARS, type Provider } from '../../security/identity-token.js';
import { Session } from '../schemas.js';

/** A name of the game file's `connexions` (manette_admin.apply_part_connexions checks the same). */
export const Fournisseur = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, 'nom de fournisseur : 1 à 32 caractères, a-z 0-9 _ -');
export const Jeton = z.string().min(1).max(MAX_TOKEN_CHARS);

export default defineRoute({
  method: 'post',
  path: '/players/login/jeton',
  tag: 'Players',
  summary: 'Log in with a signed identity token of a provider the game file trusts',
  description: '`fournisseur` names an entry of the game file’s `connexions` (Sign in with Apple, Epic Online Services, '
    + 'Firebase, Auth0, the project’s Supabase Auth...; docs/accounts.md). The token’s signature is checked with the '
    + 'provider’s key set (RS256 or ES256), and its `iss`, `aud`, `exp` and `nbf` (60 s of clock skew). The player is '
    + 'found by (issuer, `sub`), never by e-mail: the first login creates a new player (no e-mail is taken from the token). '
    + 'A token opens one login: used again, it is `invalid_credentials`. An unknown provider is `fournisseur_inconnu` (400); '
    + 'a suspended player `compte_suspendu` (403, `jusqu_a`).',
  auth: 'key',
  body: z.object({ fournisseur: Fournisseur, jeton: Jeton }),
  response: Session,
  async handler({ body, ctx, deps }) {
    const provider = await callApi<Provider>(deps.pool, 'players_jeton_start', ctx, { fournisseur: body.fournisseur });
    const identity = await deps.verifyIdentityToken!(body.jeton, provider);
    if (!identity) throw ERRORS.invalidCredentials();
    return callApi(deps.pool, 'players_jeton', ctx, { ...identity, fournisseur: body.fournisseur, token: newPlayerToken() });
  },
});
