// POST /players/lier → password hash or Google signature check here, then api.players_lier
// SQL now: supabase/schema/functions/api.players_lier.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { passApi } from '../../db/pool.js';
import { ERRORS } from '../../http/errors.js';
import { confirmedBy, hashPassword, hashTicket, passwordCost } from '../../security/password.js';
import { Email, Joueur, Password, Pseudo } from '../schemas.js';

const ONE_FORM = 'email et password, ou id_token (l’un des deux)';

export default defineRoute({
  method: 'post',
  path: '/players/lier',
  tag: 'Players',
  summary: 'Link a guest to an e-mail and password, or to a Google account',
  description: 'The caller must be a guest (`already_linked` otherwise). `{pseudo?, email, password}` sets the '
    + 'e-mail, the password and, when given, a new pseudo; `{id_token}` (checked as `POST /players/google` checks '
    + 'it) sets the Google identity and Google’s e-mail when verified and free in the game (the pseudo stays). '
    + 'Same player id, every datum kept, the session stays valid; `joueur.invite` becomes false. '
    + '`email_taken`, `pseudo_taken`, `google_taken` (that Google account is already a player of the game) and any '
    + 'other refusal change nothing.',
  auth: 'player',
  body: z.object({
    pseudo: Pseudo.optional(),
    email: Email.optional(),
    password: Password.optional(),
    id_token: z.string().min(1).max(8192).optional(),
  }).superRefine((b, ctx) => {
    if (b.id_token !== undefined) {
      for (const field of ['pseudo', 'email', 'password'] as const) {
        if (b[field] !== undefined) ctx.addIssue({ code: 'custom', message: ONE_FORM, path: [field] });
      }
      return;
    }
    if (b.email === undefined) ctx.addIssue({ code: 'custom', message: ONE_FORM, path: ['email'] });
    if (b.password === undefined) ctx.addIssue({ code: 'custom', message: ONE_FORM, path: ['password'] });
  }),
  response: z.object({ data: z.object({ joueur: Joueur }) }),
  async handler({ body, ctx, deps }) {
    if (body.id_token !== undefined) {
      const identity = await deps.verifyGoogleIdToken(body.id_token);
      if (!identity) throw ERRORS.invalidCredentials();
      return passApi(deps.pool, 'players_lier', ctx, identity);
    }
    const cost = passwordCost(deps.settings);
    const password_hash = await hashPassword(body.password!, cost, hashTicket(cost, ctx.key));
    return confirmedBy(ctx.key, passApi(deps.pool, 'players_lier', ctx, { pseudo: body.pseudo, email: body.email, password_hash }));
  },
});
