// What both panels share: the client they use, GET /panel (fetched once per client), the
// theme as --manette-* custom properties on :host, texts with their overrides, and the
// events they dispatch.
import { lastClient } from '../client.js';
import { DEFAULT_TEXTS, format, type Lang, type Texts } from './texts.js';
import { PANEL_CSS } from './styles.js';

/** The part of a Manette client the panels use (docs/sdk.md). */
export interface Joueur { id: string; pseudo: string; email?: string | null; avatar_url?: string | null; invite?: boolean }
export interface MatchStatus {
  status: 'idle' | 'waiting' | 'matched';
  queue_id?: string; position?: number;
  partie_id?: string; code_salon?: string; equipe?: number;
  participants?: { joueur_id: string; pseudo: string; equipe: number }[];
}
export interface ShopArticle {
  code: string; nom: string; description: string | null; prix: number; devise: string; devise_nom?: string | null; image_url: string | null;
  contenu?: { monnaies?: Record<string, number>; objets?: Record<string, number> } | null; achetable?: boolean;
}
export interface WalletLine { code: string; nom: string; solde: number; max: number | null }
export interface InventoryLine { code: string; nom: string; quantite: number }
export interface PurchaseResult { achat: { article: string; quantite: number; prix_total: number; devise: string }; portefeuille: WalletLine[]; inventaire: InventoryLine[] }
/** `connexions`: the names of the game file's identity-token providers (the login panel's buttons). */
export interface PanelData { theme: Record<string, string | null>; textes: Texts; google_client_id?: string | null; connexions?: string[] }
export interface PanelClient {
  lang?: string;
  auth: {
    player: Joueur | null;
    login(p: { identifiant: string; password: string }): Promise<Joueur>;
    register(p: { pseudo: string; email: string; password: string; pays?: string }): Promise<Joueur>;
    loginWithGoogle(idToken: string): Promise<Joueur>;
    /** POST /players/login/jeton (optional: the login panel's provider buttons need it). */
    loginWithToken?(fournisseur: string, jeton: string): Promise<Joueur>;
    restore(): Promise<Joueur | null>;
    logout(): Promise<unknown>;
    onChange(cb: (joueur: Joueur | null) => void): () => void;
    /** Accounts (optional: a preview client may leave them out; the panel then reports the call as unavailable). */
    guest?(): Promise<Joueur>;
    link?(p: { pseudo?: string; email: string; password: string } | { idToken: string } | { fournisseur: string; jeton: string }): Promise<Joueur>;
    requestReset?(email: string): Promise<unknown>;
    reset?(p: { email: string; code: string; password: string }): Promise<unknown>;
  };
  panel(): Promise<unknown>;
  /** Used by <manette-boutique> only (optional: a preview client of the other panels may leave them out). */
  shop?: { articles(): Promise<ShopArticle[]> };
  economy?: {
    wallet(): Promise<WalletLine[]>;
    inventory(): Promise<InventoryLine[]>;
    buy(code: string, opts?: { quantite?: number }): Promise<PurchaseResult>;
  };
  matchmaking: {
    join(mode: string, elo: number): Promise<MatchStatus>;
    status(): Promise<MatchStatus>;
    leave(): Promise<unknown>;
    waitForMatch(opts?: { signal?: AbortSignal; pollMs?: number }): Promise<MatchStatus>;
  };
}

/** The failure shape of ManetteError, read without depending on the class. */
export interface PanelError { code?: string; message?: string; details?: { champ: string; message: string }[] }

// Without a DOM (the SDK imported by Node), the classes are defined but never registered.
const Base = (typeof HTMLElement === 'undefined' ? class {} : HTMLElement) as typeof HTMLElement;

