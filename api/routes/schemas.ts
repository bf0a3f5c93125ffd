// Shared wire schemas (zod): validation of requests and the OpenAPI document.
import { z } from 'zod';

/** A decimal integer in [min, max], given as a query string (limit, offset: one parser for every list). */
export const IntParam = (min: number, max: number) => z.string()
  .regex(/^\d{1,16}$/, 'entier attendu')
  .transform(Number)
  .pipe(z.number().int().min(min).max(max));

export const Joueur = z.object({
  id: z.uuid(),
  pseudo: z.string(),
  email: z.string().nullable(),
  pays: z.string().nullable(),
  avatar_url: z.string().nullable(),
  cree_le: z.string(),
  invite: z.boolean().meta({ description: 'A guest (`POST /players/invite`) until linked to an e-mail or a Google account (`POST /players/lier`).' }),
}).meta({ id: 'Joueur' });

/** GET /players/me's `elo`: by mode code, the server's rating (unrounded) and rated matches played. */
export const Ratings = z.record(z.string(), z.object({
  valeur: z.number().meta({ description: 'The rating, unrounded (round it for display).' }),
  parties: z.number().int().min(0).meta({ description: 'Rated matches played in this mode.' }),
})).meta({ id: 'Elo' });

export const Session = z.object({
  token: z.string().meta({ description: 'The session token, to send as x-player-token (pt_…).' }),
  data: z.object({ joueur: Joueur, expire_le: z.string() }),
});

// The public API (docs/api.md, Players): letters of any script (Unicode letters and decimal digits), _ - .,
// 3–32 characters, counted after NFC normalisation; the pseudo is stored in NFC (the only
// place it is normalised; the database refuses any other form and compares pseudos by
// lower case after NFC, manette.pseudo_key).
/** Scripts whose letters look like others'; letters of two of them in one pseudo are refused. */
const SCRIPTS = ['Latin', 'Cyrillic', 'Greek', 'Armenian', 'Georgian', 'Cherokee', 'Arabic', 'Hebrew', 'Thai',
  'Devanagari', 'Hangul', 'Han', 'Hiragana', 'Katakana'].map((name) => ({ name, re: new RegExp(`\\p{Script=${name}}`, 'u') }));
/** Scripts written together: Japanese (ideographs and kana), Korean (Hangul with ideographs). */
const TOGETHER = [new Set(['Han', 'Hiragana', 'Katakana']), new Set(['Han', 'Hangul'])];

/** Whether the pseudo's letters come from more than one script (not counting those written together). */
export function mixesScripts(pseudo: string): boolean {
  const used = new Set<string>();
  for (const ch of pseudo) {
    if (!/\p{L}/u.test(ch)) continue; // digits of any script (٣) go with any letters
    const s = SCRIPTS.find((x) => x.re.test(ch));
    if (s) used.add(s.name);
  }
  return used.size > 1 && !TOGETHER.some((t) => [...used].every((u) => t.has(u)));
}

export const Pseudo = z.string()
  .normalize('NFC')
  .regex(/^[\p{L}\p{Nd}_.-]{3,32}$/u, '3 à 32 caractères : lettres, chiffres, _ - .')
  // The server's names (tombstones, guests), in any case: manette.pseudo_is_reserved says the same.
  .refine((p) => !/^(supprime-|invite_)/.test(p.toLowerCase()), 'pseudo réservé : supprime-… et invite_… sont des noms du serveur')
  // Look-alikes: compatibility forms (full-width or styled letters, ligatures) and letters of
  // scripts mixed in one name (a Cyrillic а inside Latin letters) pass for another pseudo.
  .refine((p) => p.normalize('NFKC') === p, 'pseudo trompeur : lettres pleine chasse ou stylisées')
  .refine((p) => !mixesScripts(p), 'pseudo trompeur : écritures mélangées')
  // The generator writes the regex with its flags (`…$/u`), which no client can use: the
  // pattern is given again as JSON Schema writes it (its validators read patterns as Unicode).
  .meta({
    pattern: '^[\\p{L}\\p{Nd}_.-]{3,32}$',
    description: '3 to 32 Unicode letters or decimal digits, `_`, `-` or `.`, counted after NFC normalisation; unique per game ignoring case; not starting with `supprime-` or `invite_` in any case (the server\'s names for deleted accounts and guests); no full-width or styled letters (the NFKC form must be the pseudo itself) and the letters of one script (Chinese or Japanese ideographs may go with kana, and with Hangul).',
    example: 'Zoé_42',
  });
export const Email = z.email().max(254).meta({ example: 'zoe@example.com' });
export const Password = z.string().min(8, '8 à 128 caractères').max(128, '8 à 128 caractères')
  .meta({ description: '8 to 128 characters.', example: 'correct-horse-battery' });
