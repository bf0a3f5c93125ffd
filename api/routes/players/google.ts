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
  tag: 'Joueurs',
  summary: 'Se connecter avec un jeton d’identité Google',
  description: 'Vérifie la signature, l’émetteur, l’expiration et l’audience (client id du jeu). '
    + 'Le joueur est retrouvé par son identifiant Google (`sub`), jamais par son e-mail : la première '
    + 'connexion crée un nouveau joueur, même si un compte à mot de passe utilise déjà cette adresse '
    + '(les e-mails d’inscription ne sont pas vérifiés). Ce joueur reçoit l’e-mail Google s’il est '
    + 'vérifié et libre dans le jeu, sinon aucun.',
  auth: 'key',
  body: z.object({ id_token: z.string().min(1).max(8192) }),
  response: Session,
  async handler({ body, ctx, deps }) {
    const identity = await deps.verifyGoogleIdToken(body.id_token);
    if (!identity) throw ERRORS.invalidCredentials();
    return callApi(deps.pool, 'players_google', ctx, { ...identity, token: newPlayerToken() });
  },
});
