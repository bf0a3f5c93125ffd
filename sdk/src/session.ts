// The player's session, per game (keyed by API key): kept in localStorage (or the
// `storage` option), shared between tabs through the storage event.
import { shortHash } from './http.js';
import type { Joueur, SessionStorage } from './types.js';

interface Saved { token: string; joueur: Joueur | null }

export class Session {
  readonly key: string;
  private token: string | null = null;
  player: Joueur | null = null;
  private readonly listeners = new Set<(j: Joueur | null) => void>();

  constructor(apiKey: string, private readonly storage: SessionStorage | undefined) {
    this.key = `manette.session.${shortHash(apiKey)}`;
    this.load();
    // Another tab logged in or out: follow it. Only fires for localStorage.
    if (typeof window !== 'undefined' && typeof window.addEventListener === 'function') {
      window.addEventListener('storage', (e) => {
        if (e.key !== this.key && e.key !== null) return;
        const before = this.token;
        this.load();
        if (before !== this.token) this.emit();
      });
    }
  }

  get currentToken(): string | null { return this.token; }

  private load(): void {
    let saved: Saved | null = null;
    try {
      const raw = this.storage?.getItem(this.key);
      saved = raw ? JSON.parse(raw) as Saved : null;
    } catch { saved = null; }
    this.token = saved?.token ?? null;
    this.player = saved?.token ? saved.joueur ?? null : null;
  }

  set(token: string, joueur: Joueur): void {
    const changed = this.token !== token || JSON.stringify(this.player) !== JSON.stringify(joueur);
    this.token = token;
    this.player = joueur;
    this.save();
    if (changed) this.emit();
  }

  setPlayer(joueur: Joueur): void {
    if (!this.token) return;
    this.player = joueur;
    this.save();
    this.emit();
  }

  clear(): void {
    const had = this.token !== null;
    this.token = null;
    this.player = null;
    try { this.storage?.removeItem(this.key); } catch { /* storage refused: memory only */ }
    if (had) this.emit();
  }

  onChange(cb: (j: Joueur | null) => void): () => void {
    this.listeners.add(cb);
    return () => { this.listeners.delete(cb); };
  }

  private save(): void {
    try { this.storage?.setItem(this.key, JSON.stringify({ token: this.token, joueur: this.player })); } catch { /* memory only */ }
  }

  private emit(): void {
    for (const cb of [...this.listeners]) {
      try { cb(this.player); } catch (err) { reportAsync(err); }
    }
  }
}

/** A listener's exception must not break the SDK; surface it like an uncaught error. */
export function reportAsync(err: unknown): void {
  setTimeout(() => { throw err; }, 0);
}

export function defaultStorage(): SessionStorage | undefined {
  try {
    return typeof localStorage !== 'undefined' ? localStorage : undefined;
  } catch { return undefined; }
}
