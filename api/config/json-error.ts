// A JSON file that does not parse (a game file, rows to import): where, as an editor shows it.
import type { Lang } from '../http/messages.js';

/**
 * Where a JSON file is broken, as an editor shows it: line and column (from the parser's
 * offset). The parser's own text is English: French says where and what in French.
 */
export function jsonErrorText(file: string, text: string, parserMessage: string, lang: Lang): string {
  const offset = /position (\d+)/.exec(parserMessage)?.[1];
  const end = /Unexpected end of JSON input/.test(parserMessage);
  const token = /^Unexpected token '(.+?)'/.exec(parserMessage)?.[1];
  let where: { line: number; column: number } | undefined;
  if (offset !== undefined) {
    const before = text.slice(0, Number(offset)).split('\n');
    where = { line: before.length, column: before.at(-1)!.length + 1 };
  }
  if (lang === 'fr') {
    const what = where ? `ligne ${where.line}, colonne ${where.column}`
      : end ? 'fin du fichier atteinte trop tôt' : token ? `« ${token} » inattendu` : 'syntaxe';
    return `${file} n’est pas du JSON valide (${what})`;
  }
  const detail = parserMessage.replace(/ in JSON at position \d+( \(line \d+ column \d+\))?$/, '');
  return where
    ? `${file} is not valid JSON at line ${where.line}, column ${where.column}: ${detail}`
    : `${file} is not valid JSON: ${end ? 'the file ends too early' : detail}`;
}
