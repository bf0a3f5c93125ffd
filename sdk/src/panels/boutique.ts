// <manette-boutique>: the game's shop (GET /shop/articles) with, for a signed-in player, the
// wallet (GET /economie/portefeuille), a Buy button per buyable article (POST /shop/acheter,
// quantity 1) and the inventory (GET /economie/inventaire). The server decides everything:
// a refusal (solde_insuffisant, limite_atteinte...) shows the server's message. Dispatches
// manette:achat {achat, portefeuille, inventaire} after each purchase made through it.
import { ManettePanel, h, type InventoryLine, type Joueur, type PanelData, type PurchaseResult, type ShopArticle, type WalletLine } from './base.js';

export class ManetteBoutique extends ManettePanel {
  private articles: ShopArticle[] | undefined;
  private wallet: WalletLine[] = [];
  private inventory: InventoryLine[] = [];
  private playerId: string | undefined;
  private signedIn = false;
  private unsubscribe: (() => void) | undefined;
  /** The code of the article being bought (one purchase at a time). */
  private buying: string | undefined;
  /** Bumped by each load, so an older answer never overwrites a newer one. */
  private generation = 0;
  private statusLine!: HTMLParagraphElement;
  private error!: HTMLParagraphElement;
  private walletList!: HTMLUListElement;
  private articleList!: HTMLUListElement;
  private inventoryBox!: HTMLDivElement;

  protected start(): void {
    const client = this.client;
    this.render();
    if (!client) return;
    this.unsubscribe = client.auth.onChange((joueur) => this.onPlayer(joueur));
    this.onPlayer(client.auth.player, true);
  }

