// The game file problems only the database finds (manette_admin.apply_game, raised as
// `modes.<code>.regles : <problem>` by manette.rules_problem and rules_sandbox_problem,
// in French), in the user's language: `manette apply` and `manette start` then say them
// in one language. The texts are the API's detail messages (api/http/messages.ts).
import { detailMessageFor } from '../http/messages.js';
import type { Lang } from './locale.js';

/** `modes.<code>.regles : <problem>` from the database, as `modes.<code>.regles: <problem>` in `lang`; else undefined. */
export function rulesProblemText(message: string, lang: Lang): string | undefined {
  const m = /^(modes\.\S+\.regles) : (.*)$/s.exec(message);
  if (!m) return undefined;
  return lang === 'fr' ? `${m[1]} : ${m[2]}` : `${m[1]}: ${detailMessageFor(m[2]!, lang)}`;
}
