// The CLI speaks the user's language: French for a fr* locale, English otherwise, like the
// API's messages. The locale is POSIX's: LC_ALL, then LC_MESSAGES, then LANG.
import type { Lang } from '../http/messages.js';

export type { Lang };

export function cliLang(env: NodeJS.ProcessEnv = process.env): Lang {
  const locale = [env.LC_ALL, env.LC_MESSAGES, env.LANG].find((v) => v && v.trim() !== '') ?? '';
  return /^fr([_.@-]|$)/i.test(locale.trim()) ? 'fr' : 'en';
}

/** A text in both languages; `{name}` placeholders are filled from `vars`. */
export type Text = { fr: string; en: string };

export function say(text: Text, lang: Lang, vars: Record<string, string | number> = {}): string {
  return text[lang].replace(/\{(\w+)\}/g, (m, k: string) => (k in vars ? String(vars[k]) : m));
}
