// POST /players/mot-de-passe/reinitialiser → api.players_mot_de_passe_reinitialiser
// SQL now: supabase/schema/functions/api.players_mot_de_passe_reinitialiser.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { callApi } from '../../db/pool.js';
import { confirmedBy, hashPassword, hashTicket, passwordCost } from '../../security/password.js';
import { Email, Password } from '../schemas.js';

export default defineRoute({
  method: 'post',
  path: '/players/mot-de-passe/reinitialiser',
  tag: 'Players',
  summary: 'Choose a new password with the code received by mail',
  description: 'Sets the password, uses the code and revokes every session of the player (log in again). A wrong, '
    + 'used or expired code, or an address naming no account, is `code_invalide` (one answer for all). Wrong codes '
    + 'count per account and client network: the 5th in 30 minutes ends that network\'s tries (not the code); past 20 '
    + 'on the account, a network reaches only the codes it asked for. A suspended account is `compte_suspendu`.',
  auth: 'key',
  body: z.object({
    email: Email,
    code: z.string().regex(/^[0-9]{8}$/, 'code à 8 chiffres attendu').meta({ example: '04718263' }),
    password: Password,
  }),
  response: z.object({ data: z.object({}) }),
  async handler({ body, ctx, deps }) {
    const cost = passwordCost(deps.settings);
    const password_hash = await hashPassword(body.password, cost, hashTicket(cost, ctx.key));
    return confirmedBy(ctx.key, callApi(deps.pool, 'players_mot_de_passe_reinitialiser', ctx, {
      email: body.email, code: body.code, password_hash,
    }));
  },
});
