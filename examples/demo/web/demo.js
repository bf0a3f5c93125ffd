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
    titre: 'Morpion', titre_page: 'Morpion · démo Manette',
    lobby: 'Connecte-toi, puis clique sur « Jouer » : dès qu’un adversaire est trouvé, la partie s’affiche ici.',
    lobby_connecte: 'Clique sur « Jouer » : dès qu’un adversaire est trouvé, la partie s’affiche ici.',
    sous_titre: 'Une démo construite seulement sur le SDK navigateur de Manette.',
    cle_label: 'Clé d’API du jeu (<code>sk_live_…</code>, affichée par <code>npm start</code>)',
    cle_bouton: 'Utiliser cette clé', cle_refusee: 'Le serveur refuse cette clé ({}). Saisis la clé du jeu :',
    joueur: 'Joueur', mode: 'Mode de jeu', action: 'Action', donnees: 'Données (JSON)', envoyer: 'Envoyer',
    json_invalide: 'Les données doivent être du JSON, par exemple {"nombre": 2}.',
    partie: 'Partie', abandonner: 'Abandonner', nouvelle: 'Nouvelle partie', victoires: 'Victoires',
    abandonner_vraiment: 'Abandonner la partie ?', abandonner_oui: 'Oui, abandonner', abandonner_non: 'Non, continuer',
    recompense: 'Récompense : {}', non_comptee: 'Partie trop courte pour compter : ni récompense ni classement.', personne: 'Personne n’a encore gagné.', plateau: 'Plateau de morpion',
    case: 'Case', vide: 'vide', ton_tour: 'À toi de jouer !', tour_de: 'Tour de {}…',
    nul: 'Match nul.', gagne: 'Tu as gagné !', gagnant: '{} a gagné.', gagnants: '{} ont gagné.', joueurs_par: '{} contre {}',
    annulee: 'Partie annulée.', revoir: 'Revoir la partie', retour: 'Retour', etape: 'Étape',
    debut: 'Début', precedent: 'Coup précédent', suivant: 'Coup suivant', fin: 'Fin', lecture: 'Lecture', pause: 'Pause',
    chargement: 'Chargement de l’historique…', etape_0: 'Début de la partie ({} coups)', etape_n: 'Coup {} sur {} : {}',
    joue_case: '{} joue en case {}', joue: '{} joue « {} » {}', abandonne: '{} abandonne',
    delai: 'Temps écoulé pour {}', fin_admin: 'Partie terminée par un administrateur', annulation_admin: 'Partie annulée par un administrateur',
    delai_moi: 'Temps écoulé pour toi', temps_toi: 'Il te reste {} s pour jouer', temps_de: '{} a encore {} s',
    classement: 'Ton classement {}', en_cours: 'Parties en cours', actualiser: 'Actualiser', aucune_partie: 'Aucune partie en cours.',
    regarder: 'Regarder', spectateur: 'Tu regardes cette partie en direct.', retour_liste: 'Retour à la liste',
    compte: 'Ton compte', compte_texte: 'Tout ce que le jeu garde de toi : à emporter, ou à effacer.', mot_de_passe: 'Mot de passe',
    exporter: 'Exporter mes données', exporte: 'Tes données sont téléchargées ({}).', fichier_export: 'mes-donnees-{}.json',
    supprimer: 'Supprimer mon compte', supprimer_oui: 'Supprimer pour de bon', supprimer_non: 'Annuler',
    supprimer_compte: 'Ton compte, tes scores, ton or et tes objets seront effacés pour de bon. Ton mot de passe pour confirmer :',
    supprimer_invite: 'Ta progression d’invité (scores, or, objets) sera effacée pour de bon.',
    compte_supprime: 'Ton compte est supprimé : plus rien de toi ne reste ici.',
    notifier: 'Me prévenir quand c’est mon tour', notifie: 'Tu seras prévenu quand ce sera ton tour, même page fermée.',
    supprimer_fournisseur: 'Ton compte, tes scores, ton or et tes objets seront effacés pour de bon. Ton compte {} le confirme.',
    supabase_titre: 'Compte Supabase', supabase_texte: 'Connecte-toi avec ton compte Supabase Auth du projet, ou crée-le ici.',
    courriel: 'Adresse e-mail', supabase_nom: 'Nom (pour un nouveau compte)', supabase_connexion: 'Se connecter', supabase_creer: 'Créer le compte', annuler: 'Annuler',
    supabase_refuse: 'Adresse e-mail ou mot de passe incorrect.', supabase_existe: 'Ce compte existe déjà : connecte-toi.',
    supabase_faible: 'Le mot de passe doit faire au moins 6 caractères.', supabase_injoignable: 'Supabase Auth ne répond pas ({}).',
    supabase_absent: 'Ce serveur n’a pas de Supabase Auth (MANETTE_SUPABASE_AUTH_URL).',
  },
  en: {
    titre: 'Tic-tac-toe', titre_page: 'Tic-tac-toe · Manette demo',
    lobby: 'Sign in, then press “Play”: as soon as an opponent is found, the match shows up here.',
    lobby_connecte: 'Press “Play”: as soon as an opponent is found, the match shows up here.',
    sous_titre: 'A demo built only on Manette’s browser SDK.',
    cle_label: 'The game’s API key (<code>sk_live_…</code>, printed by <code>npm start</code>)',
    cle_bouton: 'Use this key', cle_refusee: 'The server refuses this key ({}). Enter the game’s key:',
    joueur: 'Player', mode: 'Game mode', action: 'Action', donnees: 'Data (JSON)', envoyer: 'Send',
    json_invalide: 'The data must be JSON, for example {"nombre": 2}.',
    partie: 'Match', abandonner: 'Forfeit', nouvelle: 'New match', victoires: 'Wins',
    abandonner_vraiment: 'Forfeit the match?', abandonner_oui: 'Yes, forfeit', abandonner_non: 'No, keep playing',
    recompense: 'Reward: {}', non_comptee: 'Match too short to count: no reward, no rating change.', personne: 'Nobody has won yet.', plateau: 'Tic-tac-toe board',
    case: 'Square', vide: 'empty', ton_tour: 'Your turn!', tour_de: '{}’s turn…',
    nul: 'Draw.', gagne: 'You won!', gagnant: '{} won.', gagnants: '{} won.', joueurs_par: '{} vs {}',
    annulee: 'Match cancelled.', revoir: 'Replay the match', retour: 'Back', etape: 'Step',
    debut: 'Start', precedent: 'Previous move', suivant: 'Next move', fin: 'End', lecture: 'Autoplay', pause: 'Pause',
    chargement: 'Loading the history…', etape_0: 'Start of the match ({} moves)', etape_n: 'Move {} of {}: {}',
    joue_case: '{} plays square {}', joue: '{} plays “{}” {}', abandonne: '{} forfeits',
    delai: '{} ran out of time', fin_admin: 'Match ended by an administrator', annulation_admin: 'Match cancelled by an administrator',
    delai_moi: 'You ran out of time', temps_toi: '{} s left to play', temps_de: '{} has {} s left',
    classement: 'Your {} rating', en_cours: 'Matches in progress', actualiser: 'Refresh', aucune_partie: 'No match in progress.',
    regarder: 'Watch', spectateur: 'You are watching this match live.', retour_liste: 'Back to the list',
    compte: 'Your account', compte_texte: 'Everything the game keeps about you: take it with you, or erase it.', mot_de_passe: 'Password',
    exporter: 'Export my data', exporte: 'Your data is downloaded ({}).', fichier_export: 'my-data-{}.json',
    supprimer: 'Delete my account', supprimer_oui: 'Delete for good', supprimer_non: 'Cancel',
    supprimer_compte: 'Your account, scores, gold and objects will be erased for good. Your password to confirm:',
    supprimer_invite: 'Your guest progress (scores, gold, objects) will be erased for good.',
    compte_supprime: 'Your account is deleted: nothing of yours is left here.',
    notifier: 'Notify me when it’s my turn', notifie: 'You will be told when it is your turn, even with the page closed.',
    supprimer_fournisseur: 'Your account, scores, gold and objects will be erased for good. Your {} account confirms it.',
    supabase_titre: 'Supabase account', supabase_texte: 'Sign in with your account in the project’s Supabase Auth, or create it here.',
    courriel: 'E-mail address', supabase_nom: 'Name (for a new account)', supabase_connexion: 'Sign in', supabase_creer: 'Create the account', annuler: 'Cancel',
    supabase_refuse: 'Wrong e-mail address or password.', supabase_existe: 'This account already exists: sign in.',
    supabase_faible: 'The password needs at least 6 characters.', supabase_injoignable: 'Supabase Auth does not answer ({}).',
    supabase_absent: 'This server has no Supabase Auth (MANETTE_SUPABASE_AUTH_URL).',
  },
};
function t(key, ...args) {
  let i = 0;
  // One pass: an argument that itself holds `{}` (a JSON action) stays as it is.
  return (TEXTS[lang][key] ?? key).replace(/\{\}/g, () => String(args[i++] ?? ''));
}
// The static texts follow the browser's language from the start, key form included.
document.documentElement.lang = lang;
document.title = t('titre_page');
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
  // `manette start` describes the game it serves at /demo/jeu.json (its `nom` in the page's
  // language, its modes); a page elsewhere (or another game's key) keeps the morpion defaults.
  let game = { nom: null, modes: [{ code: '1v1', regles: 'morpion', classement_victoires: 'victoires', spectateurs: true }] };
  try {
    const res = await fetch('jeu.json', { headers: { 'x-api-key': apiKey, 'Accept-Language': lang } });
    if (res.ok) game = await res.json();
  } catch { /* the defaults */ }
  if (game.nom) {
    $('game-title').textContent = game.nom;
    document.title = `${game.nom} · Manette`;
  }

  // The panels would find the last client created by themselves; saying it is clearer.
  const login = document.querySelector('manette-login');
  const matchmaking = document.querySelector('manette-matchmaking');
  const boutique = $('boutique');
  login.client = client;
  matchmaking.client = client;
  boutique.client = client;
  $('app').hidden = false;

  // The login panel shows a button per provider of the game file's `connexions`; a click asks
  // the game for that provider's token (manette:provider). The demo declares Steam: a game in
  // the Steam client would hand over GetAuthTicketForWebApi's ticket; a browser has none, so
  // the demo makes a test ticket, which only the local Steam stand-in of `npm start` accepts
  // (docs/accounts.md). One SteamID per browser: the same Steam player each time.
  // On a guest's link view, the event says `lier`: the guest keeps its progress and gains
  // that identity (the panel's linkWithToken) instead of signing in as another player.
  login.addEventListener('manette:provider', (e) => {
    const { fournisseur, lier } = e.detail;
    if (fournisseur === game.supabase?.fournisseur) { openSupabase(undefined, lier); return; }
    // The demo's file declares Supabase Auth, but this server has no Supabase Auth URL.
    if (fournisseur === 'supabase') { openSupabase(t('supabase_absent')); return; }
    if (fournisseur !== 'steam') return;
    signingInWith = 'steam';
    void (lier ? login.linkWithToken('steam', steamTestTicket()) : login.loginWithToken('steam', steamTestTicket()));
  });
  // A guest linked with a provider: its account now has no password but that provider.
  login.addEventListener('manette:linked', (e) => {
    if (signingInWith) localStorage.setItem(PROVIDER_STORAGE, JSON.stringify({ joueur_id: e.detail.joueur.id, fournisseur: signingInWith }));
    signingInWith = null;
  });
  /** A test ticket of this browser's SteamID (a new one each time: a ticket signs in once). */
  function steamTestTicket() {
    let steamId = localStorage.getItem('demo.steamid');
    if (!steamId) {
      steamId = `7656119${String(Math.floor(Math.random() * 1e10)).padStart(10, '0')}`;
      localStorage.setItem('demo.steamid', steamId);
    }
    const hex = (s) => Array.from(new TextEncoder().encode(s), (b) => b.toString(16).padStart(2, '0')).join('');
    return hex(`manette-test-ticket:${steamId}:${crypto.randomUUID()}`);
  }

  // Which provider the signed-in player came from (kept per browser): its account has no
  // password, so deleting it is confirmed by that provider (a fresh ticket or token).
  const PROVIDER_STORAGE = 'manette-demo:provider';
  let signingInWith = null;
  const providerOf = (joueur) => {
    try {
      const kept = JSON.parse(localStorage.getItem(PROVIDER_STORAGE) ?? 'null');
      return kept && joueur && kept.joueur_id === joueur.id ? kept.fournisseur : null;
    } catch { return null; }
  };
  client.auth.onChange((joueur) => {
    if (joueur && signingInWith) localStorage.setItem(PROVIDER_STORAGE, JSON.stringify({ joueur_id: joueur.id, fournisseur: signingInWith }));
    if (joueur) signingInWith = null;
  });

  // -- Supabase Auth -------------------------------------------------------------------------
  // The demo's game file declares the project's Supabase Auth (`{"supabase": true}`); `npm
  // start` runs a local one. The page signs in with supabase-js (served at vendor/supabase.js,
  // with the project's publishable key from GET /realtime/config), and the SDK's
  // auth.fromSupabase turns the Supabase session into a Manette player and follows it.
  let supabaseClient = null;
  let following = null;
  /** supabase-js's client of the project (loaded once). */
  async function supabaseOf() {
    if (supabaseClient) return supabaseClient;
    if (!window.supabase) {
      await new Promise((resolve, reject) => {
        document.head.append(Object.assign(document.createElement('script'), { src: 'vendor/supabase.js', onload: resolve, onerror: reject }));
      });
    }
    const { key } = await client.realtime.config();
    supabaseClient ??= window.supabase.createClient(game.supabase.url, key, { auth: { storageKey: 'manette-demo:supabase' } });
    return supabaseClient;
  }
  /** The client, its session followed by the SDK (a Supabase user signed in is that user's player). */
  async function supabaseReady() {
    const sb = await supabaseOf();
    following ??= client.auth.fromSupabase(sb, { fournisseur: game.supabase.fournisseur, onError: supabaseRefused });
    await following;
    return sb;
  }
  // A Supabase session kept from an earlier visit: followed again (a sign-out elsewhere ends it).
  if (game.supabase && localStorage.getItem('manette-demo:supabase')) void supabaseReady().catch(() => {});
  // Signed out with the panel: out of Supabase too, or its session would sign in again.
  login.addEventListener('manette:signed-out', () => { void supabaseClient?.auth.signOut(); });

  const dialog = $('supabase-dialog');
  let supabaseWaiting = null;
  let supabaseLinking = false;
  function openSupabase(unavailable, lier = false) {
    supabaseLinking = lier;
    $('supabase-error').textContent = unavailable ?? '';
    for (const el of $('supabase-form').querySelectorAll('input, button[type="submit"], #supabase-create')) el.disabled = !!unavailable;
    dialog.showModal();
    (unavailable ? $('supabase-cancel') : $('supabase-email')).focus();
  }
  function supabaseRefused(err) {
    const code = err?.code;
    $('supabase-error').textContent = code === 'invalid_credentials' ? t('supabase_refuse')
      : code === 'user_already_exists' ? t('supabase_existe')
      : code === 'weak_password' ? t('supabase_faible')
      : err?.name === 'ManetteError' ? err.message : t('supabase_injoignable', err?.message ?? err);
    supabaseWaiting?.(false);
  }
  async function supabaseSignIn(create) {
    const form = $('supabase-form');
    if (!form.reportValidity()) return;
    const buttons = form.querySelectorAll('button');
    for (const b of buttons) b.disabled = true;
    $('supabase-error').textContent = '';
    try {
      if (supabaseLinking) {
        // A guest links the Supabase user: signed in to Supabase first (not followed yet, or
        // the session would sign in as a new player), its token linked, then followed.
        const sb = await supabaseOf();
        signingInWith = game.supabase.fournisseur;
        const { data, error } = create ? await sb.auth.signUp(supabaseCredentials(true)) : await sb.auth.signInWithPassword(supabaseCredentials(false));
        if (error) throw error;
        await client.auth.link({ fournisseur: game.supabase.fournisseur, jeton: data.session.access_token });
        localStorage.setItem(PROVIDER_STORAGE, JSON.stringify({ joueur_id: client.auth.player.id, fournisseur: game.supabase.fournisseur }));
        await supabaseReady();
        dialog.close();
        form.reset();
        return;
      }
      const sb = await supabaseReady();
      // fromSupabase hears SIGNED_IN and signs in to Manette: the dialog waits for the player.
      const signedIn = new Promise((resolve) => {
        supabaseWaiting = resolve;
        const stop = client.auth.onChange((joueur) => { if (joueur) { stop?.(); resolve(true); } });
      });
      signingInWith = game.supabase.fournisseur;
      const { error } = create ? await sb.auth.signUp(supabaseCredentials(true)) : await sb.auth.signInWithPassword(supabaseCredentials(false));
      if (error) throw error;
      if (await signedIn) {
        dialog.close();
        form.reset();
      }
    } catch (err) {
      signingInWith = null;
      supabaseRefused(err);
    } finally {
      supabaseWaiting = null;
      for (const b of buttons) b.disabled = false;
    }
  }
  /** The form's e-mail and password, and for a new account its name (the user's full_name). */
  function supabaseCredentials(create) {
    const credentials = { email: $('supabase-email').value.trim(), password: $('supabase-password').value };
    const name = $('supabase-name').value.trim();
    return create ? { ...credentials, options: { data: name ? { full_name: name } : {} } } : credentials;
  }
  $('supabase-form').addEventListener('submit', (e) => { e.preventDefault(); void supabaseSignIn(false); });
  $('supabase-create').addEventListener('click', () => void supabaseSignIn(true));
  $('supabase-cancel').addEventListener('click', () => dialog.close());

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
    // The player's rating and the matches to watch are those of the chosen mode.
    ratingSeen = undefined;
    void showRating();
    void refreshLive();
  };
  let leaderboardId = null;
  select.addEventListener('change', () => chooseMode(select.value));

  // -- 4. The panels tell the page what happened --------------------------------------------
  // manette:matched carries the matchmaking status: {partie_id, code_salon, participants, ...}.
  // It also fires when the player reloads the page during a match, so the match resumes.
  document.addEventListener('manette:matched', (e) => { void openMatch(e.detail); });
  // `?revoir=<partie_id>`: the replay of that match (a participant's), once signed in.
  let replayAsked = params.get('revoir');
  // Fired on sign-in and sign-out, and whenever the SDK refreshes the player (auth.ratings()
  // does): only a change of player redraws the page.
  let playerId = client.auth.player?.id ?? null;
  client.auth.onChange((joueur) => {
    if ((joueur?.id ?? null) === playerId) return;
    playerId = joueur?.id ?? null;
    if (!joueur) closeMatch();
    showLobby();
    void showLeaderboard();
    ratingSeen = undefined;
    void showRating();
    void refreshLive();
    if (joueur && replayAsked) { void openReplay(replayAsked); replayAsked = null; }
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
    // (action_refusee, reason case_occupee) and the page shows its message. A spectator's
    // clicks send nothing (the server would refuse them: not_participant).
    cell.addEventListener('click', () => { if (!current?.spectator) void play('jouer', { case: i }); });
    board.append(cell);
    cells.push(cell);
  }

  let current = null;   // {id, handle, partie: the last state drawn, stop: unsubscribe, spectator, lastAction, endAction}
  let replay = null;    // {id, actions, etats, at: the step shown, timer: while playing}

  /** The player's own match (matchmaking found it, or the page was reloaded during it). */
  function openMatch(status) { return showMatch(status.partie_id, status.code_salon, false); }
  /** Someone else's match, from the list of matches in progress: read-only. */
  function watchMatch(partie) { return showMatch(partie.id, partie.code_salon, true); }

  async function showMatch(id, code, spectator) {
    if (current?.id === id) return;
    closeMatch();
    const partie = client.match(id);
    const morpion = (modeOf(matchmaking.mode)?.regles ?? 'morpion') === 'morpion';
    current = { id, handle: partie, partie: null, stop: null, spectator, lastAction: null, endAction: null, walletBefore: null, rewarded: false };
    // The wallet as the match starts: what it brought is the difference at its end.
    if (!spectator) void readWalletBefore(current);
    $('room-code').textContent = code;
    board.hidden = !morpion;
    $('generic').hidden = morpion;
    $('match').hidden = false;
    $('lobby').hidden = true;
    $('again').hidden = true;
    // A spectator has no seat: nothing to forfeit, nothing to send, a way back to the list.
    $('forfeit').hidden = spectator;
    $('act-form').hidden = spectator;
    $('watching').hidden = !spectator;
    $('watch-close').hidden = !spectator;
    board.classList.toggle('watching', spectator);
    // Back in the lobby later, the list is read again: nothing stale shows meanwhile.
    $('live').replaceChildren();
    $('live-empty').hidden = true;
    // The mode is that of the match until it ends.
    select.disabled = !spectator;
    // On a phone the match is below the panels: bring it into view.
    $('match').scrollIntoView({ block: 'start' });
    try {
      // `onEtat` is the official state after each accepted move (both players' moves, and the
      // server's own: an expired turn); `onAction` comes just before it: the page keeps the last
      // one to say why a match ended. The demo's game file says "evenements": "etat_aux_autres"
      // (docs/matches.md, "Events per action": 2 Realtime messages per move): the SDK then hears
      // the other player's moves on this player's own channel and its own from the HTTP answer;
      // spectators join the room read-only. The page is the same in every setting.
      const stop = await partie.subscribe({
        onEtat: draw,
        onAction: (a) => { if (current?.id === id) current.lastAction = a; },
      });
      if (current?.id !== id) { void stop(); return; }
      current.stop = stop;
      // The state now, in case a move was played before the room was joined.
      draw(await partie.state());
    } catch (err) {
      if (current?.id !== id || refusedKey(err)) return;
      showError(err.message);
    }
  }

  /** Back to the lobby; nothing of the last match stays on the page. */
  function closeMatch() {
    current?.stop?.();
    current = null;
    showTimer();
    closeReplay();
    for (const id of ['watching', 'watch-close']) $(id).hidden = true;
    board.classList.remove('watching');
    $('match').hidden = true;
    $('lobby').hidden = false;
    select.disabled = false;
    $('move-error').textContent = '';
    $('reward').hidden = true;
    $('reward').textContent = '';
    $('turn').textContent = '';
    $('turn').dataset.state = '';
    $('players').textContent = '';
    $('room-code').textContent = '';
    $('etat').textContent = '';
    askForfeit(false);
    for (const cell of cells) { cell.textContent = ''; cell.dataset.mark = ''; cell.classList.remove('winning', 'last'); }
  }

  function showError(message) {
    $('move-error').textContent = message;
    // On a small screen the message may be below the fold.
    if (message) $('move-error').scrollIntoView({ block: 'nearest' });
  }

  async function play(action, donnees) {
    if (!current?.partie || current.spectator) return;
    showError('');
    try {
      // numero_tour: a click on a board that is already out of date is refused (tour_perime).
      await current.handle.act(action, donnees, { numero_tour: current.partie.numero_tour });
      // Nothing to draw here: the subscription's onEtat does it, for both players alike.
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
    $('forfeit').hidden = ask || !current || current.spectator || (current.partie && current.partie.statut !== 'en_cours');
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
    // The server's clock: this state changed at `maj_le`, so the server is at least that far ahead.
    noteServerTime(partie);
    const over = render(partie, true);
    showTimer();
    if (over) {
      askForfeit(false);
      $('forfeit').hidden = true;
      // A spectator goes back to the list; a player may queue again.
      $('again').hidden = current.spectator;
      $('watching').hidden = true;
      // Every accepted move is kept: the match can be watched again, move by move.
      $('replay').hidden = !canReplay(partie.mode_jeu);
      select.disabled = false;
      // The panel's "match found" is over too: back to its Play button.
      if (!current.spectator && matchmaking.state === 'matched') matchmaking.reset();
      // The server credited the win (classement_victoires) and moved the ratings
      // ("elo": "serveur") in the transaction that ended the match: no client can write them.
      void showLeaderboard();
      void showRating();
      void explainEnd(partie);
      // ... and granted the mode's reward (its `recompenses`) in that same transaction.
      void showReward();
    }
  }

  /**
   * Why the match ended, when the server ended it (an expired turn, an administrator): the
   * `action` event just before the final `etat` says so; when that event was missed (Realtime
   * delivers at most once), the last row of the history does.
   */
  async function explainEnd(partie) {
    const mine = current;
    let a = mine.lastAction;
    if (!(a && a.joueur_id === null)) {
      try {
        const h = await mine.handle.history({ limit: 500 });
        a = h.actions[h.actions.length - 1] ?? null;
      } catch { return; }
    }
    if (current !== mine || !a || a.joueur_id !== null) return;
    mine.endAction = a;
    render(mine.partie, true);
  }

  /** Draws one state of a match (live, or a step of a replay); returns whether it is over. */
  function render(partie, live) {
    // The match's own mode decides the view (a reload may resume a match of another mode).
    const morpion = rulesOf(partie.mode_jeu) === 'morpion';
    board.hidden = !morpion;
    $('generic').hidden = morpion;
    const me = client.auth.player?.id;
    const nameOf = (id) => partie.participants.find((p) => p.joueur_id === id)?.pseudo ?? '?';
    if (morpion) {
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

    // `terminee` or `annulee` (cancelled by an administrator): both final.
    const over = partie.statut !== 'en_cours';
    const mine = live && !over && partie.tour_joueur === me;
    let text;
    if (partie.statut === 'annulee') text = t('annulee');
    else if (!over) text = mine ? t('ton_tour') : t('tour_de', nameOf(partie.tour_joueur));
    else if (!partie.gagnant_id) text = partie.gagnant_equipe === null ? t('nul') : t('gagnants', partie.participants.filter((p) => p.equipe === partie.gagnant_equipe).map((p) => p.pseudo).join(', '));
    else text = partie.gagnant_id === me ? t('gagne') : t('gagnant', nameOf(partie.gagnant_id));
    // Ended by the server: say why before the result.
    const end = live && over ? current?.endAction : null;
    if (end?.action === 'delai_depasse') {
      const who = end.donnees?.joueur_id;
      text = `${who === me ? t('delai_moi') : t('delai', nameOf(who))}. ${text}`;
    } else if (end?.action === 'fin_admin') text = `${t('fin_admin')}. ${text}`;
    $('turn').textContent = text;
    $('turn').dataset.state = over ? 'over' : mine ? 'mine' : 'theirs';
    board.classList.toggle('mine', mine);
    return over;
  }

  // -- The turn's countdown ----------------------------------------------------------------------
  // `tour_expire_le` (modes with `delai_tour_s`) is when the server ends the turn. The page only
  // shows it: at zero it does nothing, the server applies `delai_depasse` and its `etat` redraws
  // the page (the sweep runs every second). The device's clock may be off: every state says the
  // server's time was at least `maj_le` when it was sent, so the largest `maj_le - now` seen is
  // how far the server is ahead (0: the clocks agree, or the device is ahead and counts a bit early).
  let clockOffset = 0;
  let timerTick = null;
  function noteServerTime(partie) {
    const ahead = Date.parse(partie.maj_le) - Date.now();
    if (ahead > clockOffset) clockOffset = ahead;
  }
  function showTimer() {
    const p = current?.partie;
    const expires = p && p.statut === 'en_cours' && p.tour_expire_le ? Date.parse(p.tour_expire_le) : NaN;
    if (Number.isNaN(expires)) {
      $('timer').hidden = true;
      clearInterval(timerTick);
      timerTick = null;
      return;
    }
    const total = Math.max(1, expires - Date.parse(p.maj_le));
    const left = Math.max(0, expires - (Date.now() + clockOffset));
    const s = Math.ceil(left / 1000);
    const mine = !current.spectator && p.tour_joueur === client.auth.player?.id;
    const who = p.participants.find((q) => q.joueur_id === p.tour_joueur)?.pseudo ?? '?';
    $('timer-text').textContent = mine ? t('temps_toi', s) : t('temps_de', who, s);
    $('timer-fill').style.width = `${Math.min(100, (left / total) * 100)}%`;
    $('timer').dataset.urgent = String(s <= Math.min(10, total / 3000));
    $('timer').dataset.mine = String(mine);
    $('timer').hidden = false;
    // A quarter of a second, so the second shown changes on time; nothing is sent.
    timerTick ??= setInterval(showTimer, 250);
  }

  // -- The player's rating -------------------------------------------------------------------------
  // In a mode with `"elo": "serveur"` the server keeps each player's rating and moves it when a
  // match ends; GET /players/me (auth.ratings()) gives it, by mode. Other modes: nothing shown.
  let ratingSeen;     // the rating last shown for the chosen mode (to show the change after a match)
  let ratingAsk = 0;
  async function showRating() {
    const ask = ++ratingAsk;
    const mode = matchmaking.mode;
    if (!client.auth.player || modeOf(mode)?.elo === 'client') { $('rating').hidden = true; return; }
    try {
      const r = (await client.auth.ratings())[mode];
      if (ask !== ratingAsk) return;
      $('rating').hidden = !r;
      if (!r) return;
      $('rating-label').textContent = t('classement', mode);
      $('rating-value').textContent = String(Math.round(r.valeur));
      if (ratingSeen === undefined) $('rating-delta').textContent = '';
      else if (Math.round(r.valeur) !== Math.round(ratingSeen)) {
        const d = Math.round(r.valeur - ratingSeen);
        $('rating-delta').textContent = d > 0 ? `+${d}` : `−${-d}`;
        $('rating-delta').dataset.sign = d > 0 ? 'up' : 'down';
      }
      ratingSeen = r.valeur;
    } catch (err) {
      if (ask === ratingAsk && !refusedKey(err)) $('rating').hidden = true;
    }
  }

  // -- Matches to watch -----------------------------------------------------------------------------
  // In a mode with `"spectateurs": true` every player may watch its matches: GET /match/live
  // (matches.live()) lists those in progress. Read when the lobby shows, every 5 s while it
  // does (and the page is visible), and on "Refresh"; never during a match.
  let liveBusy = false;
  async function refreshLive() {
    const wanted = Boolean(client.auth.player) && !current && !replay && modeOf(matchmaking.mode)?.spectateurs === true;
    $('live-box').hidden = !wanted;
    if (!wanted || liveBusy) return;
    liveBusy = true;
    try {
      const parties = await client.matches.live({ mode_jeu: matchmaking.mode, limit: 10 });
      if (current || replay) return;
      const me = client.auth.player?.id;
      // The player's own match is not one to watch.
      const others = parties.filter((p) => !p.participants.some((q) => q.joueur_id === me));
      $('live').replaceChildren(...others.map((p) => {
        const li = document.createElement('li');
        li.dataset.partie = p.id;
        const teams = [...new Set(p.participants.map((q) => q.equipe))]
          .map((e) => p.participants.filter((q) => q.equipe === e).map((q) => q.pseudo).join(', '));
        const watch = Object.assign(document.createElement('button'), { type: 'button', className: 'primary', textContent: t('regarder') });
        watch.addEventListener('click', () => { void watchMatch(p); });
        li.append(Object.assign(document.createElement('span'), { className: 'live-players', textContent: teams.length === 2 ? t('joueurs_par', teams[0], teams[1]) : teams.join('  ·  ') }),
          Object.assign(document.createElement('span'), { className: 'room-code', textContent: p.code_salon }), watch);
        return li;
      }));
      $('live-empty').textContent = t('aucune_partie');
      $('live-empty').hidden = others.length > 0;
    } catch (err) {
      if (refusedKey(err)) return;
      $('live').replaceChildren();
      $('live-empty').hidden = false;
      $('live-empty').textContent = err.message;
    } finally {
      liveBusy = false;
    }
  }
  $('live-refresh').addEventListener('click', () => { void refreshLive(); });
  setInterval(() => { if (document.visibilityState !== 'hidden') void refreshLive(); }, 5000);
  $('watch-close').addEventListener('click', () => { closeMatch(); showLobby(); void refreshLive(); });

  // -- 6. "Revoir la partie": every state again, from the match's history ---------------------
  // `match(id).replay(regles)` reads every accepted action (GET /match/history) and rebuilds
  // the state after each one with the mode's rules; the page steps through them. The SDK
  // knows the shipped rule sets; a game's own rules would pass its own function.
  const SHIPPED = ['libre', 'tour_par_tour', 'morpion'];
  function rulesOf(mode_jeu) { return modeOf(mode_jeu)?.regles ?? 'morpion'; }
  function canReplay(mode_jeu) { return SHIPPED.includes(rulesOf(mode_jeu)); }

  /** Keeps `?revoir=<id>` in the address while a replay is shown, so a reload (or the link) shows it again. */
  function replayInAddress(id) {
    const q = new URLSearchParams(location.search);
    if (id) q.set('revoir', id); else q.delete('revoir');
    history.replaceState(null, '', location.pathname + (q.toString() ? `?${q}` : '') + location.hash);
  }

  async function openReplay(partie_id) {
    closeMatch();
    const mine = replay = { id: partie_id, actions: [], etats: [], at: 0, timer: null };
    replayInAddress(partie_id);
    $('match').hidden = false;
    $('lobby').hidden = true;
    $('forfeit').hidden = true;
    $('again').hidden = true;
    $('act-form').hidden = true;
    $('replay-close').hidden = false;
    $('replay-bar').hidden = false;
    board.classList.add('replaying');
    for (const id of ['replay-first', 'replay-prev', 'replay-play', 'replay-next', 'replay-last', 'replay-pos']) $(id).disabled = true;
    $('replay-step').textContent = t('chargement');
    $('match').scrollIntoView({ block: 'start' });
    try {
      const handle = client.match(partie_id);
      const state = await handle.state();
      const r = await handle.replay(rulesOf(state.mode_jeu));
      if (replay !== mine) return;
      Object.assign(replay, { actions: r.actions, etats: r.etats });
      $('room-code').textContent = state.code_salon;
      $('replay-pos').max = String(r.actions.length);
      $('replay-pos').disabled = $('replay-play').disabled = false;
      showStep(0);
    } catch (err) {
      if (replay !== mine || refusedKey(err)) return;
      $('replay-step').textContent = '';
      showError(err.message);
    }
  }

  function closeReplay() {
    if (replay) {
      clearInterval(replay.timer);
      replay = null;
      replayInAddress(null);
    }
    for (const id of ['replay-bar', 'replay', 'replay-close']) $(id).hidden = true;
    $('act-form').hidden = false;
    $('replay-play').textContent = t('lecture');
    board.classList.remove('replaying');
  }

  /** What an action of the history did, in words (`before`: the state it was played in). */
  function describe(a, before) {
    const nameOf = (id) => before.participants.find((p) => p.joueur_id === id)?.pseudo ?? '?';
    // The server's own actions have no player: an expired turn, an administrator's end or cancel.
    if (a.joueur_id === null && a.action === 'delai_depasse') return t('delai', nameOf(a.donnees.joueur_id));
    if (a.joueur_id === null && (a.action === 'fin_admin' || a.action === 'annulation_admin')) return t(a.action);
    if (a.action === 'abandonner') return t('abandonne', nameOf(a.joueur_id));
    if (a.action === 'jouer' && rulesOf(before.mode_jeu) === 'morpion') return t('joue_case', nameOf(a.joueur_id), a.donnees.case + 1);
    return t('joue', nameOf(a.joueur_id), a.action, JSON.stringify(a.donnees));
  }

  /** Shows step `i`: 0 is the match as it started, `i` the state after the i-th action. */
  function showStep(i) {
    if (!replay?.etats.length) return;
    const n = replay.actions.length;
    const at = replay.at = Math.max(0, Math.min(n, i));
    const partie = replay.etats[at];
    render(partie, false);
    const a = replay.actions[at - 1];
    // The square just played stands out.
    cells.forEach((cell, c) => cell.classList.toggle('last', a?.action === 'jouer' && a.donnees.case === c));
    $('replay-step').textContent = at === 0 ? t('etape_0', n) : t('etape_n', at, n, describe(a, replay.etats[at - 1]));
    $('replay-pos').value = String(at);
    $('replay-first').disabled = $('replay-prev').disabled = at === 0;
    $('replay-next').disabled = $('replay-last').disabled = at === n;
    if (at === n && replay.timer) playReplay(false);
  }

  function playReplay(on) {
    if (!replay) return;
    clearInterval(replay.timer);
    replay.timer = null;
    if (on) {
      if (replay.at >= replay.actions.length) showStep(0);
      replay.timer = setInterval(() => showStep(replay.at + 1), 900);
    }
    $('replay-play').textContent = t(replay.timer ? 'pause' : 'lecture');
  }

  $('replay').addEventListener('click', () => { if (current) void openReplay(current.id); });
  $('replay-close').addEventListener('click', () => { closeMatch(); showLobby(); void refreshLive(); });
  $('replay-play').addEventListener('click', () => playReplay(!replay?.timer));
  const step = (to) => () => { playReplay(false); showStep(to()); };
  $('replay-first').addEventListener('click', step(() => 0));
  $('replay-prev').addEventListener('click', step(() => replay.at - 1));
  $('replay-next').addEventListener('click', step(() => replay.at + 1));
  $('replay-last').addEventListener('click', step(() => replay.actions.length));
  $('replay-pos').addEventListener('input', step(() => Number($('replay-pos').value)));

  // -- 6. Leaderboard and shop ---------------------------------------------------------------------
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

  // The shop is <manette-boutique>: articles, the player's wallet and inventory, Buy buttons.
  // The page only leaves it out when the game sells nothing.
  async function showShop() {
    try {
      const articles = await client.shop.articles();
      boutique.hidden = articles.length === 0;
    } catch (err) {
      if (refusedKey(err)) return;
      boutique.hidden = false;
    }
  }

  // -- 7. The match's reward --------------------------------------------------------------------
  // A mode's `recompenses` (here 50 gold for a win, 20 for a draw, 10 for a defeat) are granted
  // by the server in the transaction that ends the match: the page reads the wallet again
  // (economy.wallet(), GET /economie/portefeuille), says what arrived, and refreshes the shop's.
  async function readWalletBefore(mine) {
    try {
      const w = await client.economy.wallet();
      if (!mine.rewarded) mine.walletBefore = w;
    } catch { /* no reward line for this match */ }
  }
  async function showReward() {
    const mine = current;
    if (!mine || mine.spectator || mine.rewarded || !client.auth.player) return;
    mine.rewarded = true;
    void boutique.refresh();
    // Ended before each side had played (the mode's `actions_min`, docs/matches.md): the
    // server paid, rated and credited nothing, and the final `partie` says so.
    if (mine.partie && mine.partie.comptee === false) {
      $('reward').textContent = t('non_comptee');
      $('reward').hidden = false;
      return;
    }
    try {
      const before = mine.walletBefore;
      const after = await client.economy.wallet();
      if (current !== mine || !before) return;
      const gains = after.map((w) => ({ w, d: w.solde - (before.find((b) => b.code === w.code)?.solde ?? 0) })).filter((x) => x.d > 0);
      if (gains.length === 0) return;
      $('reward').textContent = t('recompense', gains.map((x) => `+${x.d} ${x.w.nom}`).join(', '));
      $('reward').hidden = false;
    } catch (err) {
      refusedKey(err);
    }
  }

  // -- 8. The player's account ----------------------------------------------------------------------
  // <manette-login> does the rest of the account's life: "Jouer sans compte" (auth.guest()),
  // a guest's "Lier un compte" (auth.link: the same player, with an e-mail), "Mot de passe
  // oublié ?" (auth.requestReset, auth.reset). The page adds what a player may ask of their
  // data: a copy of everything the server holds about them (auth.exportData(), GET
  // /players/me/export), turned into a file here, and the account's deletion
  // (auth.deleteAccount(), POST /players/me/supprimer: with the password, nothing for a
  // guest; the SDK then signs out). A Google account would confirm with a fresh Google
  // token: deleteAccount({idToken}).
  let accountOf = null;   // the player the account area was drawn for
  function showAccount() {
    const joueur = client.auth.player;
    $('account').hidden = !joueur;
    if (!joueur) { accountOf = null; return; }
    $('account-note').hidden = true;
    // Another player: nothing of the previous one's messages stays.
    if (accountOf !== joueur.id) {
      accountOf = joueur.id;
      accountMessage('', '');
      askDelete(false);
    }
    // A guest who just linked an account: the deletion now asks for the password.
    if (!$('delete-form').hidden) askDelete(true);
  }
  function accountMessage(status, error) {
    $('account-status').textContent = status;
    $('account-error').textContent = error;
  }
  /** An account call refused: its message, beside the account, or instead of it once signed out. */
  function accountRefused(err) {
    if (refusedKey(err)) return;
    if (client.auth.player) accountMessage('', err.message);
    else showAccountNote(err.message);
  }
  function showAccountNote(text) {
    $('account-note').textContent = text;
    $('account-note').hidden = false;
  }
  /** Runs one account call with the area's buttons disabled. */
  async function accountBusy(fn) {
    const buttons = $('account').querySelectorAll('button');
    for (const b of buttons) b.disabled = true;
    accountMessage('', '');
    try { await fn(); } catch (err) { accountRefused(err); } finally { for (const b of buttons) b.disabled = false; }
  }
  function askDelete(ask) {
    const guest = Boolean(client.auth.player?.invite);
    const provider = providerOf(client.auth.player);
    $('delete-form').hidden = !ask;
    $('account-actions').hidden = ask;
    $('delete-text').textContent = guest ? t('supprimer_invite')
      : provider ? t('supprimer_fournisseur', provider === 'steam' ? 'Steam' : 'Supabase') : t('supprimer_compte');
    $('delete-password-box').hidden = guest || !!provider;
    $('delete-password').required = ask && !guest && !provider;
    if (!ask) $('delete-password').value = '';
  }
  /** What confirms the deletion: the password, nothing for a guest, or the provider's fresh proof. */
  async function deletionProof() {
    if (client.auth.player?.invite) return undefined;
    const provider = providerOf(client.auth.player);
    if (provider === 'steam') return { fournisseur: 'steam', jeton: steamTestTicket() };
    if (provider && provider === game.supabase?.fournisseur) {
      // A token opens one request: a fresh one (its iat within the last 10 minutes).
      const { data, error } = await (await supabaseReady()).auth.refreshSession();
      if (error || !data.session) throw error ?? new Error('no Supabase session');
      return { fournisseur: provider, jeton: data.session.access_token };
    }
    return { password: $('delete-password').value };
  }

  // "Your turn" notifications (the game file's `notifications.web_push`, docs/notifications.md):
  // the SDK asks the browser's permission, registers its service worker and the push
  // subscription; the server then pushes a turn, a match found or a match's end to a player
  // who is not on the page (while it is shown, the SDK marks the player present: nothing is sent).
  $('notify').addEventListener('click', () => {
    void accountBusy(async () => {
      await client.notifications.subscribe();
      accountMessage(t('notifie'), '');
    });
  });

  $('export').addEventListener('click', () => {
    void accountBusy(async () => {
      const data = await client.auth.exportData();
      // The answer as a file the player keeps: no server round trip, nothing stored.
      const name = t('fichier_export', client.auth.player?.pseudo ?? 'joueur');
      const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }));
      const a = Object.assign(document.createElement('a'), { href: url, download: name, hidden: true });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      accountMessage(t('exporte', name), '');
    });
  });

  $('delete').addEventListener('click', () => {
    accountMessage('', '');
    askDelete(true);
    (client.auth.player?.invite || providerOf(client.auth.player) ? $('delete-no') : $('delete-password')).focus();
  });
  $('delete-no').addEventListener('click', () => { askDelete(false); $('delete').focus(); });
  $('delete-form').addEventListener('submit', (e) => {
    e.preventDefault();
    void accountBusy(async () => {
      const provider = providerOf(client.auth.player);
      await client.auth.deleteAccount(await deletionProof());
      localStorage.removeItem(PROVIDER_STORAGE);
      if (provider && provider === game.supabase?.fournisseur) await supabaseClient?.auth.signOut();
      // Signed out by the SDK: the panels and the page follow through onChange.
      showAccountNote(t('compte_supprime'));
    });
  });
  client.auth.onChange(showAccount);
  showAccount();

  board.setAttribute('aria-label', t('plateau'));
  showLobby();
  chooseMode(matchmaking.mode);
  void showShop();
  // Already signed in (the session kept from an earlier visit): the replay asked for now.
  if (replayAsked && client.auth.player) { void openReplay(replayAsked); replayAsked = null; }
}
