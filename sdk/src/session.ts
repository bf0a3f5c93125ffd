// The player's session, per game (keyed by API key): kept in localStorage (or the
// `storage` option), shared between tabs through the storage event. Beside it, the
// device's guest id (`appareil_id`, POST /players/invite), made on the first guest() call.
import { shortHash } from './http.js';
import type { Joueur, SessionStorage } from './types.js';

interface Saved { token: string; joueur: Joueur | null }

/** What the server accepts as an appareil_id. */
const DEVICE_ID = /^[A-Za-z0-9_-]{16,128}$/;

export class Session {
  readonly key: string;
  /** Where the device's guest id is kept (per game, like the session). */
  readonly deviceKey: string;
  /** The guest id when the storage refuses it (kept for this page only). */
  private memoryDevice: string | null = null;
  private token: string | null = null;
  player: Joueur | null = null;
  private readonly listeners = new Set<(j: Joueur | null) => void>();

  constructor(apiKey: string, private readonly storage: SessionStorage | undefined) {
    this.key = `manette.session.${shortHash(apiKey)}`;
    this.deviceKey = `manette.appareil.${shortHash(apiKey)}`;
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

  /**
   * The device's guest id: the kept one, else a new random one (24 bytes from
   * crypto.getRandomValues, base64url: 32 characters), kept at once.
   */
  deviceId(): string {
    let id: string | null = this.memoryDevice;
    try { id = this.storage?.getItem(this.deviceKey) ?? id; } catch { /* memory only */ }
    if (id && DEVICE_ID.test(id)) return id;
    id = newDeviceId();
    this.memoryDevice = id;
    try { this.storage?.setItem(this.deviceKey, id); } catch { /* memory only */ }
    return id;
  }

  /** Forgets the device's guest id (the guest it named is gone or is a full account now). */
  forgetDevice(): void {
    this.memoryDevice = null;
    try { this.storage?.removeItem(this.deviceKey); } catch { /* memory only */ }
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

/** 32 characters of base64url from 24 random bytes (192 bits). */
export function newDeviceId(): string {
  const b = new Uint8Array(24);
  globalThis.crypto.getRandomValues(b);
  return btoa(String.fromCharCode(...b)).replace(/\+/g, '-').replace(/\//g, '_');
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
