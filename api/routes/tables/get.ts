// GET /tables/:nomTable/:id → api.tables_get
// SQL now: supabase/schema/functions/api.tables_get.sql
import { z } from 'zod';
import { ERRORS } from '../../http/errors.js';
import { defineRoute } from '../../http/route.js';
import { passApi } from '../../db/pool.js';
import { Ligne, RowParams } from './schemas.js';

export default defineRoute({
  method: 'get',
  path: '/tables/:nomTable/:id',
  tag: 'Tables',
  summary: 'Read a row',
  description: 'Same rights as the list: a row the player cannot see is `row_not_found`.',
  auth: 'key',
  params: RowParams,
  notFound: ERRORS.tableNotFound,
  checkedInSql: ['id'],
  response: z.object({ data: Ligne }),
  handler: ({ params, ctx, deps }) => passApi(deps.pool, 'tables_get', ctx, { table: params.nomTable, id: params.id }),
});