  protected stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.generation++;
    this.playerId = undefined;
  }

  protected override panelLoaded(_data: PanelData): void {
    this.fillArticles();
  }

  protected override applyTexts(): void {
    super.applyTexts();
    // Prices and button names are built from texts with values: drawn again.
    if (this.articleList) { this.fillArticles(); this.fillWallet(); this.fillInventory(); }
  }

  private onPlayer(joueur: Joueur | null, first = false): void {
    if (!first && (joueur?.id ?? undefined) === this.playerId && this.signedIn === !!joueur) return;
    this.playerId = joueur?.id;
    this.signedIn = !!joueur;
    this.wallet = [];
    this.inventory = [];
    this.render();
    void this.refresh();
  }

  /** Reads the articles, and the wallet and inventory of a signed-in player, again (e.g. after a match's reward). */
  async refresh(): Promise<void> {
    const client = this.client;
    if (!client?.shop || !client.economy) return;
    const { shop, economy } = client;
    const gen = ++this.generation;
    const signedIn = !!client.auth.player;
    try {
      const [articles, wallet, inventory] = await Promise.all([
        shop.articles(),
        signedIn ? economy.wallet() : Promise.resolve([] as WalletLine[]),
        signedIn ? economy.inventory() : Promise.resolve([] as InventoryLine[]),
      ]);
      if (gen !== this.generation) return;
      this.articles = articles;
      this.wallet = wallet;
      this.inventory = inventory;
      this.fillWallet();
      this.fillArticles();
      this.fillInventory();
    } catch (err) {
      if (gen !== this.generation) return;
      this.articles ??= [];
      this.fillArticles();
      this.error.textContent = this.messageOf(err);
    }
  }

  /** Buys one of the article `code` (what its Buy button does). */
  async buy(code: string): Promise<PurchaseResult | undefined> {
    const client = this.client;
    if (!client?.economy || this.buying || !client.auth.player) return undefined;
    const article = this.articles?.find((a) => a.code === code);
    this.buying = code;
    this.error.textContent = '';
    this.statusLine.textContent = '';
    this.statusLine.classList.remove('success');
    this.markBusy(true);
    try {
      const r = await client.economy.buy(code, { quantite: 1 });
      this.wallet = r.portefeuille;
      this.inventory = r.inventaire;
      this.fillWallet();
      this.fillInventory();
      this.statusLine.textContent = this.t('boutique_achat_reussi', { article: article?.nom ?? code });
      this.statusLine.classList.add('success');
      this.emit('manette:achat', r);
      return r;
    } catch (err) {
      this.error.textContent = this.messageOf(err);
      return undefined;
    } finally {
      this.buying = undefined;
      this.markBusy(false);
    }
  }

  private markBusy(on: boolean): void {
    for (const b of this.root.querySelectorAll<HTMLButtonElement>('button.buy')) {
      if (on) b.setAttribute('aria-disabled', 'true'); else b.removeAttribute('aria-disabled');
    }
  }

  private render(): void {
    const hadFocus = !!this.root.activeElement;
    this.error = h('p', { class: 'error', part: 'error', role: 'alert' });
    // One polite live region: the result of a purchase, or why the player must sign in.
    this.statusLine = h('p', { class: 'status', part: 'status', role: 'status', 'aria-live': 'polite' });
    this.walletList = h('ul', { class: 'wallet', part: 'wallet', 'aria-labelledby': 'portefeuille' });
    this.articleList = h('ul', { class: 'articles', part: 'articles', 'aria-labelledby': 'titre' });
    this.inventoryBox = h('div', { class: 'inventory', part: 'inventory' });
    const title = this.tx('h2', 'boutique_titre', { id: 'titre', part: 'title', tabindex: '-1' });
    const body: Node[] = [title];
    if (this.signedIn) {
      body.push(h('section', { class: 'wallet-box', 'aria-labelledby': 'portefeuille' },
        this.tx('h3', 'boutique_portefeuille', { id: 'portefeuille', part: 'subtitle' }), this.walletList));
    } else {
      this.statusLine.append(this.tx('span', 'boutique_connexion_requise'));
    }
    body.push(this.statusLine, this.error, this.articleList);
    if (this.signedIn) {
      body.push(h('section', { class: 'inventory-box', 'aria-labelledby': 'inventaire' },
        this.tx('h3', 'boutique_inventaire', { id: 'inventaire', part: 'subtitle' }), this.inventoryBox));
    }
    this.root.replaceChildren(this.card(...body));
    this.fillWallet();
    this.fillArticles();
    this.fillInventory();
    if (hadFocus) title.focus();
  }

  private number(n: number): string {
    return new Intl.NumberFormat(this.language()).format(n);
  }

  /** A currency's name (from the wallet, else from an article priced in it: signed out, there
   *  is no wallet), else its code. */
  private currencyName(code: string): string {
    return this.wallet.find((w) => w.code === code)?.nom
      ?? this.articles?.find((a) => a.devise === code && a.devise_nom)?.devise_nom ?? code;
  }

  /** An object's name: from the inventory, or from an article that sells exactly that object; else its code. */
  private objectName(code: string): string {
    const held = this.inventory.find((i) => i.code === code)?.nom;
    if (held) return held;
    const seller = this.articles?.find((a) => a.code === code && !a.contenu?.monnaies && Object.keys(a.contenu?.objets ?? {}).length === 1);
    return seller?.nom ?? code;
  }

  private fillWallet(): void {
    if (!this.walletList) return;
    this.walletList.replaceChildren(...this.wallet.map((w) => h('li', { 'data-monnaie': w.code, part: 'wallet-line' },
      h('span', { class: 'name' }, w.nom), h('strong', { class: 'amount' }, this.number(w.solde)))));
    this.walletList.hidden = this.wallet.length === 0;
  }

  private fillInventory(): void {
    if (!this.inventoryBox) return;
    if (this.inventory.length === 0) {
      this.inventoryBox.replaceChildren(this.tx('p', 'boutique_inventaire_vide', { class: 'muted' }));
      return;
    }
    this.inventoryBox.replaceChildren(h('ul', { class: 'items', part: 'items', 'aria-labelledby': 'inventaire' },
      ...this.inventory.map((i) => h('li', { 'data-objet': i.code, part: 'item' },
        h('span', { class: 'name' }, i.nom), h('strong', { class: 'amount' }, `×\u00a0${this.number(i.quantite)}`)))));
  }

  private fillArticles(): void {
    if (!this.articleList) return;
    const list = this.articles;
    if (!list) {
      this.articleList.replaceChildren(h('li', { class: 'muted' }, this.t('boutique_chargement')));
      return;
    }
    if (list.length === 0) {
      this.articleList.replaceChildren(h('li', { class: 'muted' }, this.t('boutique_vide')));
      return;
    }
    // Focus on a Buy button survives a redraw (texts changed, a refresh).
    const focused = (this.root.activeElement as HTMLElement | null)?.dataset?.article;
    this.articleList.replaceChildren(...list.map((a) => this.articleItem(a)));
    if (focused) this.articleList.querySelector<HTMLElement>(`button[data-article="${CSS.escape(focused)}"]`)?.focus();
  }

  private articleItem(a: ShopArticle): HTMLLIElement {
    const price = `${this.number(a.prix)} ${this.currencyName(a.devise)}`;
    const grants: string[] = [];
    for (const [code, n] of Object.entries(a.contenu?.objets ?? {})) grants.push(`${this.number(n)}\u00a0×\u00a0${this.objectName(code)}`);
    for (const [code, n] of Object.entries(a.contenu?.monnaies ?? {})) grants.push(`${this.number(n)}\u00a0${this.currencyName(code)}`);
    const info = h('div', { class: 'info' },
      h('strong', { class: 'article-name', part: 'article-name' }, a.nom),
      a.description ? h('p', { class: 'description', part: 'description' }, a.description) : null,
      grants.length ? h('p', { class: 'grants', part: 'grants' }, this.t('boutique_contenu', { contenu: grants.join(', ') })) : null);
    const buyable = a.achetable !== false && !!a.contenu;
    let action: HTMLElement;
    if (!buyable) action = h('span', { class: 'muted unavailable' }, this.t('boutique_indisponible'));
    else if (!this.signedIn) action = h('span', { class: 'muted' });
    else {
      const button = h('button', {
        type: 'button', class: 'primary buy', part: 'button primary-button buy-button', 'data-article': a.code,
        'aria-label': this.t('boutique_acheter_article', { article: a.nom, prix: price }),
      }, this.t('boutique_acheter'));
      if (this.buying) button.setAttribute('aria-disabled', 'true');
      button.addEventListener('click', () => { void this.buy(a.code); });
      action = button;
    }
    return h('li', { class: 'article', part: 'article', 'data-code': a.code },
      a.image_url ? h('img', { class: 'article-image', part: 'article-image', src: a.image_url, alt: '' }) : null,
      info,
      h('div', { class: 'buy-box' }, h('span', { class: 'price', part: 'price' }, price), action));
  }
}
