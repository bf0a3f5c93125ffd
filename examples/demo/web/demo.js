// Morpion (tic-tac-toe) for two players, built only on the Manette browser SDK
// (/sdk/manette.js, global `Manette`). The server is the referee: every move goes through
// `partie.act('jouer', {case})`, and the board is drawn only from the `etat` the server
// broadcasts. Copy this folder, point it at your game, and change the drawing.
'use strict';

// -- 1. The game's API key --------------------------------------------------------------
// `npm start` prints http://localhost:3000/demo/?key=sk_live_...; the key is kept in
// localStorage so the address bar can drop it. A page of your own would simply write
// its key here: it is a public key (what protects the game is the server's rules).
const KEY_STORAGE = 'manette-demo:api-key';
const params = new URLSearchParams(location.search);
if (params.has('key')) {
  localStorage.setItem(KEY_STORAGE, params.get('key'));
  params.delete('key');
  history.replaceState(null, '', location.pathname + (params.toString() ? `?${params}` : '') + location.hash);
}
const apiKey = localStorage.getItem(KEY_STORAGE);

// The API is the server that served this page; `?api=` points the page at another one.
const baseUrl = params.get('api') ?? `${location.origin}/api/public/v1`;
// Texts of the panels and of the server's errors: French unless `?lang=en` or an English browser.
const lang = (params.get('lang') ?? navigator.language).toLowerCase().startsWith('en') ? 'en' : 'fr';

const $ = (id) => document.getElementById(id);

// The page's own texts (the panels and the server's messages have theirs).
const TEXTS = {
  fr: {
    lobby: 'Connecte-toi, puis clique sur « Jouer » : dès qu’un adversaire est trouvé, la partie s’affiche ici.',
    sous_titre: 'Une démo construite seulement sur le SDK navigateur de Manette.',
    partie: 'Partie', abandonner: 'Abandonner', nouvelle: 'Nouvelle partie', victoires: 'Victoires',
    boutique: 'Boutique', personne: 'Personne n’a encore gagné.', plateau: 'Plateau de morpion',
    case: 'Case', vide: 'vide', ton_tour: 'À toi de jouer !', tour_de: 'Tour de {}…',
    nul: 'Match nul.', gagne: 'Tu as gagné !', gagnant: '{} a gagné.',
  },
  en: {
    lobby: 'Sign in, then press “Play”: as soon as an opponent is found, the match shows up here.',
    sous_titre: 'A demo built only on Manette’s browser SDK.',
    partie: 'Match', abandonner: 'Forfeit', nouvelle: 'New match', victoires: 'Wins',
    boutique: 'Shop', personne: 'Nobody has won yet.', plateau: 'Tic-tac-toe board',
    case: 'Square', vide: 'empty', ton_tour: 'Your turn!', tour_de: '{}’s turn…',
    nul: 'Draw.', gagne: 'You won!', gagnant: '{} won.',
  },
};


if (!apiKey) {
  // No key yet: ask for it once.
  const form = $('key-form');
  form.hidden = false;
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    localStorage.setItem(KEY_STORAGE, $('key-input').value.trim());
    location.reload();
  });
} else {
  start();
}

