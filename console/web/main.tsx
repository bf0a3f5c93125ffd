// The console's shell: the session, the game switcher, the menu of pages, the language.
// Each page is one file of pages/; the route (#/<jeu>/<page>/...) says which one shows.
import './styles.css';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, setCsrf } from './api.js';
import { initLang, setLang, t, useLang } from './i18n.js';
import { href, navigate, useRoute } from './router.js';
import { ErrorBox, Loading } from './ui.js';
import { PAGES } from './pages/index.js';
import type { GameSummary, SessionInfo } from './types.js';

function App() {
  const lang = useLang();
  const route = useRoute();
  const [boot, setBoot] = useState<{ session: SessionInfo; games: GameSummary[] } | { error: unknown }>();
  useEffect(() => {
    (async () => {
      const session = await api.get<SessionInfo>('/session');
      setCsrf(session.csrf);
      initLang(session.lang);
      const games = await api.get<GameSummary[]>('/games');
      setBoot({ session, games });
    })().catch((error: unknown) => setBoot({ error }));
  }, []);

  const games = boot && 'games' in boot ? boot.games : [];
  const game = games.find((g) => g.jeu === route.jeu);
  useEffect(() => {
    // No game in the address (or an unknown one): the first game.
    if (games.length > 0 && !game) navigate(href(games[0]!.jeu, route.page || 'overview'));
  }, [games, game]);
  const page = PAGES.find((p) => p.id === route.page) ?? PAGES[0]!;
  useEffect(() => {
    document.title = `${t(page.label)} · ${game?.nom ?? 'Manette'} · ${t({ en: 'Manette console', fr: 'Console Manette' })}`;
  }, [page, game, lang]);

  if (!boot) return <main class="boot"><Loading /></main>;
  if ('error' in boot) return <main class="boot"><ErrorBox error={boot.error} /></main>;
  const { session } = boot;
  return (
    <div class="shell">
      <header class="top">
        <a class="brand" href={game ? href(game.jeu, 'overview') : '#'}>
          <span class="brand-mark" aria-hidden="true">◆</span> {t({ en: 'Manette console', fr: 'Console Manette' })}
        </a>
        <label class="game-switch">
          <span>{t({ en: 'Game', fr: 'Jeu' })}</span>
          <select value={game?.jeu ?? ''} onChange={(e) => navigate(href((e.target as HTMLSelectElement).value, page.id))}>
            {games.map((g) => <option value={g.jeu}>{g.nom} ({g.jeu})</option>)}
          </select>
        </label>
        <div class="top-right">
          <span class="muted small operator" title={t({ en: 'Written in the audit trail as', fr: 'Inscrit au journal d’audit comme' })}>{session.operator}</span>
          <div class="lang" role="group" aria-label={t({ en: 'Language', fr: 'Langue' })}>
            <button type="button" aria-pressed={lang === 'en'} onClick={() => setLang('en')}>EN</button>
            <button type="button" aria-pressed={lang === 'fr'} onClick={() => setLang('fr')}>FR</button>
          </div>
        </div>
      </header>
      <nav class="menu" aria-label={t({ en: 'Pages', fr: 'Pages' })}>
        {PAGES.map((p) => (
          <a href={game ? href(game.jeu, p.id) : '#'} aria-current={p.id === page.id ? 'page' : undefined}>{t(p.label)}</a>
        ))}
      </nav>
      <main class="content">
        {games.length === 0
          ? <p>{t({ en: 'No game in this database yet: `npx manette apply game.json` creates one.', fr: 'Aucun jeu dans cette base : `npx manette apply game.json` en crée un.' })}</p>
          : game
            ? <>
              <h1>{t(page.label)} <span class="muted h1-game">· {game.nom}</span></h1>
              <page.component key={`${game.jeu}/${page.id}`} jeu={game.jeu} game={game} rest={route.rest} query={route.query} session={session} />
            </>
            : <Loading />}
      </main>
    </div>
  );
}

render(<App />, document.getElementById('app')!);
