// GET /storage/files/:nom → api.storage_files_get
// SQL now: supabase/schema/functions/api.storage_files_get.sql
import { z } from 'zod';
import { ERRORS } from '../../http/errors.js';
import { defineRoute } from '../../http/route.js';
import { passApi } from '../../db/pool.js';
import { Fichier, storable } from './rules.js';

export const FileParams = z.object({ nom: z.string().meta({ description: 'The file’s name (URL-encoded).' }) });

/** A name Postgres cannot hold cannot name a file: it is sent as null, which matches none. */
export const fileKey = (nom: string) => ({ nom: storable(nom) ? nom : null });

export default defineRoute({
  method: 'get',
  path: '/storage/files/:nom',
  tag: 'Files',
  summary: 'Read a file of the logged-in player',
  auth: 'player',
  params: FileParams,
  notFound: ERRORS.fileNotFound,
  response: z.object({ data: z.object({ fichier: Fichier, contenu: z.string() }) }),
  handler: ({ params, ctx, deps }) => passApi(deps.pool, 'storage_files_get', ctx, fileKey(params.nom)),
});
