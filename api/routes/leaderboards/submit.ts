// POST /leaderboards/:id/submit → api.leaderboards_submit
// SQL now: supabase/schema/functions/api.leaderboards_submit.sql
import { z } from 'zod';
import { ERRORS } from '../../http/errors.js';
import { defineRoute } from '../../http/route.js';
import { passApi } from '../../db/pool.js';
import { BoardParams, boardId } from './common.js';

export default defineRoute({
  method: 'post',
  path: '/leaderboards/:id/submit',
  tag: 'Leaderboards',
  summary: 'Submit a score',
  description: 'Applies the board’s operator (`meilleur`: best, `dernier`: latest, `somme`: sum) to the player’s '
    + 'entry for the current period, in one atomic statement. Answers the kept value, its rank and `ameliore` '
    + '(whether the submission changed the value). Outside `valeur_min`/`valeur_max`: `validation_failed`. '
    + '`Idempotency-Key` header: the same key from the same player within 24 h returns the first response and '
    + 'counts nothing more (a retried `somme` counts once). A board that a mode keeps on the server '
    + '(`classement_victoires`) refuses players’ submissions: `forbidden` (403).',
  auth: 'player',
  idempotent: true,
  params: BoardParams,
  notFound: ERRORS.leaderboardNotFound,
  body: z.strictObject({ valeur: z.number().meta({ description: 'A finite number.' }) }),
  response: z.object({
    data: z.object({ valeur: z.number(), rang: z.number().int(), ameliore: z.boolean() }),
  }),
  handler: ({ params, body, ctx, deps }) =>
    passApi(deps.pool, 'leaderboards_submit', ctx, { id: boardId(params.id), valeur: body.valeur }),
});
