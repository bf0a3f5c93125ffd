// <manette-matchmaking mode="1v1" elo="1000">: join the queue, see the position, leave,
// and the match found (room code, players). Dispatches manette:matched with the matched
// status (also when it finds the player already in a match, e.g. after a reload).
import { ManettePanel, h, type Joueur, type MatchStatus } from './base.js';

type View = 'signed-out' | 'idle' | 'waiting' | 'matched';
/** How often the panel reads the queue position while waiting (also the queue heartbeat). */
const POLL_MS = 2000;

export class ManetteMatchmaking extends ManettePanel {
  static override get observedAttributes(): string[] { return [...super.observedAttributes, 'mode', 'elo']; }

  private view: View = 'signed-out';
  private busy = false;
  private unsubscribe: (() => void) | undefined;
  private search: AbortController | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private error!: HTMLParagraphElement;
  private statusLine!: HTMLParagraphElement;
  private matchedStatus: MatchStatus | undefined;
  private playerId: string | undefined;

  /** The game mode (`mode_jeu`) to queue for. */
  get mode(): string { return this.getAttribute('mode') ?? ''; }
  set mode(m: string) { this.setAttribute('mode', m); }
  /** The player's rating sent as `elo_actuel` (1000 when not set). */
  get elo(): number {
    const n = Number(this.getAttribute('elo') ?? '1000');
    return Number.isFinite(n) ? n : 1000;
  }
  set elo(n: number) { this.setAttribute('elo', String(n)); }
  /** 'signed-out', 'idle', 'waiting' or 'matched'. */
  get state(): View { return this.view; }
  /** The matched status once a match is found. */
  get match(): MatchStatus | undefined { return this.matchedStatus; }

  override attributeChangedCallback(name: string, old: string | null, value: string | null): void {
    if (name === 'mode') this.root.querySelector('.mode-value')?.replaceChildren(value ?? '');
    else super.attributeChangedCallback(name, old, value);
  }

  protected start(): void {
    const client = this.client;
    this.onPlayer(client?.auth.player ?? null);
    if (!client) return;
    this.unsubscribe = client.auth.onChange((joueur) => this.onPlayer(joueur));
  }

