// <manette-login>: sign in, sign up, Google (when the game has a client id); once signed
// in, the player and a sign-out button. Dispatches manette:signed-in {joueur} after a sign
// in or sign up made through it, and manette:signed-out after its sign-out button.
import { ManettePanel, h, type Joueur, type PanelData, type PanelError } from './base.js';
import { renderGoogleButton } from './google.js';

type View = 'login' | 'register' | 'player';
/** Clients whose kept session a panel already asked to check (once per page is enough). */
const restored = new WeakSet<object>();

export class ManetteLogin extends ManettePanel {
  private view: View = 'login';
  private busy = false;
  private unsubscribe: (() => void) | undefined;
  private error!: HTMLParagraphElement;
  private googleBox: HTMLDivElement | undefined;
  /** The player the 'player' view shows. */
  private shownId: string | undefined;

  /** The view shown: 'login', 'register' or 'player' (signed in). */
  get mode(): View { return this.view; }

  protected start(): void {
    const client = this.client;
    this.view = client?.auth.player ? 'player' : this.view === 'player' ? 'login' : this.view;
    this.render();
    if (!client) return;
    this.unsubscribe = client.auth.onChange((joueur) => {
      const next: View = joueur ? 'player' : this.view === 'player' ? 'login' : this.view;
      if (next !== this.view || (joueur && joueur.id !== this.shownId)) this.show(next);
    });
    // A session kept from an earlier visit: show it as soon as it is checked.
    if (!client.auth.player && !restored.has(client)) {
      restored.add(client);
      client.auth.restore().catch(() => {});
    }
  }

  protected stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  protected override panelLoaded(data: PanelData): void {
    if (data.google_client_id && this.view !== 'player') this.render();
  }

  /** Shows a view; focus follows when it was inside the panel. */
  show(view: View): void {
    const hadFocus = !!this.root.activeElement;
    this.view = view;
    this.render();
    if (hadFocus) this.focusFirst();
  }

  private focusFirst(): void {
    (this.root.querySelector<HTMLElement>('input') ?? this.root.querySelector<HTMLElement>('.player, h2'))?.focus();
  }

  private render(): void {
    this.error = h('p', { class: 'error', part: 'error', role: 'alert' });
    const joueur = this.client?.auth.player;
    let body: Node[];
    this.shownId = this.view === 'player' ? joueur?.id : undefined;
    if (this.view === 'player' && joueur) body = this.playerView(joueur);
    else if (this.view === 'register') body = this.registerView();
    else body = this.loginView();
    this.root.replaceChildren(this.card(...body));
  }

  private field(id: string, key: string, attrs: Record<string, string | boolean>): HTMLDivElement {
    return h('div', { class: 'field', part: 'field' },
      this.tx('label', key, { for: id, part: 'label' }),
      h('input', { id, name: id, part: 'input', required: true, 'aria-describedby': `${id}-erreur`, ...attrs }),
      h('p', { class: 'field-error', id: `${id}-erreur`, part: 'field-error' }));
  }

