// DELETE /tables/:nomTable/:id → api.tables_delete
// SQL now: supabase/schema/functions/api.tables_delete.sql
import { z } from 'zod';
import { ERRORS } from '../../http/errors.js';
import { defineRoute } from '../../http/route.js';
import { passApi } from '../../db/pool.js';
import { Ligne, RowParams } from './schemas.js';

export default defineRoute({
  method: 'delete',
  path: '/tables/:nomTable/:id',
  tag: 'Tables',
  summary: 'Delete a row (returns the deleted row)',
  description: 'Only the owner deletes their row (`forbidden` otherwise).',
  auth: 'key',
  params: RowParams,
  notFound: ERRORS.tableNotFound,
  checkedInSql: ['id'],
  response: z.object({ data: Ligne }),
  handler: ({ params, ctx, deps }) => passApi(deps.pool, 'tables_delete', ctx, { table: params.nomTable, id: params.id }),
});
