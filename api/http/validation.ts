// The `details` of validation_failed and invalid_query for what the route schemas refuse:
// one readable sentence per field, naming it, in the player's language. zod's own texts
// ("Trop petit : chaîne de caractères doit avoir >=1 caractères") are never sent; a
// message a schema writes itself (`.regex(re, '3 à 32 caractères …')`) is kept, and
// translated by mapError like the SQL functions' texts.
import type { z } from 'zod';
import type { FieldIssue } from './errors.js';
import type { Lang } from './messages.js';

/** What the request part is called when the issue is about it as a whole (a body that is an array). */
export type Part = 'body' | 'query' | 'params';

// Marks an issue whose schema set no message of its own: its text is written here from
// the issue's code and limits, once its full path is known.
const UNSET = '\u0000manette:unset';
const unset = () => UNSET;

/** safeParse's options: zod's texts are replaced (see fieldIssues), which reads the input (never sent). */
export const PARSE_OPTIONS = { error: unset, reportInput: true } as const;

const ROOT: Record<Part, Record<Lang, string>> = {
  body: { fr: 'le corps de la requête', en: 'the request body' },
  query: { fr: 'la chaîne de requête', en: 'the query string' },
  params: { fr: 'le chemin', en: 'the path' },
};

const TYPES: Record<string, Record<Lang, string>> = {
  string: { fr: 'une chaîne de caractères', en: 'a string' },
  number: { fr: 'un nombre', en: 'a number' },
  int: { fr: 'un entier', en: 'an integer' },
  boolean: { fr: 'un booléen (true ou false)', en: 'a boolean (true or false)' },
  object: { fr: 'un objet', en: 'an object' },
  array: { fr: 'un tableau', en: 'an array' },
  record: { fr: 'un objet', en: 'an object' },
  null: { fr: 'null', en: 'null' },
};

const FORMATS: Record<string, Record<Lang, string>> = {
  email: { fr: 'une adresse e-mail valide', en: 'a valid e-mail address' },
  uuid: { fr: 'un UUID', en: 'a UUID' },
  url: { fr: 'une URL', en: 'a URL' },
  datetime: { fr: 'une date ISO 8601', en: 'an ISO 8601 date' },
};

const UNITS: Record<string, Record<Lang, [one: string, many: string]>> = {
  string: { fr: ['caractère', 'caractères'], en: ['character', 'characters'] },
  array: { fr: ['élément', 'éléments'], en: ['item', 'items'] },
  set: { fr: ['élément', 'éléments'], en: ['item', 'items'] },
  map: { fr: ['entrée', 'entrées'], en: ['entry', 'entries'] },
};

const quote = (value: unknown) => JSON.stringify(value);
const plural = (n: number | bigint, [one, many]: [string, string]) => `${n} ${Number(n) === 1 ? one : many}`;

/** A readable message for a zod issue without a message of its own, naming `field`. */
function describe(issue: z.core.$ZodIssue, field: string, l: Lang): string {
  const fr = l === 'fr';
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.input === undefined) return fr ? `${field} est obligatoire` : `${field} is required`;
      const expected = TYPES[issue.expected];
      if (!expected) return fr ? `${field} n’a pas le bon type` : `${field} has the wrong type`;
      return fr ? `${field} doit être ${expected.fr}` : `${field} must be ${expected.en}`;
    }
    case 'too_small': {
      const unit = UNITS[issue.origin];
      const n = issue.minimum as number | bigint;
      if (unit) {
        if (Number(n) === 1 && !issue.exact) return fr ? `${field} ne doit pas être vide` : `${field} must not be empty`;
        const size = plural(n, unit[l]);
        if (issue.exact) return fr ? `${field} doit avoir exactement ${size}` : `${field} must have exactly ${size}`;
        return fr ? `${field} doit avoir au moins ${size}` : `${field} must have at least ${size}`;
      }
      if (issue.inclusive === false) return fr ? `${field} doit être supérieur à ${n}` : `${field} must be greater than ${n}`;
      return fr ? `${field} doit valoir au moins ${n}` : `${field} must be at least ${n}`;
    }
    case 'too_big': {
      const unit = UNITS[issue.origin];
      const n = issue.maximum as number | bigint;
      if (unit) {
        const size = plural(n, unit[l]);
        if (issue.exact) return fr ? `${field} doit avoir exactement ${size}` : `${field} must have exactly ${size}`;
        return fr ? `${field} doit avoir au plus ${size}` : `${field} must have at most ${size}`;
      }
      if (issue.inclusive === false) return fr ? `${field} doit être inférieur à ${n}` : `${field} must be less than ${n}`;
      return fr ? `${field} doit valoir au plus ${n}` : `${field} must be at most ${n}`;
    }
    case 'invalid_format': {
      const format = FORMATS[issue.format];
      if (format) return fr ? `${field} doit être ${format.fr}` : `${field} must be ${format.en}`;
      return fr ? `${field} n’a pas le format attendu` : `${field} does not have the expected format`;
    }
    case 'invalid_value': {
      const values = issue.values.map(quote).join(fr ? ' ou ' : ' or ');
      return fr ? `${field} doit valoir ${values}` : `${field} must be ${values}`;
    }
    case 'unrecognized_keys':
      return fr ? `${field} n’est pas un champ accepté` : `${field} is not an accepted field`;
    case 'not_multiple_of':
      return fr ? `${field} doit être un multiple de ${issue.divisor}` : `${field} must be a multiple of ${issue.divisor}`;
    default:
      return fr ? `${field} est invalide` : `${field} is invalid`;
  }
}

/**
 * The details for a failed parse: one per issue, `champ` its path (a.b.0), its message the
 * schema's own or one written here; an unknown field is reported under its own name.
 */
export function fieldIssues(error: z.ZodError, part: Part, l: Lang): FieldIssue[] {
  return error.issues.flatMap((issue) => {
    const at = issue.path.map(String);
    const paths = issue.code === 'unrecognized_keys' ? issue.keys.map((k) => [...at, k]) : [at];
    return paths.map((p) => {
      const champ = p.join('.');
      const field = champ === '' ? ROOT[part][l] : champ;
      return { champ, message: issue.message === UNSET ? describe(issue, field, l) : issue.message };
    });
  });
}