  private loginView(): Node[] {
    const form = h('form', { part: 'form', novalidate: true, 'aria-labelledby': 'titre' },
      this.field('identifiant', 'connexion_identifiant', { type: 'text', autocomplete: 'username', autocapitalize: 'none', spellcheck: 'false' }),
      this.field('password', 'connexion_mot_de_passe', { type: 'password', autocomplete: 'current-password' }),
      this.error,
      this.tx('button', 'connexion_bouton', { type: 'submit', class: 'primary', part: 'button primary-button' }));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const v = (n: string) => (form.elements.namedItem(n) as HTMLInputElement).value;
      void this.run(form, (c) => c.auth.login({ identifiant: v('identifiant').trim(), password: v('password') }));
    });
    const toRegister = this.tx('button', 'connexion_vers_inscription', { type: 'button', class: 'link', part: 'link' });
    toRegister.addEventListener('click', () => this.show('register'));
    const google = this.googleSection();
    return [this.tx('h2', 'connexion_titre', { id: 'titre', part: 'title', tabindex: '-1' }), form, ...google, toRegister];
  }

  private registerView(): Node[] {
    const form = h('form', { part: 'form', novalidate: true, 'aria-labelledby': 'titre' },
      this.field('pseudo', 'inscription_pseudo', { type: 'text', autocomplete: 'username', autocapitalize: 'none', spellcheck: 'false', maxlength: '32' }),
      this.field('email', 'inscription_email', { type: 'email', autocomplete: 'email' }),
      this.field('password', 'inscription_mot_de_passe', { type: 'password', autocomplete: 'new-password' }),
      this.error,
      this.tx('button', 'inscription_bouton', { type: 'submit', class: 'primary', part: 'button primary-button' }));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const v = (n: string) => (form.elements.namedItem(n) as HTMLInputElement).value;
      void this.run(form, (c) => c.auth.register({ pseudo: v('pseudo').trim(), email: v('email').trim(), password: v('password') }));
    });
    const toLogin = this.tx('button', 'inscription_vers_connexion', { type: 'button', class: 'link', part: 'link' });
    toLogin.addEventListener('click', () => this.show('login'));
    return [this.tx('h2', 'inscription_titre', { id: 'titre', part: 'title', tabindex: '-1' }), form, ...this.googleSection(), toLogin];
  }

  private playerView(joueur: Joueur): Node[] {
    const out = this.tx('button', 'deconnexion_bouton', { type: 'button', class: 'secondary', part: 'button secondary-button' });
    out.addEventListener('click', async () => {
      if (this.busy) return;
      this.setBusy(out, true);
      try {
        const hadFocus = !!this.root.activeElement;
        await this.client?.auth.logout();
        if (this.view !== 'login') this.show('login');
        if (hadFocus) this.focusFirst();
        this.emit('manette:signed-out', {});
      } catch (err) {
        this.error.textContent = this.messageOf(err);
      } finally {
        this.setBusy(out, false);
      }
    });
    const avatar = joueur.avatar_url ? h('img', { class: 'avatar', part: 'avatar', src: joueur.avatar_url, alt: '' }) : null;
    const who = this.tx('span', 'connecte_en_tant_que', {}, { pseudo: joueur.pseudo });
    return [
      h('p', { class: 'player', part: 'player', tabindex: '-1' }, avatar, who),
      this.error,
      out,
    ];
  }

  private googleSection(): Node[] {
    const clientId = this.panelData?.google_client_id;
    if (!clientId) return [];
    const box = h('div', { class: 'google', part: 'google', role: 'group', 'data-t-label': 'connexion_google', 'aria-label': this.t('connexion_google') });
    this.googleBox = box;
    // Rendered once the box is in the page, so Google's button gets its width.
    queueMicrotask(() => {
      renderGoogleButton(box, clientId, this.language(), (idToken) => {
        if (this.googleBox !== box) return;
        void this.run(null, (c) => c.auth.loginWithGoogle(idToken));
      }).catch(() => { box.hidden = true; });
    });
    return [this.tx('p', 'ou', { class: 'separator', part: 'separator' }), box];
  }

  private setBusy(button: HTMLElement | null, busy: boolean): void {
    this.busy = busy;
    // aria-disabled, not disabled: a disabled button would drop the keyboard focus.
    if (button) button.setAttribute('aria-disabled', String(busy));
  }

  /** Runs a sign-in call: errors shown and announced, the event on success. */
  private async run(form: HTMLFormElement | null, call: (c: NonNullable<ManettePanel['client']>) => Promise<Joueur>): Promise<void> {
    const client = this.client;
    if (this.busy || !client) return;
    const submit = form?.querySelector<HTMLElement>('button[type=submit]') ?? null;
    const hadFocus = !!this.root.activeElement;
    this.clearErrors();
    this.setBusy(submit, true);
    try {
      const joueur = await call(client);
      if (this.view !== 'player' || this.shownId !== joueur.id) this.show('player');
      if (hadFocus) this.focusFirst();
      this.emit('manette:signed-in', { joueur });
    } catch (err) {
      this.showError(err);
    } finally {
      this.setBusy(submit, false);
    }
  }

  private clearErrors(): void {
    this.error.textContent = '';
    for (const input of this.root.querySelectorAll('input')) input.removeAttribute('aria-invalid');
    for (const p of this.root.querySelectorAll('.field-error')) p.textContent = '';
  }

  private showError(err: unknown): void {
    // role=alert: the text is announced as soon as it is set.
    this.error.textContent = this.messageOf(err);
    let first: HTMLInputElement | null = null;
    for (const d of (err as PanelError).details ?? []) {
      const input = this.root.getElementById(d.champ) as HTMLInputElement | null;
      if (!input) continue;
      input.setAttribute('aria-invalid', 'true');
      const p = this.root.getElementById(`${d.champ}-erreur`);
      if (p) p.textContent = d.message;
      first ??= input;
    }
    const code = (err as PanelError).code;
    if (!first && (code === 'invalid_credentials' || code === 'too_many_attempts')) first = this.root.getElementById('password') as HTMLInputElement | null;
    if (!first && (code === 'pseudo_taken')) first = this.root.getElementById('pseudo') as HTMLInputElement | null;
    if (!first && (code === 'email_taken')) first = this.root.getElementById('email') as HTMLInputElement | null;
    if (first) {
      first.setAttribute('aria-invalid', 'true');
      if (this.root.activeElement) first.focus();
    }
  }
}
