// <manette-login>: sign in, sign up, Google (when the game has a client id), play as a
// guest, and a forgotten password reset with an e-mailed code (two steps); once signed in,
// the player and a sign-out button, and for a guest a form that links an account.
// Dispatches manette:signed-in {joueur} after a sign in, sign up or guest start made through
// it, manette:linked {joueur} after a link, and manette:signed-out after its sign-out button.
// A button per provider of the game file's `connexions` (GET /panel) dispatches
// manette:provider {fournisseur}: the game gets a token from that provider and hands it to
// the panel's loginWithToken(fournisseur, jeton) (the panel cannot mint a provider's token).
import { ManettePanel, h, type Joueur, type PanelClient, type PanelData, type PanelError } from './base.js';
import { renderGoogleButton } from './google.js';

/**
 * 'login', 'register', 'player' (signed in), 'forgot' (the e-mail that gets a reset code),
 * 'reset' (the code and the new password), 'link' (a guest links an account).
 */
type View = 'login' | 'register' | 'player' | 'forgot' | 'reset' | 'link';
/** A message the next view shows (and announces) once. */
interface Notice { key: string; vars?: Record<string, string>; kind: 'status' | 'success' }
/** Clients whose kept session a panel already asked to check (once per page is enough). */
const restored = new WeakSet<object>();

/** A call the client does not offer (a preview client): reported like a refusal. */
function unavailable(name: string): PanelError {
  return { code: 'unavailable', message: `auth.${name}() is not available on this client` };
}

export class ManetteLogin extends ManettePanel {
  private view: View = 'login';
  private busy = false;
  private unsubscribe: (() => void) | undefined;
  private error!: HTMLParagraphElement;
  private googleBox: HTMLDivElement | undefined;
  /** The player the 'player' or 'link' view shows: id, guest or not, pseudo. */
  private shown: string | undefined;
  private notice: Notice | undefined;
  /** The e-mail of the reset flow (typed in 'forgot', used by 'reset'). */
  private resetEmail = '';
  /** A value to put in the sign-in form's first field (the e-mail just reset). */
  private prefill = '';

  /** The view shown: 'login', 'register', 'player' (signed in), 'forgot', 'reset' or 'link'. */
  get mode(): View { return this.view; }

  protected start(): void {
    const client = this.client;
    this.view = this.next(client?.auth.player ?? null);
    this.render();
    if (!client) return;
    this.unsubscribe = client.auth.onChange((joueur) => {
      const next = this.next(joueur);
      if (next !== this.view || this.shown !== shownKey(joueur)) this.show(next);
    });
    // A session kept from an earlier visit: show it as soon as it is checked.
    if (!client.auth.player && !restored.has(client)) {
      restored.add(client);
      client.auth.restore().catch(() => {});
    }
  }

  /** The view for this player: a signed-in player is shown (a guest may stay in 'link'); signed out, never a player's view. */
  private next(joueur: Joueur | null): View {
    if (joueur) return this.view === 'link' && joueur.invite ? 'link' : 'player';
    return this.view === 'player' || this.view === 'link' ? 'login' : this.view;
  }

  protected stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  protected override panelLoaded(data: PanelData): void {
    if ((data.google_client_id || data.connexions?.length) && this.view !== 'player') this.render();
  }

  /**
   * Signs in with a provider's identity token (what the game got after a manette:provider
   * event): errors shown in the panel, manette:signed-in on success, as the panel's own forms.
   */
  loginWithToken(fournisseur: string, jeton: string): Promise<void> {
    const button = this.root.querySelector<HTMLElement>(`button[data-fournisseur="${CSS.escape(fournisseur)}"]`);
    return this.run(null, (c) => c.auth.loginWithToken ? c.auth.loginWithToken(fournisseur, jeton) : Promise.reject(unavailable('loginWithToken')), button ?? undefined);
  }

  /** Shows a view; focus follows when it was inside the panel (to the field `focus` if given). */
  show(view: View, focus?: string): void {
    const hadFocus = !!this.root.activeElement;
    this.view = view;
    this.render();
    if (hadFocus) this.focusFirst(focus);
  }

