// GET /storage/files/:nom → api.storage_files_get
// SQL now: supabase/schema/functions/api.storage_files_get.sql
import { z } from 'zod';
import { ERRORS } from '../../http/errors.js';
import { defineRoute } from '../../http/route.js';
import { passApi } from '../../db/pool.js';
import { Fichier, storable } from './rules.js';

export const FileParams = z.object({ nom: z.string().meta({ description: 'Nom du fichier (encodé dans l’URL).' }) });

/** A name Postgres cannot hold cannot name a file: it is sent as null, which matches none. */
export const fileKey = (nom: string) => ({ nom: storable(nom) ? nom : null });

export default defineRoute({
  method: 'get',
  path: '/storage/files/:nom',
  tag: 'Fichiers',
  summary: 'Lire un fichier du joueur connecté',
  auth: 'player',
  params: FileParams,
  notFound: ERRORS.fileNotFound,
  response: z.object({ data: z.object({ fichier: Fichier, contenu: z.string() }) }),
  handler: ({ params, ctx, deps }) => passApi(deps.pool, 'storage_files_get', ctx, fileKey(params.nom)),
});
