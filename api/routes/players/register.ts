// POST /players/register → api.players_register
// SQL now: supabase/schema/functions/api.players_register.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { callApi } from '../../db/pool.js';
import { confirmedBy, hashPassword, hashTicket, passwordCost } from '../../security/password.js';
import { newPlayerToken } from '../../security/tokens.js';
import { keyedRegistration } from '../../security/register-retry.js';
import { Email, Password, Pseudo, Session } from '../schemas.js';

export default defineRoute({
  method: 'post',
  path: '/players/register',
  tag: 'Players',
  summary: 'Create a player account and open a session',
  auth: 'key',
  body: z.object({ pseudo: Pseudo, email: Email, password: Password, pays: z.string().optional()
    .meta({ description: 'ISO 3166-1 alpha-2 country code, any case, stored upper-case.', example: 'FR' }) }),
  response: Session,
  status: 201,
  // The password stays out of the plain body hash; keyedRegistration binds it (and makes the
  // token a retry gets back), see api/security/register-retry.ts.
  idempotent: { secret: ['password'] },
  async handler({ body, ctx, deps }) {
    const cost = passwordCost(deps.settings);
    let password_hash: string;
    let token: string;
    if (ctx.idempotency) {
      const keyed = await keyedRegistration({
        password: body.password, idempotencyKey: ctx.idempotency.key, apiKey: ctx.key ?? '',
        pseudo: body.pseudo, email: body.email, bodyHash: ctx.idempotency.body_hash,
      }, cost, hashTicket(cost, ctx.key, 2)); // two hashes: the stored one and the retry secret
      ({ passwordHash: password_hash, token } = keyed);
      ctx.idempotency.body_hash = keyed.bodyHash;
    } else {
      password_hash = await hashPassword(body.password, cost, hashTicket(cost, ctx.key));
      token = newPlayerToken();
    }
    // A replayed answer comes back without its token (never stored): it is this same one.
    const { token: _stored, ...rest } = await confirmedBy(ctx.key, callApi(deps.pool, 'players_register', ctx, {
      pseudo: body.pseudo, email: body.email, pays: body.pays, password_hash, token,
    }));
    return { token, ...rest };
  },
});
