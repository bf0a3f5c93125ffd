// The password reset mail (docs/accounts.md, "Password reset"): built from the game's
// `courriels` over French and English defaults, sent over SMTP (MANETTE_SMTP_URL) with
// nodemailer. The route never awaits the sending (the answer must not tell, by its time,
// whether a mail left); failures are logged without the code nor the address.
import nodemailer, { type Transporter } from 'nodemailer';
import type { Logger } from 'pino';
import type { Lang } from '../http/messages.js';

/** A text of the game file's `courriels`: one for every language, or per language. */
export type MailText = string | { fr?: string; en?: string };

export interface Courriels {
  expediteur?: string;
  reinitialisation?: { sujet?: MailText; texte?: MailText };
}

/** What api.players_mot_de_passe_oubli returns to the façade when a mail is due. */
export interface ResetMailData {
  email: string;
  pseudo: string;
  /** The game's name. */
  jeu: string;
  courriels: Courriels | null;
  minutes: number;
}

export interface BuiltMail {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
}

export const DEFAULT_RESET_TEXTS: Record<Lang, { sujet: string; texte: string }> = {
  fr: {
    sujet: '{jeu} : ton code pour changer de mot de passe',
    texte: 'Bonjour {pseudo},\n\n'
      + 'Voici ton code pour choisir un nouveau mot de passe dans {jeu} :\n\n'
      + '    {code}\n\n'
      + 'Il est valable {minutes} minutes et ne sert qu’une fois.\n'
      + 'Si tu n’as rien demandé, ignore ce message : ton mot de passe ne change pas.\n',
  },
  en: {
    sujet: '{jeu}: your code to change your password',
    texte: 'Hello {pseudo},\n\n'
      + 'Here is your code to choose a new password in {jeu}:\n\n'
      + '    {code}\n\n'
      + 'It is valid for {minutes} minutes and works once.\n'
      + 'If you did not ask for it, ignore this message: your password does not change.\n',
  },
};

/** The game's text in `lang`, else the default in `lang` (a game's French text is not shown to an English reader). */
function pick(text: MailText | undefined, lang: Lang, fallback: string): string {
  if (typeof text === 'string') return text;
  return text?.[lang] ?? fallback;
}

/** {code} {pseudo} {jeu} {minutes}, in one pass: a pseudo spelled "{code}" stays as it is. */
export function fillPlaceholders(template: string, values: Record<'code' | 'pseudo' | 'jeu' | 'minutes', string>): string {
  return template.replace(/\{(code|pseudo|jeu|minutes)\}/g, (_m, name: keyof typeof values) => values[name]);
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The sender when the game names none: the game's name and the SMTP login if it is an address, else no-reply@ the SMTP host. */
export function defaultSender(gameName: string, smtpUrl: string | undefined): string {
  let address = 'no-reply@localhost';
  if (smtpUrl) {
    try {
      const u = new URL(smtpUrl);
      const user = decodeURIComponent(u.username);
      address = /^[^\s@<>]+@[^\s@<>]+$/.test(user) ? user : `no-reply@${u.hostname || 'localhost'}`;
    } catch { /* kept: no-reply@localhost */ }
  }
  return `"${gameName.replace(/["\\\r\n]/g, '')}" <${address}>`;
}

export function buildResetMail(data: ResetMailData, code: string, lang: Lang, smtpUrl?: string): BuiltMail {
  const defaults = DEFAULT_RESET_TEXTS[lang];
  const own = data.courriels?.reinitialisation;
  const values = { code, pseudo: data.pseudo, jeu: data.jeu, minutes: String(data.minutes) };
  const subject = fillPlaceholders(pick(own?.sujet, lang, defaults.sujet), values).replace(/[\r\n]+/g, ' ').trim();
  const text = fillPlaceholders(pick(own?.texte, lang, defaults.texte), values);
  const html = `<!doctype html><html lang="${lang}"><body>`
    + text.split(/\n{2,}/).map((para) => `<p>${escapeHtml(para).replace(/\n/g, '<br>')}</p>`).join('')
    + '</body></html>';
  return {
    from: data.courriels?.expediteur ?? defaultSender(data.jeu, smtpUrl),
    to: data.email,
    subject,
    text,
    html,
  };
}

// One transport per SMTP URL, for the life of the process.
const transports = new Map<string, Transporter>();
function transportFor(url: string): Transporter {
  let t = transports.get(url);
  if (!t) {
    t = nodemailer.createTransport(url);
    transports.set(url, t);
  }
  return t;
}

/**
 * Sends the mail in the background and returns at once. The promise it hands to the
 * Supabase edge runtime's EdgeRuntime.waitUntil (when there) keeps the function alive
 * until the mail is out; it never rejects.
 */
export function sendResetMailInBackground(
  mail: BuiltMail, smtpUrl: string | undefined, logger: Logger | undefined,
): Promise<void> {
  if (!smtpUrl) {
    logger?.warn('MANETTE_SMTP_URL is not set: a password reset mail was not sent');
    return Promise.resolve();
  }
  const sending = (async () => {
    try {
      // After the answer is on its way: nothing of the sending runs before it.
      await new Promise((r) => setTimeout(r, 0));
      await transportFor(smtpUrl).sendMail(mail);
    } catch (err) {
      // Neither the code nor the address: only what failed.
      logger?.error({ smtpError: (err as Error)?.message ?? String(err) }, 'password reset mail not sent');
    }
  })();
  const edge = (globalThis as { EdgeRuntime?: { waitUntil?: (p: Promise<unknown>) => void } }).EdgeRuntime;
  edge?.waitUntil?.(sending);
  return sending;
}
