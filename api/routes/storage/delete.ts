// DELETE /storage/files/:nom → api.storage_files_delete
// SQL now: supabase/schema/functions/api.storage_files_delete.sql
import { z } from 'zod';
import { ERRORS } from '../../http/errors.js';
import { defineRoute } from '../../http/route.js';
import { passApi } from '../../db/pool.js';
import { Fichier } from './rules.js';
import { FileParams, fileKey } from './get.js';

export default defineRoute({
  method: 'delete',
  path: '/storage/files/:nom',
  tag: 'Files',
  summary: 'Delete a file of the logged-in player',
  auth: 'player',
  params: FileParams,
  notFound: ERRORS.fileNotFound,
  response: z.object({ data: z.object({ fichier: Fichier }) }),
  handler: ({ params, ctx, deps }) => passApi(deps.pool, 'storage_files_delete', ctx, fileKey(params.nom)),
});
