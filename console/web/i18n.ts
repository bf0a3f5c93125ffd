// The console's language: English or French, chosen in the header (kept in localStorage),
// else the terminal's (the server says it). Every text is written in both, beside its use:
// t({en: '...', fr: '...'}, {name: value}).
import { useEffect, useState } from 'preact/hooks';

export type Lang = 'fr' | 'en';
export type Text = { en: string; fr: string };

const KEY = 'manette-console-lang';
let lang: Lang = 'en';
const listeners = new Set<(l: Lang) => void>();

export function currentLang(): Lang { return lang; }

export function initLang(serverLang: Lang): void {
  const saved = localStorage.getItem(KEY);
  lang = saved === 'fr' || saved === 'en' ? saved : serverLang;
  document.documentElement.lang = lang;
  // Components rendered before (the shell's EN/FR toggle) learn it too.
  for (const fn of listeners) fn(lang);
}

export function setLang(l: Lang): void {
  lang = l;
  localStorage.setItem(KEY, l);
  document.documentElement.lang = l;
  for (const fn of listeners) fn(l);
}

/** Re-renders the component when the language changes; returns it. */
export function useLang(): Lang {
  const [l, set] = useState(lang);
  useEffect(() => {
    listeners.add(set);
    return () => { listeners.delete(set); };
  }, []);
  return l;
}

/** A text in the current language, `{name}` replaced by vars. */
export function t(text: Text, vars: Record<string, string | number | null | undefined> = {}): string {
  return text[lang].replace(/\{(\w+)\}/g, (whole, name: string) => (name in vars ? String(vars[name] ?? '—') : whole));
}

/** A date as the console shows it: local, to the second. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(lang === 'fr' ? 'fr-FR' : 'en-GB', { dateStyle: 'short', timeStyle: 'medium' });
}

export function num(n: number | null | undefined, digits = 0): string {
  if (n === null || n === undefined) return '—';
  return n.toLocaleString(lang === 'fr' ? 'fr-FR' : 'en-GB', { maximumFractionDigits: digits });
}
