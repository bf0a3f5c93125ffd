// GET /storage/files → api.storage_files_list
// SQL now: supabase/schema/functions/api.storage_files_list.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { passApi } from '../../db/pool.js';
import { Fichier } from './rules.js';

export default defineRoute({
  method: 'get',
  path: '/storage/files',
  tag: 'Files',
  summary: 'The logged-in player’s files (by name)',
  auth: 'player',
  response: z.object({ data: z.array(Fichier) }),
  handler: ({ ctx, deps }) => passApi(deps.pool, 'storage_files_list', ctx),
});
