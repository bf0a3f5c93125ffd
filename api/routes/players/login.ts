// POST /players/login → api.players_login_start, password check here, api.players_login_finish
// SQL now: supabase/schema/functions/api.players_login_start.sql, supabase/schema/functions/api.players_login_finish.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { callApi } from '../../db/pool.js';
import { checkPassword, passwordCost, reserveHashThen } from '../../security/password.js';
import { newPlayerToken } from '../../security/tokens.js';
import { Session } from '../schemas.js';

export default defineRoute({
  method: 'post',
  path: '/players/login',
  tag: 'Players',
  summary: 'Log in (identifiant = pseudo or e-mail, or an email field)',
  description: 'At most 10 failures per account and client address in 15 minutes, and 100 per '
    + 'account from all addresses together (`too_many_attempts`), whether the identifier is the pseudo or the e-mail '
    + '(an identifier naming no account counts for itself). A pseudo is compared ignoring case, '
    + 'after NFC normalisation. A suspended account is `compte_suspendu` (403, `jusqu_a`: the end, or null '
    + 'until lifted), only after the right password: a wrong one stays `invalid_credentials`.',
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
    const cost = passwordCost(deps.settings);
    const { ticket, started: start } = await reserveHashThen(cost, () => callApi<{ attempt_id: number; password_hash: string | null }>(
      deps.pool, 'players_login_start', ctx, { identifiant: body.identifiant ?? body.email }), ctx.key);
    // A right password against an old (scrypt) or weaker hash also gives the new hash, which
    // the finishing call stores only if the player's hash is still the one checked here.
    const { ok: succeeded, rehash } = await checkPassword(body.password, start.password_hash, cost, ticket, { rehash: true });
    return callApi(deps.pool, 'players_login_finish', ctx, {
      attempt_id: start.attempt_id, succeeded, token: newPlayerToken(),
      ...(rehash ? { new_password_hash: rehash, verified_password_hash: start.password_hash } : {}),
    });
  },
});
