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
  summary: 'Modifier une ligne (fusionne les colonnes données)',
  description: 'Seul le propriétaire modifie sa ligne (`forbidden` sinon). Les colonnes absentes gardent '
    + 'leur valeur ; `null` efface la valeur d’une colonne non requise.',
  auth: 'key',
  params: RowParams,
  notFound: ERRORS.tableNotFound,
  checkedInSql: ['id'],
  body: Donnees,
  response: z.object({ data: Ligne }),
  handler: ({ params, body, ctx, deps }) =>
    passApi(deps.pool, 'tables_update', ctx, { table: params.nomTable, id: params.id, donnees: body.donnees }),
});
