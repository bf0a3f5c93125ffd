// PATCH /tables/:nomTable/:id → api.tables_update
// SQL now: supabase/schema/functions/api.tables_update.sql
import { z } from 'zod';
import { ERRORS } from '../../http/errors.js';
import { defineRoute } from '../../http/route.js';
import { passApi } from '../../db/pool.js';
import { Donnees, Ligne, RowParams } from './schemas.js';

export default defineRoute({
  method: 'patch',
  path: '/tables/:nomTable/:id',
  tag: 'Tables',
  summary: 'Update a row (merges the given columns)',
  description: 'Only the owner updates their row (`forbidden` otherwise). Absent columns keep their '
    + 'value; `null` clears the value of a column that is not required.',
  auth: 'key',
  params: RowParams,
  notFound: ERRORS.tableNotFound,
  checkedInSql: ['id'],
  body: Donnees,
  response: z.object({ data: Ligne }),
  handler: ({ params, body, ctx, deps }) =>
    passApi(deps.pool, 'tables_update', ctx, { table: params.nomTable, id: params.id, donnees: body.donnees }),
});
