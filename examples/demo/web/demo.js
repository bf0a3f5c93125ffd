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
    lobby_connecte: 'Clique sur « Jouer » : dès qu’un adversaire est trouvé, la partie s’affiche ici.',
    sous_titre: 'Une démo construite seulement sur le SDK navigateur de Manette.',
    cle_label: 'Clé d’API du jeu (<code>sk_live_…</code>, affichée par <code>npm start</code>)',
    cle_bouton: 'Utiliser cette clé', cle_refusee: 'Le serveur refuse cette clé ({}). Saisis la clé du jeu :',
    joueur: 'Joueur', mode: 'Mode de jeu', action: 'Action', donnees: 'Données (JSON)', envoyer: 'Envoyer',
    json_invalide: 'Les données doivent être du JSON, par exemple {"nombre": 2}.',
    partie: 'Partie', abandonner: 'Abandonner', nouvelle: 'Nouvelle partie', victoires: 'Victoires',
    abandonner_vraiment: 'Abandonner la partie ?', abandonner_oui: 'Oui, abandonner', abandonner_non: 'Non, continuer',
    boutique: 'Boutique', personne: 'Personne n’a encore gagné.', plateau: 'Plateau de morpion',
    case: 'Case', vide: 'vide', ton_tour: 'À toi de jouer !', tour_de: 'Tour de {}…',
    nul: 'Match nul.', annulee: 'Partie annulée.', gagne: 'Tu as gagné !', gagnant: '{} a gagné.', joueurs_par: '{} contre {}',
  },
  en: {
    lobby: 'Sign in, then press “Play”: as soon as an opponent is found, the match shows up here.',
    lobby_connecte: 'Press “Play”: as soon as an opponent is found, the match shows up here.',
    sous_titre: 'A demo built only on Manette’s browser SDK.',
    cle_label: 'The game’s API key (<code>sk_live_…</code>, printed by <code>npm start</code>)',
    cle_bouton: 'Use this key', cle_refusee: 'The server refuses this key ({}). Enter the game’s key:',
    joueur: 'Player', mode: 'Game mode', action: 'Action', donnees: 'Data (JSON)', envoyer: 'Send',
    json_invalide: 'The data must be JSON, for example {"nombre": 2}.',
    partie: 'Match', abandonner: 'Forfeit', nouvelle: 'New match', victoires: 'Wins',
    abandonner_vraiment: 'Forfeit the match?', abandonner_oui: 'Yes, forfeit', abandonner_non: 'No, keep playing',
    boutique: 'Shop', personne: 'Nobody has won yet.', plateau: 'Tic-tac-toe board',
    case: 'Square', vide: 'empty', ton_tour: 'Your turn!', tour_de: '{}’s turn…',
    nul: 'Draw.', annulee: 'Match cancelled.', gagne: 'You won!', gagnant: '{} won.', joueurs_par: '{} vs {}',
  },
};
function t(key, ...args) {
  let text = TEXTS[lang][key] ?? key;
  for (const a of args) text = text.replace('{}', a);
  return text;
}
// The static texts follow the browser's language from the start, key form included.
document.documentElement.lang = lang;
for (const el of document.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
for (const el of document.querySelectorAll('[data-i18n-html]')) el.innerHTML = t(el.dataset.i18nHtml);
for (const el of document.querySelectorAll('[data-i18n-label]')) el.setAttribute('aria-label', t(el.dataset.i18nLabel));

/** The key form: first visit, or a key the server refused (`refused`: its message). */
function askKey(refused) {
  $('app').hidden = true;
  const form = $('key-form');
  form.hidden = false;
  if (refused) {
    $('key-error').hidden = false;
    $('key-error').textContent = t('cle_refusee', refused);
  }
  $('key-input').focus();
}
$('key-form').addEventListener('submit', (e) => {
  e.preventDefault();
  localStorage.setItem(KEY_STORAGE, $('key-input').value.trim());
  location.reload();
});

if (!apiKey) askKey();
else void start();

async function start() {
  // -- 2. One client for the page ---------------------------------------------------------
  const client = Manette.createClient({ baseUrl, apiKey, lang });

  // A wrong or revoked key: every call fails with `invalid_key`. Ask for the key again.
  let keyRefused = false;
  const refusedKey = (err) => {
    if (err?.code !== 'invalid_key') return false;
    if (!keyRefused) {
      keyRefused = true;
      localStorage.removeItem(KEY_STORAGE);
      askKey(err.message);
    }
    return true;
  };

  // -- 3. The game: its name and its modes ------------------------------------------------
  // `manette start` describes the game it serves at /demo/jeu.json (its `nom`, its modes);
  // a page elsewhere (or another game's key) keeps the morpion defaults.
  let game = { nom: null, modes: [{ code: '1v1', regles: 'morpion', classement_victoires: 'victoires' }] };
  try {
    const res = await fetch('jeu.json', { headers: { 'x-api-key': apiKey } });
    if (res.ok) game = await res.json();
  } catch { /* the defaults */ }
  if (game.nom) {
    $('game-title').textContent = game.nom;
    document.title = `${game.nom} · Manette`;
  }

  // The panels would find the last client created by themselves; saying it is clearer.
  const login = document.querySelector('manette-login');
  const matchmaking = document.querySelector('manette-matchmaking');
  login.client = client;
  matchmaking.client = client;
  $('app').hidden = false;

  const select = $('mode');
  const modeOf = (code) => game.modes.find((m) => m.code === code) ?? (code ? undefined : game.modes[0]);
  select.replaceChildren(...game.modes.map((m) => Object.assign(document.createElement('option'), { value: m.code, textContent: m.code })));
  $('mode-box').hidden = game.modes.length < 2;
  const chooseMode = (code) => {
    const mode = modeOf(code) ?? game.modes[0];
    matchmaking.mode = mode?.code ?? '';
    select.value = matchmaking.mode;
    // The wins shown are those of the chosen mode's leaderboard, if it has one.
    leaderboardId = mode?.classement_victoires ?? null;
    $('lb-box').hidden = !leaderboardId;
    void showLeaderboard();
  };
  let leaderboardId = null;
  select.addEventListener('change', () => chooseMode(select.value));

  // -- 4. The panels tell the page what happened --------------------------------------------
  // manette:matched carries the matchmaking status: {partie_id, code_salon, participants, ...}.
  // It also fires when the player reloads the page during a match, so the match resumes.
  document.addEventListener('manette:matched', (e) => { void openMatch(e.detail); });
  client.auth.onChange((joueur) => {
    if (!joueur) closeMatch();
    showLobby();
    void showLeaderboard();
  });
  function showLobby() {
    $('lobby-text').textContent = t(client.auth.player ? 'lobby_connecte' : 'lobby');
  }

  // -- 5. The match --------------------------------------------------------------------------
  const board = $('board');
  const cells = [];
  for (let i = 0; i < 9; i++) {
    const cell = document.createElement('button');
    cell.type = 'button';
    cell.className = 'cell';
    cell.dataset.case = String(i);
    // Every click goes to the server, even on a taken square: the server refuses it
    // (action_refusee, reason case_occupee) and the page shows its message.
    cell.addEventListener('click', () => { void play('jouer', { case: i }); });
    board.append(cell);
    cells.push(cell);
  }

  let current = null;   // {id, handle, partie: the last state drawn, stop: unsubscribe, morpion}

  async function openMatch(status) {
    if (current?.id === status.partie_id) return;
    closeMatch();
    const partie = client.match(status.partie_id);
    const morpion = (modeOf(matchmaking.mode)?.regles ?? 'morpion') === 'morpion';
    current = { id: status.partie_id, handle: partie, partie: null, stop: null, morpion };
    $('room-code').textContent = status.code_salon;
    board.hidden = !morpion;
    $('generic').hidden = morpion;
    $('match').hidden = false;
    $('lobby').hidden = true;
    $('again').hidden = true;
    $('forfeit').hidden = false;
    // The mode is that of the match until it ends.
    select.disabled = true;
    // On a phone the match is below the panels: bring it into view.
    $('match').scrollIntoView({ block: 'start' });
    // The room: `etat` is the official state after each accepted move (both players' moves).
    const stop = await partie.subscribe({ onEtat: draw });
    if (current?.id !== status.partie_id) { stop(); return; }
    current.stop = stop;
    // The state now, in case a move was played before the room was joined.
    draw(await partie.state());
  }

  /** Back to the lobby; nothing of the last match stays on the page. */
  function closeMatch() {
    current?.stop?.();
    current = null;
    $('match').hidden = true;
    $('lobby').hidden = false;
    select.disabled = false;
    $('move-error').textContent = '';
    $('turn').textContent = '';
    $('turn').dataset.state = '';
    $('players').textContent = '';
    $('room-code').textContent = '';
    $('etat').textContent = '';
    askForfeit(false);
    for (const cell of cells) { cell.textContent = ''; cell.dataset.mark = ''; cell.classList.remove('winning'); }
  }

  function showError(message) {
    $('move-error').textContent = message;
    // On a small screen the message may be below the fold.
    if (message) $('move-error').scrollIntoView({ block: 'nearest' });
  }

  async function play(action, donnees) {
    if (!current?.partie) return;
    showError('');
    try {
      // numero_tour: a click on a board that is already out of date is refused (tour_perime).
      await current.handle.act(action, donnees, { numero_tour: current.partie.numero_tour });
      // Nothing to draw here: the `etat` event does it, for both players alike.
    } catch (err) {
      // A ManetteError: `message` is already in the player's language, `reason` is for code.
      showError(err.message);
    }
  }

  $('act-form').addEventListener('submit', (e) => {
    e.preventDefault();
    let donnees;
    try { donnees = JSON.parse($('act-data').value || '{}'); } catch { showError(t('json_invalide')); return; }
    void play($('act-name').value.trim(), donnees);
  });

  function askForfeit(ask) {
    $('forfeit-ask').hidden = !ask;
    $('forfeit').hidden = ask || !current || (current.partie?.statut ?? 'en_cours') !== 'en_cours';
  }
  $('forfeit').addEventListener('click', () => { askForfeit(true); $('forfeit-no').focus(); });
  $('forfeit-no').addEventListener('click', () => { askForfeit(false); $('forfeit').focus(); });
  $('forfeit-yes').addEventListener('click', async () => {
    if (!current) return;
    askForfeit(false);
    try { await current.handle.act('abandonner', {}); } catch (err) { showError(err.message); }
  });
  $('again').addEventListener('click', () => {
    closeMatch();
    // Straight back into the queue: the player asked for a new match.
    matchmaking.reset();
    void matchmaking.join();
    matchmaking.scrollIntoView({ block: 'nearest' });
  });

  // Draws a `partie` (from the `etat` event or GET /match/state).
  function draw(partie) {
    // Events of an older match, or older than what is drawn, are ignored.
    if (!current || partie.id !== current.id) return;
    if (current.partie && partie.numero_tour < current.partie.numero_tour) return;
    // A move was played since the last refusal: its message is out of date.
    if (current.partie && partie.numero_tour !== current.partie.numero_tour) showError('');
    current.partie = partie;
    // The match's own mode decides the view (a reload may resume a match of another mode).
    const morpion = (modeOf(partie.mode_jeu)?.regles ?? 'morpion') === 'morpion';
    if (morpion !== current.morpion) {
      current.morpion = morpion;
      board.hidden = !morpion;
      $('generic').hidden = morpion;
    }
    const me = client.auth.player?.id;
    const nameOf = (id) => partie.participants.find((p) => p.joueur_id === id)?.pseudo ?? '?';
    if (current.morpion) {
      const cases = partie.etat_plateau?.cases ?? [];
      const line = partie.etat_plateau?.ligne ?? [];
      const [x, o] = partie.participants;
      $('players').textContent = `X ${x?.pseudo ?? '?'}  ·  O ${o?.pseudo ?? '?'}`;
      cells.forEach((cell, i) => {
        const mark = cases[i] ?? '';
        cell.textContent = mark;
        cell.dataset.mark = mark;
        cell.classList.toggle('winning', line.includes(i));
        cell.setAttribute('aria-label', `${t('case')} ${i + 1} : ${mark || t('vide')}`);
      });
    } else {
      $('players').textContent = partie.participants.map((p) => p.pseudo).join('  ·  ');
      $('etat').textContent = JSON.stringify(partie.etat_plateau, null, 2);
    }

    const over = partie.statut !== 'en_cours'; // terminee, or annulee (the operator cancelled it)
    let text;
    if (!over) text = partie.tour_joueur === me ? t('ton_tour') : t('tour_de', nameOf(partie.tour_joueur));
    else if (partie.statut === 'annulee') text = t('annulee');
    else if (!partie.gagnant_id) text = t('nul');
    else text = partie.gagnant_id === me ? t('gagne') : t('gagnant', nameOf(partie.gagnant_id));
    $('turn').textContent = text;
    $('turn').dataset.state = over ? 'over' : partie.tour_joueur === me ? 'mine' : 'theirs';
    board.classList.toggle('mine', !over && partie.tour_joueur === me);

    if (over) {
      askForfeit(false);
      $('forfeit').hidden = true;
      $('again').hidden = false;
      select.disabled = false;
      // The panel's "match found" is over too: back to its Play button.
      if (matchmaking.state === 'matched') matchmaking.reset();
      // The server credited the win (classement_victoires): no client can write it.
      void showLeaderboard();
    }
  }

  // -- 6. Leaderboard and shop (API key only: no sign-in needed) ------------------------------
  async function showLeaderboard() {
    if (!leaderboardId) return;
    try {
      const scores = await client.leaderboard(leaderboardId).scores({ limit: 10 });
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
      $('lb-empty').textContent = t('personne');
      $('lb-empty').hidden = scores.length > 0;
    } catch (err) {
      if (refusedKey(err)) return;
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
      // No shop in this game: no empty box.
      $('shop-box').hidden = articles.length === 0;
    } catch (err) {
      if (refusedKey(err)) return;
      $('shop-box').hidden = false;
      $('shop').replaceChildren(Object.assign(document.createElement('li'), { textContent: err.message }));
    }
  }

  board.setAttribute('aria-label', t('plateau'));
  showLobby();
  chooseMode(matchmaking.mode);
  void showShop();
}
