// POST /players/invite → api.players_invite (a guest, or the guest of an appareil_id back)
// SQL now: supabase/schema/functions/api.players_invite.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { callApi } from '../../db/pool.js';
import { newPlayerToken } from '../../security/tokens.js';
import { Session } from '../schemas.js';

export default defineRoute({
  method: 'post',
  path: '/players/invite',
  tag: 'Players',
  summary: 'Play without an account: open a guest session',
  description: 'Without `appareil_id`, a new guest each time. With one (a random id the client makes once and '
    + 'keeps, per game), the guest that came with it gets a new session, else a new guest is made; simultaneous '
    + 'requests with one `appareil_id` make one guest. Only its SHA-256 is stored. A guest has a generated pseudo '
    + '(`invite_` and 6 digits) and `joueur.invite: true` until `POST /players/lier`; linking forgets the '
    + '`appareil_id` (the next invite with it makes a new guest). At most 30 new guests an hour per client address '
    + '(`rate_limited`, with `Retry-After`); a returning guest is not counted. A guest unused for the game’s '
    + '`invites_jours` (default 90) is erased.',
  auth: 'key',
  body: z.object({
    appareil_id: z.string().regex(/^[A-Za-z0-9_-]{16,128}$/, '16 à 128 caractères : lettres, chiffres, _ -').optional()
      .meta({ description: '16 to 128 characters of `[A-Za-z0-9_-]`: the device’s id for this game, kept by the client.',
        example: 'Vq3c1Lr0wYpA9zKd2mXe' }),
  }),
  response: Session,
  async handler({ body, ctx, deps }) {
    return callApi(deps.pool, 'players_invite', ctx, { appareil_id: body.appareil_id, token: newPlayerToken() });
  },
});