function start() {
  // -- 2. One client for the page ---------------------------------------------------------
  const client = Manette.createClient({ baseUrl, apiKey, lang });
  document.documentElement.lang = lang;

  // The panels would find the last client created by themselves; saying it is clearer.
  const login = document.querySelector('manette-login');
  const matchmaking = document.querySelector('manette-matchmaking');
  login.client = client;
  matchmaking.client = client;
  $('app').hidden = false;

  // -- 3. The panels tell the page what happened --------------------------------------------
  // manette:matched carries the matchmaking status: {partie_id, code_salon, participants, ...}.
  // It also fires when the player reloads the page during a match, so the match resumes.
  document.addEventListener('manette:matched', (e) => { void openMatch(e.detail); });
  client.auth.onChange((joueur) => {
    if (!joueur) closeMatch();
    void showLeaderboard();
  });

  // -- 4. The match --------------------------------------------------------------------------
  const board = $('board');
  const cells = [];
  for (let i = 0; i < 9; i++) {
    const cell = document.createElement('button');
    cell.type = 'button';
    cell.className = 'cell';
    cell.dataset.case = String(i);
    // Every click goes to the server, even on a taken square: the server refuses it
    // (action_refusee, reason case_occupee) and the page shows its message.
    cell.addEventListener('click', () => { void play(i); });
    board.append(cell);
    cells.push(cell);
  }

  let current = null;   // {id, partie: the last state drawn, stop: unsubscribe}

  async function openMatch(status) {
    if (current?.id === status.partie_id) return;
    closeMatch();
    const partie = client.match(status.partie_id);
    current = { id: status.partie_id, handle: partie, partie: null, stop: null };
    $('room-code').textContent = status.code_salon;
    $('match').hidden = false;
    $('lobby').hidden = true;
    $('again').hidden = true;
    $('forfeit').hidden = false;
    $('move-error').textContent = '';
    // The room: `etat` is the official state after each accepted move (both players' moves).
    const stop = await partie.subscribe({ onEtat: draw });
    if (current?.id !== status.partie_id) { stop(); return; }
    current.stop = stop;
    // The state now, in case a move was played before the room was joined.
    draw(await partie.state());
  }

  function closeMatch() {
    current?.stop?.();
    current = null;
    $('match').hidden = true;
    $('lobby').hidden = false;
  }

  async function play(i) {
    if (!current?.partie) return;
    $('move-error').textContent = '';
    try {
      // numero_tour: a click on a board that is already out of date is refused (tour_perime).
      await current.handle.act('jouer', { case: i }, { numero_tour: current.partie.numero_tour });
      // Nothing to draw here: the `etat` event does it, for both players alike.
    } catch (err) {
      // A ManetteError: `message` is already in the player's language, `reason` is for code.
      $('move-error').textContent = err.message;
    }
  }

  $('forfeit').addEventListener('click', async () => {
    if (!current) return;
    try { await current.handle.act('abandonner', {}); } catch (err) { $('move-error').textContent = err.message; }
  });
  $('again').addEventListener('click', () => {
    closeMatch();
    matchmaking.reset();
    matchmaking.shadowRoot.querySelector('button')?.focus();
  });

  // Draws a `partie` (from the `etat` event or GET /match/state).
  function draw(partie) {
    // Events of an older match, or older than what is drawn, are ignored.
    if (!current || partie.id !== current.id) return;
    if (current.partie && partie.numero_tour < current.partie.numero_tour) return;
    // A move was played since the last refusal: its message is out of date.
    if (current.partie && partie.numero_tour !== current.partie.numero_tour) $('move-error').textContent = '';
    current.partie = partie;
    const me = client.auth.player?.id;
    const cases = partie.etat_plateau?.cases ?? [];
    const line = partie.etat_plateau?.ligne ?? [];
    const [x, o] = partie.participants;
    const nameOf = (id) => partie.participants.find((p) => p.joueur_id === id)?.pseudo ?? '?';
    $('players').textContent = `X ${x?.pseudo ?? '?'}  ·  O ${o?.pseudo ?? '?'}`;
    cells.forEach((cell, i) => {
      const mark = cases[i] ?? '';
      cell.textContent = mark;
      cell.dataset.mark = mark;
      cell.classList.toggle('winning', line.includes(i));
      cell.setAttribute('aria-label', `${t('case')} ${i + 1} : ${mark || t('vide')}`);
    });

    const over = partie.statut === 'terminee';
    let text;
    if (!over) text = partie.tour_joueur === me ? t('ton_tour') : t('tour_de', nameOf(partie.tour_joueur));
    else if (!partie.gagnant_id) text = t('nul');
    else text = partie.gagnant_id === me ? t('gagne') : t('gagnant', nameOf(partie.gagnant_id));
    $('turn').textContent = text;
    $('turn').dataset.state = over ? 'over' : partie.tour_joueur === me ? 'mine' : 'theirs';
    board.classList.toggle('mine', !over && partie.tour_joueur === me);

    if (over) {
      $('forfeit').hidden = true;
      $('again').hidden = false;
      // The server credited the win (classement_victoires): no client can write it.
      void showLeaderboard();
    }
  }

  // -- 5. Leaderboard and shop (API key only: no sign-in needed) ------------------------------
  async function showLeaderboard() {
    try {
      const scores = await client.leaderboard('victoires').scores({ limit: 10 });
      const me = client.auth.player?.id;
      $('leaderboard').replaceChildren(...scores.map((s) => {
        const li = document.createElement('li');
        li.dataset.joueur = s.joueur_id;
        if (s.joueur_id === me) li.className = 'me';
        // `rang` comes from the server: tied players share it (1, 2, 2, 4).
        li.append(Object.assign(document.createElement('span'), { className: 'rang', textContent: `${s.rang}.` }),
          Object.assign(document.createElement('span'), { className: 'pseudo', textContent: s.pseudo }),
          Object.assign(document.createElement('strong'), { textContent: String(s.valeur) }));
        return li;
      }));
      $('lb-empty').hidden = scores.length > 0;
    } catch (err) {
      $('lb-empty').hidden = false;
      $('lb-empty').textContent = err.message;
    }
  }

  async function showShop() {
    try {
      const articles = await client.shop.articles();
      $('shop').replaceChildren(...articles.map((a) => {
        const li = document.createElement('li');
        li.append(Object.assign(document.createElement('span'), { textContent: a.nom }),
          Object.assign(document.createElement('strong'), { textContent: `${a.prix} ${a.devise}` }));
        return li;
      }));
    } catch (err) {
      $('shop').replaceChildren(Object.assign(document.createElement('li'), { textContent: err.message }));
    }
  }

  void showLeaderboard();
  void showShop();
  translatePage();

  // -- 6. The page's own texts ------------------------------------------------------------------
  function t(key, arg) {
    const texts = TEXTS[lang];
    const text = texts[key] ?? key;
    return arg === undefined ? text : text.replace('{}', arg);
  }
  function translatePage() {
    for (const el of document.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
    board.setAttribute('aria-label', t('plateau'));
  }
}
