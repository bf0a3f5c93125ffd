// The upload's wire shapes. Every upload rule (name, type, JSON, size, existing file,
// quota: their reasons and statuses) has one home, api.storage_upload in
// supabase/migrations/*_storage.sql. The façade only refuses what cannot reach SQL: a
// malformed body (champ_invalide), and strings Postgres cannot hold (U+0000, lone
// surrogates), which it turns into values SQL refuses with its own reason.
import { z } from 'zod';
import { ApiError } from '../../http/errors.js';
import type { FieldIssue } from '../../http/errors.js';

/** A malformed body is an upload failure like the others (400), not validation_failed; its
 *  message names the fields at fault (the contract keeps `details` for validation_failed). */
export const champInvalide = (issues: FieldIssue[] = []) => new ApiError(400, 'upload_failed',
  { reason: 'champ_invalide', fields: [...new Set(issues.map((i) => i.champ).filter(Boolean))] });

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Can Postgres store this string as text (no U+0000, well-formed UTF-16)? */
export function storable(s: string): boolean {
  return !s.includes('\u0000') && !LONE_SURROGATE.test(s);
}

export const UploadBody = z.object({
  nom: z.string().meta({ description: 'The file’s name, unique per player: 1 to 255 characters, without `/`, `\\`, `..` or control characters.' }),
  contenu: z.string().refine(storable, 'texte sans U+0000')
    .meta({ description: 'Text content (JSON is sent as a string). At most 1 MiB by default (UTF-8).' }),
  mime_type: z.string().meta({ description: '`text/*` or `application/json` (parameters ignored).' }),
  ecraser: z.boolean().optional().meta({ description: 'Replace an existing file of that name (default false).' }),
});
export type UploadBody = z.infer<typeof UploadBody>;

export const Fichier = z.object({
  nom: z.string(),
  mime_type: z.string(),
  taille: z.number().int().meta({ description: 'Bytes of the content in UTF-8.' }),
  cree_le: z.string(),
  maj_le: z.string(),
}).meta({ id: 'Fichier' });