  protected stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.stopSearch();
    this.playerId = undefined;
  }

  private onPlayer(joueur: Joueur | null): void {
    if (joueur?.id === this.playerId && this.view !== 'signed-out') return;
    this.playerId = joueur?.id;
    this.stopSearch();
    this.matchedStatus = undefined;
    if (!joueur) { this.show('signed-out'); return; }
    this.show('idle');
    // Already queued or in a match (another tab, a reload): pick it up.
    this.client?.matchmaking.status().then((st) => { if (this.playerId === joueur.id && this.view === 'idle') this.handle(st); }, () => {});
  }

  /** Joins the queue of `mode` (what the Play button does). */
  async join(): Promise<void> {
    const client = this.client;
    if (this.busy || !client || this.view !== 'idle') return;
    this.busy = true;
    this.error.textContent = '';
    try {
      this.handle(await client.matchmaking.join(this.mode, this.elo));
    } catch (err) {
      this.error.textContent = this.messageOf(err);
    } finally {
      this.busy = false;
    }
  }

  /** Leaves the queue (what the Cancel button does). */
  async leave(): Promise<void> {
    const client = this.client;
    if (this.busy || !client || this.view !== 'waiting') return;
    this.busy = true;
    this.stopSearch();
    try {
      await client.matchmaking.leave();
      this.show('idle');
    } catch (err) {
      this.error.textContent = this.messageOf(err);
      this.startSearch();
    } finally {
      this.busy = false;
    }
  }

  /** Back to the Play button, e.g. when the game's match is over. */
  reset(): void {
    this.stopSearch();
    this.matchedStatus = undefined;
    this.show(this.client?.auth.player ? 'idle' : 'signed-out');
  }

  private handle(st: MatchStatus): void {
    if (st.status === 'matched') this.matched(st);
    else if (st.status === 'waiting') {
      if (this.view !== 'waiting') { this.show('waiting'); this.startSearch(); }
      this.setPosition(st.position);
    } else if (this.view === 'waiting') {
      // Dropped from the queue (inactivity, another tab left it).
      this.stopSearch();
      this.show('idle');
      this.error.textContent = this.t('matchmaking_abandonne');
    }
  }

  private matched(st: MatchStatus): void {
    if (this.view === 'matched' && this.matchedStatus?.partie_id === st.partie_id) return;
    this.stopSearch();
    this.matchedStatus = st;
    this.show('matched');
    this.emit('manette:matched', st);
  }

  /** The realtime `matched` event (waitForMatch), with a poll for the position beside it. */
  private startSearch(): void {
    const client = this.client;
    if (!client || this.search) return;
    const search = new AbortController();
    this.search = search;
    // The panel's own poll below is the heartbeat, so waitForMatch's fallback poll can be rare.
    client.matchmaking.waitForMatch({ signal: search.signal, pollMs: 10_000 }).then(
      (st) => { if (this.search === search) this.matched(st); },
      (err) => {
        if (this.search !== search) return;
        if ((err as { code?: string }).code === 'not_queued') this.handle({ status: 'idle' });
        else this.error.textContent = this.messageOf(err);
      });
    const poll = async () => {
      try {
        const st = await client.matchmaking.status();
        if (this.search === search) this.handle(st);
      } catch { /* the next poll, or waitForMatch, says more */ }
      if (this.search === search) this.timer = setTimeout(poll, POLL_MS);
    };
    this.timer = setTimeout(poll, POLL_MS);
  }

  private stopSearch(): void {
    this.search?.abort();
    this.search = undefined;
    clearTimeout(this.timer);
  }

  private setPosition(position: number | undefined): void {
    const line = this.root.querySelector<HTMLElement>('.position');
    if (!line || position === undefined) return;
    const vars = JSON.stringify({ position });
    // Only a change is written, so screen readers announce each new position once.
    if (line.dataset.vars !== vars) {
      line.dataset.vars = vars;
      line.textContent = this.t('matchmaking_position', { position });
    }
  }

  private show(view: View): void {
    const hadFocus = !!this.root.activeElement;
    this.view = view;
    this.error = h('p', { class: 'error', part: 'error', role: 'alert' });
    // One polite live region for the whole panel: search, position, match found.
    this.statusLine = h('p', { class: 'status', part: 'status', role: 'status', 'aria-live': 'polite' });
    const title = this.tx('h2', 'matchmaking_titre', { id: 'titre', part: 'title', tabindex: '-1' });
    const mode = h('p', { class: 'mode', part: 'mode' },
      this.tx('span', 'matchmaking_mode'), this.language() === 'fr' ? ' : ' : ': ', h('strong', { class: 'mode-value' }, this.mode));
    let body: Node[] = [];
    let focus: HTMLElement | undefined;
    if (view === 'signed-out') {
      this.statusLine.append(this.tx('span', 'matchmaking_connexion_requise'));
      body = [this.statusLine];
    } else if (view === 'idle') {
      const play = this.tx('button', 'matchmaking_bouton', { type: 'button', class: 'primary', part: 'button primary-button' });
      play.addEventListener('click', () => { void this.join(); });
      body = [mode, this.statusLine, this.error, play];
      focus = play;
    } else if (view === 'waiting') {
      this.statusLine.append(
        h('span', { class: 'row' }, h('span', { class: 'spinner', 'aria-hidden': 'true' }), this.tx('span', 'matchmaking_attente')),
        h('span', { class: 'position', part: 'position', style: 'display:block' }));
      const cancel = this.tx('button', 'matchmaking_annuler', { type: 'button', class: 'secondary', part: 'button secondary-button' });
      cancel.addEventListener('click', () => { void this.leave(); });
      body = [mode, this.statusLine, this.error, cancel];
      focus = cancel;
    } else {
      const st = this.matchedStatus!;
      const pseudos = (st.participants ?? []).map((p) => p.pseudo).join(', ');
      this.statusLine.append(
        this.tx('span', 'matchmaking_trouve', { class: 'success', part: 'found', style: 'display:block' }),
        this.tx('span', 'matchmaking_code_salon', { class: 'room', part: 'room', style: 'display:block' }, { code_salon: st.code_salon ?? '' }),
        ...(pseudos ? [this.tx('span', 'matchmaking_adversaires', { class: 'players', part: 'players', style: 'display:block' }, { pseudos })] : []),
      );
      body = [mode, this.statusLine, this.error];
    }
    this.root.replaceChildren(this.card(title, ...body));
    // Keyboard users stay in the panel: focus goes to the new view's button, or its title.
    if (hadFocus) (focus ?? title).focus();
  }
}

