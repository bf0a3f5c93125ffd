// POST /storage/upload → api.storage_upload
// SQL now: supabase/schema/functions/api.storage_upload.sql
import { z } from 'zod';
import { defineRoute, Reply } from '../../http/route.js';
import { callApi } from '../../db/pool.js';
import { Fichier, UploadBody, champInvalide, storable } from './rules.js';

export default defineRoute({
  method: 'post',
  path: '/storage/upload',
  tag: 'Files',
  summary: 'Upload a text or JSON file (201 created, 200 replaced)',
  description: 'Every failure is `upload_failed` with a `reason`: `champ_invalide`, `nom_invalide` (400), '
    + '`type_non_autorise` (415), `json_invalide` (400), `trop_volumineux` (413), `fichier_existe` (409), '
    + '`quota_depasse` (413). A refused upload changes nothing. `Idempotency-Key` header: the same key from the '
    + 'same player within 24 h returns the first response (201 or 200) and writes nothing more.',
  auth: 'player',
  idempotent: true,
  body: UploadBody,
  // A malformed body is an upload failure like the others, not validation_failed.
  bodyError: champInvalide,
  status: 201,
  alsoStatus: 200, // an overwrite (see the handler)
  response: z.object({ data: z.object({ fichier: Fichier }) }),
  async handler({ body, ctx, deps }) {
    // A name or type Postgres cannot hold names nothing: sent as '', which SQL refuses with
    // its own reason (nom_invalide, type_non_autorise). contenu was checked by UploadBody.
    const { cree, data } = await callApi<{ cree: boolean; data: unknown }>(deps.pool, 'storage_upload', ctx, {
      nom: storable(body.nom) ? body.nom : '', contenu: body.contenu,
      mime_type: storable(body.mime_type) ? body.mime_type : '', ecraser: body.ecraser ?? false,
    });
    return new Reply(cree ? 201 : 200, { data });
  },
});