  private focusFirst(id?: string): void {
    const wanted = id ? this.root.getElementById(id) : null;
    (wanted ?? this.root.querySelector<HTMLElement>('input') ?? this.root.querySelector<HTMLElement>('.player, h2'))?.focus();
  }

  private render(): void {
    this.error = h('p', { class: 'error', part: 'error', role: 'alert' });
    const joueur = this.client?.auth.player ?? null;
    if (!joueur && (this.view === 'player' || this.view === 'link')) this.view = 'login';
    let body: Node[];
    this.shown = this.view === 'player' || this.view === 'link' ? shownKey(joueur) : undefined;
    if (this.view === 'player' && joueur) body = this.playerView(joueur);
    else if (this.view === 'link' && joueur) body = this.linkView();
    else if (this.view === 'register') body = this.registerView();
    else if (this.view === 'forgot') body = this.forgotView();
    else if (this.view === 'reset') body = this.resetView();
    else body = this.loginView();
    this.root.replaceChildren(this.card(...body));
  }

  /**
   * The live region of a view: empty when inserted, then filled, so that screen readers
   * announce it (a region inserted with its text is often not read). Shows the pending
   * notice, if any, once.
   */
  private announcer(): HTMLParagraphElement {
    const notice = this.notice;
    this.notice = undefined;
    const p = h('p', { id: 'annonce', class: `notice ${notice?.kind ?? 'status'}`, part: 'status', role: 'status', 'aria-live': 'polite' });
    if (notice) {
      setTimeout(() => {
        p.dataset.t = notice.key;
        if (notice.vars) p.dataset.vars = JSON.stringify(notice.vars);
        p.textContent = this.t(notice.key, notice.vars);
      }, 50);
    }
    return p;
  }

  private field(id: string, key: string, attrs: Record<string, string | boolean>): HTMLDivElement {
    const { required = true, describedby, ...rest } = attrs;
    return h('div', { class: 'field', part: 'field' },
      this.tx('label', key, { for: id, part: 'label' }),
      h('input', { id, name: id, part: 'input', required, 'aria-describedby': [`${id}-erreur`, describedby].filter(Boolean).join(' '), ...rest }),
      h('p', { class: 'field-error', id: `${id}-erreur`, part: 'field-error' }));
  }

  private heading(key: string): HTMLHeadingElement {
    return this.tx('h2', key, { id: 'titre', part: 'title', tabindex: '-1' });
  }

  private linkButton(key: string, onClick: () => void): HTMLButtonElement {
    const b = this.tx('button', key, { type: 'button', class: 'link', part: 'link' });
    b.addEventListener('click', onClick);
    return b;
  }

