// Upload rules the façade can decide from the request alone, in the order
// api.storage_upload applies them (supabase/migrations/*_storage.sql), which enforces
// them all again. Anything the database cannot receive (U+0000, lone surrogates) is
// refused here, since it never reaches SQL.
import { z } from 'zod';
import { ApiError } from '../../http/errors.js';

export type UploadReason =
  | 'champ_invalide' | 'nom_invalide' | 'type_non_autorise' | 'json_invalide'
  | 'trop_volumineux' | 'fichier_existe' | 'quota_depasse';

const STATUS: Record<UploadReason, number> = {
  champ_invalide: 400, nom_invalide: 400, json_invalide: 400,
  type_non_autorise: 415, trop_volumineux: 413, quota_depasse: 413, fichier_existe: 409,
};

export const uploadFailed = (reason: UploadReason) => new ApiError(STATUS[reason], 'upload_failed', { reason });

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Can Postgres store this string as text (no U+0000, well-formed UTF-16)? */
export function storable(s: string): boolean {
  return !s.includes('\u0000') && !LONE_SURROGATE.test(s);
}

/** 1 to 255 characters (code points); no `/`, `\`, `..` or control characters. */
export function nameValid(nom: string): boolean {
  const length = [...nom].length;
  return storable(nom) && length >= 1 && length <= 255
    && !nom.includes('/') && !nom.includes('\\') && !nom.includes('..')
    // eslint-disable-next-line no-control-regex
    && !/[\u0000-\u001f\u007f-\u009f]/.test(nom);
}

/** The stored mime type (essence, lower-cased, parameters dropped), or null if not allowed. */
export function mimeType(mime: string): string | null {
  if ([...mime].length > 255) return null; // characters, as Postgres counts them
  const essence = mime.split(';', 1)[0]!.replace(/^[ \t]+|[ \t]+$/g, '');
  if (!/^[\x20-\x7e]*$/.test(essence)) return null;
  const lower = essence.toLowerCase();
  return /^text\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/.test(lower) || lower === 'application/json' ? lower : null;
}

export const UploadBody = z.object({
  nom: z.string().meta({ description: 'Nom du fichier, unique par joueur : 1 à 255 caractères, sans `/`, `\\`, `..` ni caractère de contrôle.' }),
  contenu: z.string().refine(storable, 'texte sans U+0000')
    .meta({ description: 'Contenu texte (un JSON est passé en chaîne). 1 Mio au plus par défaut (UTF-8).' }),
  mime_type: z.string().meta({ description: '`text/*` ou `application/json` (paramètres ignorés).' }),
  ecraser: z.boolean().optional().meta({ description: 'Remplacer un fichier existant de ce nom (défaut false).' }),
});
export type UploadBody = z.infer<typeof UploadBody>;

/** The first rule the request breaks that the façade can see, or null. */
export function requestReason(b: UploadBody): UploadReason | null {
  if (!nameValid(b.nom)) return 'nom_invalide';
  const mime = mimeType(b.mime_type);
  if (mime === null) return 'type_non_autorise';
  if (mime === 'application/json') {
    try {
      JSON.parse(b.contenu);
    } catch {
      return 'json_invalide';
    }
  }
  return null;
}

export const Fichier = z.object({
  nom: z.string(),
  mime_type: z.string(),
  taille: z.number().int().meta({ description: 'Octets du contenu en UTF-8.' }),
  cree_le: z.string(),
  maj_le: z.string(),
}).meta({ id: 'Fichier' });