const panels = new WeakMap<object, Promise<PanelData>>();
/** GET /panel once per client: every panel of the page shares the answer. */
export function panelOf(client: PanelClient): Promise<PanelData> {
  let p = panels.get(client);
  if (!p) {
    p = client.panel().then((raw) => {
      // Tolerate both `{theme, textes}` and the whole envelope `{data: {...}}`.
      const r = (raw && typeof raw === 'object' && 'data' in raw ? (raw as { data: unknown }).data : raw) as Partial<PanelData>;
      const connexions = Array.isArray(r?.connexions) ? r.connexions.filter((c): c is string => typeof c === 'string') : [];
      return { theme: r?.theme ?? {}, textes: r?.textes ?? {}, google_client_id: r?.google_client_id ?? null, connexions };
    });
    // A failed fetch is retried by the next panel that connects.
    p.catch(() => panels.delete(client));
    panels.set(client, p);
  }
  return p;
}

/** `couleur_primaire` → `--manette-couleur-primaire`. */
export const cssVar = (key: string) => `--manette-${key.replace(/_/g, '-')}`;

/** A theme value as CSS: `*_url` keys become `url("...")`; null means "not set". */
function cssValue(key: string, value: string | null | undefined): string | null {
  if (value === null || value === undefined || value === '') return null;
  if (key.endsWith('_url')) return `url("${value.replace(/["\\\n\r]/g, (c) => `\\${c.charCodeAt(0).toString(16)} `)}")`;
  if (key === 'police') return fontStack(value);
  return value;
}

/** The default panels' fonts, after a theme's own: a font the device lacks falls back to them, not to serif. */
export const FONT_FALLBACK = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
const GENERIC_FAMILY = /(^|,)\s*(serif|sans-serif|monospace|cursive|fantasy|system-ui|ui-[a-z-]+|math|emoji|fangsong)\s*$/i;

/** A theme's `police` as a stack: as given when it ends with a generic family, else followed by FONT_FALLBACK. */
export function fontStack(police: string): string {
  return GENERIC_FAMILY.test(police) ? police : `${police}, ${FONT_FALLBACK}`;
}

type Child = Node | string | null | undefined | false;
/** A small element builder: h('button', {class: 'primary', type: 'submit'}, 'Jouer'). */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string | boolean | undefined> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === true) el.setAttribute(name, '');
    else if (typeof value === 'string') el.setAttribute(name, value);
  }
  for (const c of children) if (c) el.append(c);
  return el;
}

let sharedSheet: CSSStyleSheet | undefined;

export abstract class ManettePanel extends Base {
  static get observedAttributes(): string[] { return ['textes', 'lang']; }

  protected readonly root: ShadowRoot;
  /** The game's theme, then `theme` property values, as :host custom properties. */
  private readonly themeSheet = new CSSStyleSheet();
  private explicitClient: PanelClient | undefined;
  private themeOverride: Record<string, string | null> = {};
  private textOverride: Texts = {};
  protected panelData: PanelData | undefined;
  private connected = false;
  /** The game's logo (theme `logo_url`), decorative: the title says what the panel is. */
  private readonly logo = h('img', { class: 'logo', part: 'logo', alt: '', hidden: true });

  constructor() {
    super();
    this.root = this.attachShadow({ mode: 'open', delegatesFocus: false });
    sharedSheet ??= (() => { const s = new CSSStyleSheet(); s.replaceSync(PANEL_CSS); return s; })();
    // Rules on :host lose to any rule of the host page on the element (outer context wins),
    // so the page's CSS always overrides the game's theme; an inline style would not.
    this.root.adoptedStyleSheets = [sharedSheet, this.themeSheet];
  }

  /** The client this panel uses: the `client` property, or the last client created. */
  get client(): PanelClient | undefined {
    // Assigned without a cast: the compiler checks that ManetteClient has what panels use.
    const last: PanelClient | undefined = lastClient();
    return this.explicitClient ?? last;
  }
  set client(c: PanelClient | undefined) {
    this.explicitClient = c;
    if (this.connected) this.restart();
  }

  /** Theme values over the game's (same keys as GET /panel's `theme`). */
  get theme(): Record<string, string | null> { return { ...this.themeOverride }; }
  set theme(t: Record<string, string | null> | null | undefined) {
    this.themeOverride = { ...(t ?? {}) };
    this.applyTheme();
  }

  /** Text overrides for this element only (same keys as GET /panel's `textes`). */
  get textes(): Texts { return { ...this.textOverride }; }
  set textes(t: Texts | null | undefined) {
    this.textOverride = { ...(t ?? {}) };
    this.applyTexts();
  }