  private makeForm(submitKey: string, fields: Node[], onSubmit: (value: (name: string) => string, form: HTMLFormElement) => void): HTMLFormElement {
    const form = h('form', { part: 'form', novalidate: true, 'aria-labelledby': 'titre' },
      ...fields,
      this.error,
      this.tx('button', submitKey, { type: 'submit', class: 'primary', part: 'button primary-button' }));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      onSubmit((n) => (form.elements.namedItem(n) as HTMLInputElement).value, form);
    });
    return form;
  }

  private loginView(): Node[] {
    const status = this.announcer();
    const form = this.makeForm('connexion_bouton', [
      this.field('identifiant', 'connexion_identifiant', { type: 'text', autocomplete: 'username', autocapitalize: 'none', spellcheck: 'false', value: this.prefill }),
      this.field('password', 'connexion_mot_de_passe', { type: 'password', autocomplete: 'current-password' }),
    ], (v, f) => void this.run(f, (c) => c.auth.login({ identifiant: v('identifiant').trim(), password: v('password') })));
    this.prefill = '';
    const forgot = this.linkButton('connexion_oubli', () => {
      // An e-mail already typed in the first field is carried over.
      const typed = (form.elements.namedItem('identifiant') as HTMLInputElement).value.trim();
      if (typed.includes('@')) this.resetEmail = typed;
      this.show('forgot');
    });
    const guest = this.tx('button', 'connexion_invite', { type: 'button', class: 'secondary', part: 'button secondary-button guest-button' });
    guest.addEventListener('click', () => void this.run(null, (c) => c.auth.guest ? c.auth.guest() : Promise.reject(unavailable('guest')), guest));
    const toRegister = this.linkButton('connexion_vers_inscription', () => this.show('register'));
    return [this.heading('connexion_titre'), status, form, forgot,
      this.tx('p', 'ou', { class: 'separator', part: 'separator' }), ...this.googleButton((t) => void this.run(null, (c) => c.auth.loginWithGoogle(t))),
      ...this.providerButtons(), guest, toRegister];
  }

  private registerView(): Node[] {
    const form = this.makeForm('inscription_bouton', [
      this.field('pseudo', 'inscription_pseudo', { type: 'text', autocomplete: 'username', autocapitalize: 'none', spellcheck: 'false', maxlength: '32' }),
      this.field('email', 'inscription_email', { type: 'email', autocomplete: 'email' }),
      this.field('password', 'inscription_mot_de_passe', { type: 'password', autocomplete: 'new-password' }),
    ], (v, f) => void this.run(f, (c) => c.auth.register({ pseudo: v('pseudo').trim(), email: v('email').trim(), password: v('password') })));
    const toLogin = this.linkButton('inscription_vers_connexion', () => this.show('login'));
    return [this.heading('inscription_titre'), form, ...this.otherWays((t) => void this.run(null, (c) => c.auth.loginWithGoogle(t))), toLogin];
  }

  /** Step 1 of a reset: the e-mail; the answer is the same whether the account exists or not. */
  private forgotView(): Node[] {
    const form = this.makeForm('oubli_bouton', [
      this.tx('p', 'oubli_explication', { id: 'explication', class: 'muted', part: 'hint' }),
      this.field('email', 'inscription_email', { type: 'email', autocomplete: 'email', value: this.resetEmail, describedby: 'explication' }),
    ], (v, f) => {
      const email = v('email').trim();
      void this.act(f, async (c) => {
        if (!c.auth.requestReset) throw unavailable('requestReset');
        await c.auth.requestReset(email);
      }, (hadFocus) => {
        this.resetEmail = email;
        this.notice = { key: 'oubli_envoye', vars: { email }, kind: 'status' };
        this.view = 'reset';
        this.render();
        if (hadFocus) this.focusFirst('code');
      });
    });
    return [this.heading('oubli_titre'), form, this.linkButton('retour_connexion', () => this.show('login'))];
  }

  /** Step 2 of a reset: the e-mailed code and the new password; then back to sign in. */
  private resetView(): Node[] {
    const status = this.announcer();
    const form = this.makeForm('reinitialisation_bouton', [
      this.field('code', 'reinitialisation_code', {
        type: 'text', inputmode: 'numeric', autocomplete: 'one-time-code', autocapitalize: 'none', spellcheck: 'false', maxlength: '8', describedby: 'annonce',
      }),
      this.field('password', 'reinitialisation_mot_de_passe', { type: 'password', autocomplete: 'new-password' }),
    ], (v, f) => {
      const email = this.resetEmail;
      const code = v('code').replace(/\s+/g, '');
      const password = v('password');
      void this.act(f, async (c) => {
        if (!c.auth.reset) throw unavailable('reset');
        await c.auth.reset({ email, code, password });
      }, (hadFocus) => {
        this.notice = { key: 'reinitialisation_reussie', kind: 'success' };
        this.prefill = email;
        this.view = 'login';
        this.render();
        if (hadFocus) this.focusFirst('password');
      });
    });
    return [this.heading('reinitialisation_titre'), status, form,
      this.linkButton('reinitialisation_renvoyer', () => this.show('forgot')),
      this.linkButton('retour_connexion', () => this.show('login'))];
  }

  /** A guest links an account: e-mail and password (pseudo optional), or Google. */
  private linkView(): Node[] {
    const form = this.makeForm('lier_bouton', [
      this.field('pseudo', 'lier_pseudo', { type: 'text', autocomplete: 'username', autocapitalize: 'none', spellcheck: 'false', maxlength: '32', required: false }),
      this.field('email', 'inscription_email', { type: 'email', autocomplete: 'email' }),
      this.field('password', 'inscription_mot_de_passe', { type: 'password', autocomplete: 'new-password' }),
    ], (v, f) => {
      const pseudo = v('pseudo').trim();
      void this.linkWith(f, { ...(pseudo ? { pseudo } : {}), email: v('email').trim(), password: v('password') });
    });
    const later = this.linkButton('lier_annuler', () => this.show('player'));
    return [this.heading('lier_titre'), form, ...this.otherWays((idToken) => void this.linkWith(null, { idToken }), true), later];
  }

  /**
   * Links the signed-in guest with a provider's identity token (what the game got after a
   * manette:provider event with `lier: true`): errors shown in the panel, manette:linked on success.
   */
  linkWithToken(fournisseur: string, jeton: string): Promise<void> {
    return this.linkWith(null, { fournisseur, jeton });
  }

  private linkWith(form: HTMLFormElement | null, p: { pseudo?: string; email: string; password: string } | { idToken: string } | { fournisseur: string; jeton: string }): Promise<void> {
    let joueur: Joueur | undefined;
    return this.act(form, async (c) => {
      if (!c.auth.link) throw unavailable('link');
      joueur = await c.auth.link(p);
    }, (hadFocus) => {
      this.notice = { key: 'lier_reussi', kind: 'success' };
      this.view = 'player';
      this.render();
      if (hadFocus) this.focusFirst();
      this.emit('manette:linked', { joueur });
    });
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
    const status = this.announcer();
    if (!joueur.invite) {
      const who = this.tx('span', 'connecte_en_tant_que', {}, { pseudo: joueur.pseudo });
      return [h('p', { class: 'player', part: 'player', tabindex: '-1' }, avatar, who), status, this.error, out];
    }
    const who = this.tx('span', 'invite_connecte', {}, { pseudo: joueur.pseudo });
    const toLink = this.tx('button', 'lier_titre', { type: 'button', class: 'primary', part: 'button primary-button link-button' });
    toLink.addEventListener('click', () => this.show('link'));
    return [
      h('p', { class: 'player', part: 'player', tabindex: '-1' }, avatar, who),
      this.tx('p', 'invite_explication', { class: 'muted', part: 'hint' }),
      status, this.error, toLink, out,
    ];
  }

  /**
   * One button per provider of the game file's `connexions`: "Continuer avec Apple"
   * (`connexion_fournisseur`, the provider's name from the text `fournisseur_<name>` when the
   * game sets one). A click dispatches manette:provider {fournisseur}, with `lier: true` on
   * the guest's link view.
   */
  private providerButtons(link = false): Node[] {
    return (this.panelData?.connexions ?? []).map((fournisseur) => {
      const label = this.t(`fournisseur_${fournisseur}`);
      const nom = label !== `fournisseur_${fournisseur}` ? label : providerName(fournisseur);
      const b = this.tx('button', 'connexion_fournisseur', {
        type: 'button', class: 'secondary provider', part: 'button secondary-button provider-button', 'data-fournisseur': fournisseur,
      }, { fournisseur: nom });
      b.addEventListener('click', () => {
        this.clearErrors();
        // `lier`: the guest links that identity (linkWithToken) instead of signing in.
        this.emit('manette:provider', link ? { fournisseur, lier: true } : { fournisseur });
      });
      return b;
    });
  }

  /** The separator and Google's button, when the game has a Google client id. */
  /** The separator, then Google's button and the providers' (nothing when the game has none). */
  private otherWays(onGoogleToken: (idToken: string) => void, link = false): Node[] {
    const others = [...this.googleButton(onGoogleToken), ...this.providerButtons(link)];
    return others.length ? [this.tx('p', 'ou', { class: 'separator', part: 'separator' }), ...others] : [];
  }

  /** Google's button alone (nothing without a Google client id); its ID token goes to `onToken`. */
  private googleButton(onToken: (idToken: string) => void): Node[] {
    const clientId = this.panelData?.google_client_id;
    if (!clientId) return [];
    const box = h('div', { class: 'google', part: 'google', role: 'group', 'data-t-label': 'connexion_google', 'aria-label': this.t('connexion_google') });
    this.googleBox = box;
    // Rendered once the box is in the page, so Google's button gets its width.
    queueMicrotask(() => {
      renderGoogleButton(box, clientId, this.language(), (idToken) => {
        if (this.googleBox === box) onToken(idToken);
      }).catch(() => { box.hidden = true; });
    });
    return [box];
  }

  private setBusy(button: HTMLElement | null, busy: boolean): void {
    this.busy = busy;
    // aria-disabled, not disabled: a disabled button would drop the keyboard focus.
    if (button) button.setAttribute('aria-disabled', String(busy));
  }

  /**
   * Runs a call of a form (or a button): one at a time, errors shown and announced, then
   * `done(hadFocus)` on success (hadFocus: the focus was inside the panel before).
   */
  private async act(form: HTMLFormElement | null, call: (c: PanelClient) => Promise<void>, done: (hadFocus: boolean) => void, button?: HTMLElement): Promise<void> {
    const client = this.client;
    if (this.busy || !client) return;
    const submit = button ?? form?.querySelector<HTMLElement>('button[type=submit]') ?? null;
    const hadFocus = !!this.root.activeElement;
    this.clearErrors();
    this.setBusy(submit, true);
    try {
      await call(client);
    } catch (err) {
      this.setBusy(submit, false);
      this.showError(err);
      return;
    }
    this.setBusy(submit, false);
    done(hadFocus);
  }

  /** Runs a sign-in call: errors shown and announced, manette:signed-in on success. */
  private run(form: HTMLFormElement | null, call: (c: PanelClient) => Promise<Joueur>, button?: HTMLElement): Promise<void> {
    let joueur!: Joueur;
    return this.act(form, async (c) => { joueur = await call(c); }, (hadFocus) => {
      if (this.view !== 'player' || this.shown !== shownKey(joueur)) {
        this.view = 'player';
        this.render();
      }
      if (hadFocus) this.focusFirst();
      this.emit('manette:signed-in', { joueur });
    }, button);
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
      if (p) p.textContent = labelled(d.message, d.champ, this.root.querySelector(`label[for="${d.champ}"]`)?.textContent);
      first ??= input;
    }
    const code = (err as PanelError).code;
    const byCode: Record<string, string> = {
      invalid_credentials: 'password', too_many_attempts: 'password', pseudo_taken: 'pseudo', email_taken: 'email', code_invalide: 'code',
    };
    if (!first && code && byCode[code]) first = this.root.getElementById(byCode[code]) as HTMLInputElement | null;
    if (first) {
      first.setAttribute('aria-invalid', 'true');
      if (this.root.activeElement) first.focus();
    }
  }
}

/**
 * A field's message as the player reads it under the field: the wire name it starts with
 * (`identifiant must not be empty`) becomes the field's label (`Pseudo ou e-mail must not
 * be empty`).
 */
export function labelled(message: string, champ: string, label: string | null | undefined): string {
  const name = label?.trim();
  if (!name || !message.startsWith(`${champ} `)) return message;
  return `${name}${message.slice(champ.length)}`;
}

/** Providers' usual names; any other is shown with a capital (`itch` → `Itch`). */
const PROVIDER_NAMES: Record<string, string> = {
  apple: 'Apple', steam: 'Steam', discord: 'Discord', supabase: 'Supabase', firebase: 'Firebase', auth0: 'Auth0', epic: 'Epic Games',
};
function providerName(fournisseur: string): string {
  return PROVIDER_NAMES[fournisseur] ?? fournisseur.charAt(0).toUpperCase() + fournisseur.slice(1);
}

/** What the player views show of a player: a change (another player, a guest linked, a new pseudo) redraws them. */
function shownKey(joueur: Joueur | null): string | undefined {
  return joueur ? `${joueur.id}|${joueur.invite ? 1 : 0}|${joueur.pseudo}` : undefined;
}
