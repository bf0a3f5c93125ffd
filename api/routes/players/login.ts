// POST /players/login → api.players_login_start, password check here, api.players_login_finish
// SQL now: supabase/schema/functions/api.players_login_start.sql, supabase/schema/functions/api.players_login_finish.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { callApi } from '../../db/pool.js';
import { checkPassword, hashingQueue, passwordCost } from '../../security/password.js';
import { newPlayerToken } from '../../security/tokens.js';
import { Session } from '../schemas.js';

export default defineRoute({
  method: 'post',
  path: '/players/login',
  tag: 'Joueurs',
  summary: 'Se connecter (identifiant = pseudo ou e-mail, ou champ email)',
  description: 'Au plus 10 échecs par compte et par adresse du client en 15 minutes, et 100 par '
    + 'compte toutes adresses confondues (`too_many_attempts`), que l’identifiant soit le pseudo ou l’e-mail '
    + '(un identifiant qui ne désigne aucun compte compte pour lui-même). Un pseudo se compare sans la casse, '
    + 'après normalisation NFC.',
  auth: 'key',
  body: z.object({
    identifiant: z.string().min(1).max(254).optional(),
    email: z.string().min(1).max(254).optional(),
    password: z.string().min(1).max(128),
  }).refine((b) => b.identifiant !== undefined || b.email !== undefined, {
    message: 'identifiant ou email requis', path: ['identifiant'],
  }),
  response: Session,
  async handler({ body, ctx, deps }) {
    // A place for the hash first: when hashing is saturated, 503 before the attempt is counted.
    const cost = passwordCost(deps.settings);
    const ticket = hashingQueue(cost).reserve();
    let start: { attempt_id: number; password_hash: string | null };
    try {
      start = await callApi(deps.pool, 'players_login_start', ctx, { identifiant: body.identifiant ?? body.email });
    } catch (err) {
      ticket.cancel();
      throw err;
    }
    // A right password against an old (scrypt) or weaker hash also gives the new hash, which
    // the finishing call stores only if the player's hash is still the one checked here.
    const { ok: succeeded, rehash } = await checkPassword(body.password, start.password_hash, cost, ticket, { rehash: true });
    return callApi(deps.pool, 'players_login_finish', ctx, {
      attempt_id: start.attempt_id, succeeded, token: newPlayerToken(),
      ...(rehash ? { new_password_hash: rehash, verified_password_hash: start.password_hash } : {}),
    });
  },
});