  attributeChangedCallback(name: string, _old: string | null, value: string | null): void {
    if (name === 'textes') {
      try { this.textes = value ? JSON.parse(value) as Texts : {}; } catch { console.warn('manette: attribute textes is not JSON'); }
    } else if (name === 'lang') this.applyTexts();
  }

  connectedCallback(): void {
    this.connected = true;
    this.restart();
  }

  disconnectedCallback(): void {
    this.connected = false;
    this.stop();
  }

  private restart(): void {
    this.stop();
    this.applyTheme();
    this.start();
    const client = this.client;
    // No client yet: the page sets `client` later (a restart), or a sign-in finds the last one.
    if (!client) return;
    panelOf(client).then((data) => {
      if (client !== this.client) return;
      this.panelData = data;
      this.applyTheme();
      this.applyTexts();
      this.panelLoaded(data);
    }, () => { /* no theme: the defaults stay */ });
  }

  /** Builds the view for the current client (called on connect and on client change). */
  protected abstract start(): void;
  /** Releases what start() took (listeners, requests). */
  protected abstract stop(): void;
  protected panelLoaded(_data: PanelData): void {}

  /** The texts' language: the element's `lang` attribute, else the client's `lang`. */
  protected language(): Lang {
    const l = (this.getAttribute('lang') || this.client?.lang || 'fr').toLowerCase();
    return l.startsWith('en') ? 'en' : 'fr';
  }

  /** A text: element overrides, then the game's `textes`, then the SDK's defaults. */
  protected t(key: string, vars?: Record<string, string | number>): string {
    const text = this.textOverride[key] ?? this.panelData?.textes[key] ?? DEFAULT_TEXTS[this.language()][key] ?? key;
    return format(text, vars);
  }

  /** An element whose text is the text `key` (kept up to date when texts change). */
  protected tx<K extends keyof HTMLElementTagNameMap>(tag: K, key: string, attrs: Record<string, string | boolean | undefined> = {}, vars?: Record<string, string | number>): HTMLElementTagNameMap[K] {
    const el = h(tag, { ...attrs, 'data-t': key });
    if (vars) el.dataset.vars = JSON.stringify(vars);
    el.textContent = this.t(key, vars);
    return el;
  }

  protected applyTexts(): void {
    for (const el of this.root.querySelectorAll<HTMLElement>('[data-t]')) {
      el.textContent = this.t(el.dataset.t!, el.dataset.vars ? JSON.parse(el.dataset.vars) as Record<string, string> : undefined);
    }
    for (const el of this.root.querySelectorAll<HTMLElement>('[data-t-label]')) {
      el.setAttribute('aria-label', this.t(el.dataset.tLabel!));
    }
  }

  private applyTheme(): void {
    const theme = { ...this.panelData?.theme, ...this.themeOverride };
    this.themeSheet.replaceSync(':host {}');
    const style = (this.themeSheet.cssRules[0] as CSSStyleRule).style;
    // setProperty, not string concatenation: a value cannot escape its declaration.
    for (const [key, value] of Object.entries(theme)) {
      const css = cssValue(key, value);
      if (css !== null) style.setProperty(cssVar(key), css);
    }
    const logo = theme.logo_url;
    this.logo.hidden = !logo;
    if (logo) this.logo.src = logo; else this.logo.removeAttribute('src');
  }

  /** A bubbling, composed event (it crosses shadow roots up to the document). */
  protected emit(type: string, detail: unknown): void {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }

  /** The message to show for a failure: the server's text, already in the client's language. */
  protected messageOf(err: unknown): string {
    const e = err as PanelError;
    return typeof e?.message === 'string' && e.message ? e.message : String(err);
  }

  /** Moves focus only when it was inside this panel (never steals it from the page). */
  protected focusIfInside(el: HTMLElement | null | undefined): void {
    if (el && (this.root.activeElement || document.activeElement === this)) el.focus();
  }

  /** The card every panel draws in; `logo_url` from the theme on top. */
  protected card(...children: Child[]): HTMLDivElement {
    return h('div', { class: 'card', part: 'card' }, this.logo, ...children);
  }
}
