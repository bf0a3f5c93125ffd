// POST /tables/:nomTable → api.tables_create
// SQL now: supabase/schema/functions/api.tables_create.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { passApi } from '../../db/pool.js';
import { ERRORS } from '../../http/errors.js';
import { Donnees, Ligne, TableParams } from './schemas.js';

export default defineRoute({
  method: 'post',
  path: '/tables/:nomTable',
  tag: 'Tables',
  summary: 'Créer une ligne (le joueur connecté en est le propriétaire)',
  description: 'Jeton requis (`ecriture: joueurs`) ; une table en `ecriture: serveur` refuse (`forbidden`). '
    + 'En-tête `Idempotency-Key` (1 à 255 caractères ASCII visibles) : la même clé du même joueur '
    + 'dans les 24 h renvoie la première réponse et ne crée rien de plus ; avec une autre table ou un '
    + 'autre corps, 409 `idempotency_conflict`.',
  auth: 'key',
  params: TableParams,
  notFound: ERRORS.tableNotFound,
  body: Donnees,
  response: z.object({ data: Ligne }),
  status: 201,
  idempotent: true,
  handler: ({ params, body, ctx, deps }) =>
    passApi(deps.pool, 'tables_create', ctx, { table: params.nomTable, donnees: body.donnees }),
});
