// GET /tables/:nomTable → api.tables_list
// SQL now: supabase/schema/functions/api.tables_list.sql
import { z } from 'zod';
import { ERRORS } from '../../http/errors.js';
import { defineRoute } from '../../http/route.js';
import { callApi } from '../../db/pool.js';
import { IntParam } from '../schemas.js';
import { LIST_PARAMS, Ligne, TableParams } from './schemas.js';

const KNOWN = new Set<string>(LIST_PARAMS);

export default defineRoute({
  method: 'get',
  path: '/tables/:nomTable',
  tag: 'Tables',
  summary: 'List a table’s rows',
  description: 'Player token required unless the table has `lecture: public`; with `lecture: proprietaire`, '
    + 'only the logged-in player’s rows. Any other parameter `?<column>=<value>` is an equality filter '
    + 'on a declared column, read by its type: `true`/`false`, decimal numbers, ISO 8601 dates with a '
    + 'time zone (`Z`, or `%2B02:00`), JSON for a json column. Stable order (by id at equal values); '
    + 'a row without a value for the sort column comes first in `asc`, last in `desc`. See docs/tables.md.',
  auth: 'key',
  params: TableParams,
  notFound: ERRORS.tableNotFound,
  query: z.object({
    limit: IntParam(1, 200).optional().meta({ description: '1 to 200, default 50.' }),
    offset: IntParam(0, 2147483647).optional().meta({ description: '0 or more, default 0.' }),
    order_by: z.string().max(200).optional().meta({ description: 'A declared column, `cree_le` (default) or `maj_le`.' }),
    order_dir: z.enum(['asc', 'desc']).optional().meta({ description: '`asc` (default) or `desc`.' }),
  }).catchall(z.string().max(10_000)),
  response: z.object({ data: z.array(Ligne) }),
  handler: ({ params, query, ctx, deps }) => {
    const filtres = Object.fromEntries(Object.entries(query).filter(([k]) => !KNOWN.has(k)));
    return callApi(deps.pool, 'tables_list', ctx, {
      table: params.nomTable,
      limit: query.limit,
      offset: query.offset,
      order_by: query.order_by,
      order_dir: query.order_dir,
      filtres,
    });
  },
});
