// Commander's own texts (help titles, usage words, its parse errors) in the user's
// language, so that one output never mixes French and English: the commands' own texts
// are theirs (locale.ts), these are the library's. Also `--version`.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { Lang } from './locale.js';
import { PACKAGE_ROOT } from './project.js';

/** The installed package's version (package.json). */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

const TITLES: Record<string, string> = {
  'Usage:': 'Utilisation :',
  'Arguments:': 'Arguments :',
  'Options:': 'Options :',
  'Commands:': 'Commandes :',
  'Global Options:': 'Options globales :',
};

/** Argument names as help and usage show them (commander only uses them for display). */
const ARGUMENT_NAMES: Record<Lang, Record<string, string>> = {
  en: { jeu: 'game' },
  fr: { file: 'fichier', files: 'fichiers', who: 'joueur', key: 'clé', match: 'partie', match_id: 'partie_id', command: 'commande', options: 'options' },
};

function argumentWord(word: string, lang: Lang): string {
  // name, <name>, [name], [name...], <name...>
  return word.replace(/^([<[]?)([\w-]+)((?:\.\.\.)?[>\]]?)$/, (m, open: string, name: string, close: string) =>
    `${open}${ARGUMENT_NAMES[lang][name] ?? name}${close}`);
}

/** Commander's parse errors, as `error: ...` lines; the rest of a message is kept. */
const ERRORS: { re: RegExp; fr: (m: RegExpExecArray) => string; en?: (m: RegExpExecArray) => string }[] = [
  { re: /^error: unknown option '(.*?)'/, fr: (m) => `erreur : option inconnue « ${m[1]} »` },
  { re: /^error: unknown command '(.*?)'/, fr: (m) => `erreur : commande inconnue « ${m[1]} »` },
  {
    re: /^error: missing required argument '(.*?)'/,
    fr: (m) => `erreur : argument obligatoire manquant « ${argumentWord(`<${m[1]}>`, 'fr').slice(1, -1)} »`,
    en: (m) => `error: missing required argument '${argumentWord(`<${m[1]}>`, 'en').slice(1, -1)}'`,
  },
  { re: /^error: option '(.*?)' argument missing/, fr: (m) => `erreur : l’option « ${m[1]} » attend une valeur` },
  { re: /^error: required option '(.*?)' not specified/, fr: (m) => `erreur : l’option « ${m[1]} » est obligatoire` },
  {
    re: /^error: too many arguments(?: for '(.*?)')?\. Expected (\d+) arguments? but got (\d+)\./,
    fr: (m) => `erreur : trop d’arguments${m[1] ? ` pour « ${m[1]} »` : ''} : ${m[2]} attendu(s), ${m[3]} donné(s).`,
  },
  { re: /^error: (.*) cannot be used with (.*)$/, fr: (m) => `erreur : ${m[1]} ne peut pas être utilisée avec ${m[2]}` },
  { re: /^\(Did you mean one of (.*)\?\)$/, fr: (m) => `(Vouliez-vous dire l’une de : ${m[1]} ?)` },
  { re: /^\(Did you mean (.*)\?\)$/, fr: (m) => `(Vouliez-vous dire ${m[1]} ?)` },
];

export function commanderError(text: string, lang: Lang): string {
  return text.split('\n').map((line) => {
    for (const { re, fr, en } of ERRORS) {
      const m = re.exec(line);
      if (m) return lang === 'fr' ? fr(m) + line.slice(m[0].length) : en ? en(m) + line.slice(m[0].length) : line;
    }
    return line;
  }).join('\n');
}

/**
 * Puts commander's texts in `lang` on `program` (commands created after this inherit it)
 * and adds `-V, --version`. Call it before registering the commands.
 */
export function localizeCommander(program: Command, lang: Lang): Command {
  const fr = lang === 'fr';
  return program
    .version(packageVersion(), '-V, --version', fr ? 'affiche la version de Manette' : 'print Manette\'s version')
    .configureHelp({
      styleTitle: (title) => (fr ? TITLES[title] ?? title : title),
      styleArgumentText: (word) => argumentWord(word, lang),
      styleSubcommandText: (word) => (word === '[command]' ? argumentWord(word, lang) : word),
    })
    .configureOutput({ outputError: (text, write) => write(commanderError(text, lang)) });
}
