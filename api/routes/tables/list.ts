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
  summary: 'Lister les lignes d’une table',
  description: 'Jeton requis sauf si la table est en `lecture: public` ; en `lecture: proprietaire`, '
    + 'seules les lignes du joueur connecté. Tout autre paramètre `?<colonne>=<valeur>` est un filtre '
    + 'd’égalité sur une colonne déclarée, lu selon son type : `true`/`false`, nombres décimaux, '
    + 'dates ISO 8601 avec fuseau (`Z`, ou `%2B02:00`), JSON pour une colonne json. '
    + 'Tri stable (à valeur égale, par id) ; une ligne sans valeur pour la colonne de tri vient en tête '
    + 'en `asc`, en dernier en `desc`. Voir docs/tables.md.',
  auth: 'key',
  params: TableParams,
  notFound: ERRORS.tableNotFound,
  query: z.object({
    limit: IntParam(1, 200).optional().meta({ description: '1 à 200, 50 par défaut.' }),
    offset: IntParam(0, 2147483647).optional().meta({ description: '0 ou plus, 0 par défaut.' }),
    order_by: z.string().max(200).optional().meta({ description: 'Une colonne déclarée, `cree_le` (par défaut) ou `maj_le`.' }),
    order_dir: z.enum(['asc', 'desc']).optional().meta({ description: '`asc` (par défaut) ou `desc`.' }),
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
