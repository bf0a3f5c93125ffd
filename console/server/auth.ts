// Who may use the console: whoever opened the one-time link printed in the terminal. The
// link's secret is good once; it becomes a session (an HttpOnly, SameSite=Strict cookie)
// and a CSRF token the page sends back on every write. Only SHA-256 hashes of the secret
// and of the session ids are kept, in this process's memory: a restart signs everyone out.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const SESSION_COOKIE = 'manette_console';
/** A session unused for this long is forgotten (the terminal prints a new link on demand). */
export const SESSION_IDLE_MS = 12 * 3600_000;

const sha256 = (text: string) => createHash('sha256').update(text).digest();
const token = () => randomBytes(32).toString('base64url');

export interface ConsoleSession { csrf: string; lastUsed: number }

export class ConsoleAuth {
  private secretHash: Buffer;
  private readonly sessions = new Map<string, ConsoleSession>();

  /** `onNewSecret` is told each new one-time secret (the terminal prints its link). */
  constructor(private readonly onNewSecret: (secret: string) => void) {
    this.secretHash = Buffer.alloc(32);
    this.renewSecret();
  }

  /** A new one-time secret; the previous one stops working. */
  renewSecret(): string {
    const secret = token();
    this.secretHash = sha256(secret);
    this.onNewSecret(secret);
    return secret;
  }

  /** Trades the one-time secret for a new session id; undefined if it is not the current secret. */
  open(secret: string): string | undefined {
    if (!timingSafeEqual(sha256(secret), this.secretHash)) return undefined;
    this.renewSecret();
    const id = token();
    this.sessions.set(sha256(id).toString('hex'), { csrf: token(), lastUsed: Date.now() });
    return id;
  }

  /** The session of a cookie value, if it is live (its idle time restarts). */
  session(id: string | undefined): ConsoleSession | undefined {
    if (!id) return undefined;
    const key = sha256(id).toString('hex');
    const s = this.sessions.get(key);
    if (!s) return undefined;
    if (Date.now() - s.lastUsed > SESSION_IDLE_MS) {
      this.sessions.delete(key);
      return undefined;
    }
    s.lastUsed = Date.now();
    return s;
  }

  close(id: string | undefined): void {
    if (id) this.sessions.delete(sha256(id).toString('hex'));
  }
}

/** Constant-time comparison of two strings (CSRF tokens). */
export function sameToken(a: string | undefined, b: string): boolean {
  if (typeof a !== 'string') return false;
  return timingSafeEqual(sha256(a), sha256(b));
}

/** The value of one cookie in a Cookie header. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return undefined;
}
