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
  tag: 'Classements',
  summary: 'Soumettre un score',
  description: 'Applique l’opérateur du classement (`meilleur`, `dernier`, `somme`) à l’entrée du joueur '
    + 'pour la période en cours, en une seule instruction atomique. Répond la valeur gardée, son rang et '
    + '`ameliore` (la soumission a-t-elle changé la valeur). Hors de `valeur_min`/`valeur_max` : `validation_failed`. '
    + 'En-tête `Idempotency-Key` : la même clé du même joueur dans les 24 h renvoie la première réponse et ne compte '
    + 'rien de plus (un `somme` réessayé ne compte qu’une fois). Un classement qu’un mode tient par le serveur '
    + '(`classement_victoires`) refuse les soumissions des joueurs : `forbidden` (403).',
  auth: 'player',
  idempotent: true,
  params: BoardParams,
  notFound: ERRORS.leaderboardNotFound,
  body: z.strictObject({ valeur: z.number().meta({ description: 'Nombre fini.' }) }),
  response: z.object({
    data: z.object({ valeur: z.number(), rang: z.number().int(), ameliore: z.boolean() }),
  }),
  handler: ({ params, body, ctx, deps }) =>
    passApi(deps.pool, 'leaderboards_submit', ctx, { id: boardId(params.id), valeur: body.valeur }),
});
