// The twin's mail catcher: an SMTP server on the loopback that accepts every mail, parses
// it (mailparser) and keeps it in memory, as Supabase's local stack catches its mails
// (Inbucket / Mailpit). `manette start` runs it when MANETTE_SMTP_URL is unset and prints
// each mail in the terminal; the tests read the codes out of it. It plays a mail provider
// only as far as a mail is accepted and read: no TLS, no AUTH, no delivery anywhere.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { simpleParser, type AddressObject } from 'mailparser';

export interface CaughtMail {
  /** The envelope's sender and recipients (MAIL FROM, RCPT TO). */
  envelopeFrom: string;
  envelopeTo: string[];
  /** The From and To headers, as text. */
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string | undefined;
  /** Every header, names in lower case. */
  headers: Map<string, unknown>;
  receivedAt: Date;
}

export interface MailCatcherOptions {
  /** 0 (default): a free port. */
  port?: number;
  host?: string;
  /** Called with each mail once parsed (the terminal's print under `manette start`). */
  onMail?: (mail: CaughtMail) => void;
  /** Mails kept (the oldest go first); default 1000. */
  keep?: number;
}

const addressText = (a: AddressObject | AddressObject[] | undefined): string =>
  (Array.isArray(a) ? a.map((x) => x.text).join(', ') : a?.text ?? '');

export class MailCatcher {
  private server: SMTPServer | undefined;
  private readonly caught: CaughtMail[] = [];
  private readonly waiters = new Set<{ predicate: (m: CaughtMail) => boolean; resolve: (m: CaughtMail) => void }>();
  private boundPort = 0;

  constructor(private readonly opts: MailCatcherOptions = {}) {}

  get port(): number {
    return this.boundPort;
  }

  /** smtp://127.0.0.1:<port>, for MANETTE_SMTP_URL. */
  get url(): string {
    return `smtp://${this.opts.host ?? '127.0.0.1'}:${this.boundPort}`;
  }

  async start(): Promise<this> {
    if (this.server) return this;
    const server = new SMTPServer({
      // A local catcher: plain text on the loopback, any sender, no login.
      disabledCommands: ['STARTTLS', 'AUTH'],
      authOptional: true,
      logger: false,
      size: 10 * 1024 * 1024,
      banner: 'Manette twin mail catcher',
      onData: (stream, session, callback) => {
        simpleParser(stream).then((parsed) => {
          const from = session.envelope.mailFrom;
          this.receive({
            envelopeFrom: from ? from.address : '',
            envelopeTo: session.envelope.rcptTo.map((r) => r.address),
            from: addressText(parsed.from),
            to: addressText(parsed.to),
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : undefined,
            headers: parsed.headers,
            receivedAt: new Date(),
          });
          callback();
        }, (err: Error) => callback(err));
      },
    });
    server.on('error', () => { /* a client's broken connection: nothing to do */ });
    await new Promise<void>((resolve, reject) => {
      const onError = (err: Error) => reject(err);
      server.server.once('error', onError);
      server.listen(this.opts.port ?? 0, this.opts.host ?? '127.0.0.1', () => {
        server.server.off('error', onError);
        resolve();
      });
    });
    this.server = server;
    this.boundPort = (server.server.address() as AddressInfo).port;
    return this;
  }

  /** The mails received so far, oldest first (a copy). */
  messages(): CaughtMail[] {
    return [...this.caught];
  }

  /** The first mail (already received or to come) that `predicate` accepts; rejects after `timeoutMs` (default 15 s). */
  waitFor(predicate: (m: CaughtMail) => boolean = () => true, timeoutMs = 15_000): Promise<CaughtMail> {
    const found = this.caught.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const waiter = {
        predicate,
        resolve: (m: CaughtMail) => { clearTimeout(timer); this.waiters.delete(waiter); resolve(m); },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`no matching mail within ${timeoutMs} ms (${this.caught.length} received)`));
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  /** Forgets the mails received so far. */
  clear(): void {
    this.caught.length = 0;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private receive(mail: CaughtMail): void {
    this.caught.push(mail);
    const keep = this.opts.keep ?? 1000;
    if (this.caught.length > keep) this.caught.splice(0, this.caught.length - keep);
    try {
      this.opts.onMail?.(mail);
    } catch { /* the printer's failure is not the mail's */ }
    for (const w of [...this.waiters]) if (w.predicate(mail)) w.resolve(mail);
  }
}

/** A started catcher. */
export function startMailCatcher(opts: MailCatcherOptions = {}): Promise<MailCatcher> {
  return new MailCatcher(opts).start();
}
