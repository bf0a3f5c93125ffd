// The game file problems only the database finds (manette_admin.apply_game, raised as
// `modes.<code>.regles : <problem>` by manette.rules_problem and rules_sandbox_problem,
// in French), in English for an English locale: `manette apply` and `manette start`
// then say them in one language.
import type { Lang } from './locale.js';

const RULES_EN: [RegExp, string][] = [
  [/^morpion se joue à deux : (.*)$/s, 'morpion is played by two: $1'],
  [/^jeu de règles inconnu « (.*) » : libre, tour_par_tour, morpion, ou le nom « schema\.fonction » d’une fonction plpgsql du jeu$/s,
    'unknown rule set "$1": libre, tour_par_tour, morpion, or the name "schema.fonction" of a plpgsql function of the game'],
  [/^fonction de règles introuvable : (.*) \(créez-la par une migration avant d’appliquer le fichier\)$/s,
    'rule function not found: $1 (create it in a migration before applying the file)'],
  [/^fonction de règles introuvable : (.*)$/s, 'rule function not found: $1'],
  [/^la fonction de règles doit être (.*) \(une seule valeur jsonb\)$/s, 'the rule function must be $1 (one jsonb value)'],
  [/^(.*) est SECURITY DEFINER : elle s’exécuterait avec les droits de son propriétaire, hors du bac à sable des règles ; créez-la SECURITY INVOKER \(le défaut\)$/s,
    '$1 is SECURITY DEFINER: it would run with its owner’s rights, outside the rules sandbox; create it SECURITY INVOKER (the default)'],
  [/^(.*) change de rôle \(SET (.*)\) : une fonction de règles s’exécute en manette_rules, retirez ce SET$/s,
    '$1 changes role (SET $2): a rule function runs as manette_rules, remove this SET'],
  [/^(.*) est écrite en (.*), un langage non fiable \(untrusted\) : écrivez-la en plpgsql ou sql$/s,
    '$1 is written in $2, an untrusted language: write it in plpgsql or sql'],
  [/^manette_rules \(le rôle du bac à sable où s’exécutent les règles\) doit pouvoir exécuter (.*?) : (grant .*)$/s,
    'manette_rules (the sandbox role rules run as) must be able to execute $1: $2'],
];

/** `modes.<code>.regles : <problem>` from the database, as `modes.<code>.regles: <problem>` in `lang`; else undefined. */
export function rulesProblemText(message: string, lang: Lang): string | undefined {
  const m = /^(modes\.\S+\.regles) : (.*)$/s.exec(message);
  if (!m) return undefined;
  if (lang === 'fr') return `${m[1]} : ${m[2]}`;
  const found = RULES_EN.find(([re]) => re.test(m[2]!));
  return `${m[1]}: ${found ? m[2]!.replace(found[0], found[1]) : m[2]}`;
}
