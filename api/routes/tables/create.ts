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
  summary: 'Create a row (owned by the logged-in player)',
  description: 'Player token required (`ecriture: joueurs`); a table with `ecriture: serveur` refuses (`forbidden`). '
    + '`Idempotency-Key` header (1 to 255 visible ASCII characters): the same key from the same player '
    + 'within 24 h returns the first response and creates nothing more; with another table or another '
    + 'body, 409 `idempotency_conflict`.',
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
