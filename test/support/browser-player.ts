// A morpion player in Chromium with the browser SDK, as the demo plays: registers, joins the
// `1v1` queue, waits for its match, and on each of its turns plays the first free square.
// The cross-play tests match it with an engine SDK's program.
import type { Browser, Page } from 'playwright-core';

export interface BrowserPlayer {
  page: Page;
  /** Registered, queued: resolves with the match's id once matched. */
  matched: Promise<string>;
  /** The match over: the page's last state, and the history read through the SDK. */
  finished(): Promise<{ final: Record<string, any>; history: Record<string, any> }>;
  close(): Promise<void>;
}

export async function startBrowserPlayer(browser: Browser, opts: { baseUrl: string; apiKey: string; pseudo: string; password: string }): Promise<BrowserPlayer> {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await page.goto(`${new URL(opts.baseUrl).origin}/health`);
  await page.addScriptTag({ url: '/sdk/manette.js' });
  const matched = page.evaluate(async ({ baseUrl, apiKey, pseudo, password }) => {
    const w = window as any;
    const m = w.Manette.createClient({ baseUrl, apiKey, lang: 'en', storage: sessionStorage });
    w.m = m;
    const me = await m.auth.register({ pseudo, email: `${pseudo}@exemple.fr`, password });
    await m.matchmaking.join('1v1', 1000);
    const status = await m.matchmaking.waitForMatch();
    const id = status.partie_id as string;
    w.done = new Promise<void>((resolve) => {
      let playedTurn = 0;
      void m.match(id).subscribe({
        onEtat: (p: any) => {
          w.latest = p;
          if (p.statut !== 'en_cours') return resolve();
          if (p.tour_joueur !== me.id || playedTurn >= p.numero_tour) return;
          playedTurn = p.numero_tour;
          const free = (p.etat_plateau.cases as (string | null)[]).findIndex((c) => c === null);
          void m.match(id).act('jouer', { case: free }, { numero_tour: p.numero_tour }).catch(() => { playedTurn = 0; });
        },
        pollMs: 3000,
      });
    });
    return id;
  }, opts);
  return {
    page, matched,
    async finished() {
      const id = await matched;
      return page.evaluate(async (id) => {
        const w = window as any;
        await w.done;
        return { final: w.latest, history: await w.m.match(id).history() };
      }, id);
    },
    close: () => ctx.close(),
  };
}
