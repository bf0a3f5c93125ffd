// Player-facing texts for every error code, French by default, English on request.
export type Lang = 'fr' | 'en';

const MESSAGES: Record<string, { fr: string; en: string }> = {
  missing_key: { fr: 'Clé d’API manquante.', en: 'Missing API key.' },
  invalid_key: { fr: 'Clé d’API invalide.', en: 'Invalid API key.' },
  missing_player: { fr: 'Connexion requise.', en: 'You need to be logged in.' },
  invalid_token: { fr: 'Session invalide ou expirée, reconnecte-toi.', en: 'Invalid or expired session, please log in again.' },
  invalid_credentials: { fr: 'Identifiant ou mot de passe incorrect.', en: 'Wrong login or password.' },
  invalid_json: { fr: 'Le corps de la requête n’est pas du JSON valide.', en: 'The request body is not valid JSON.' },
  unsupported_media_type: { fr: 'Le corps doit être envoyé en application/json.', en: 'The body must be sent as application/json.' },
  validation_failed: { fr: 'Certains champs sont invalides.', en: 'Some fields are invalid.' },
  invalid_query: { fr: 'Paramètre de requête invalide.', en: 'Invalid query parameter.' },
  payload_too_large: { fr: 'Le corps de la requête est trop volumineux.', en: 'The request body is too large.' },
  pseudo_taken: { fr: 'Ce pseudo est déjà pris.', en: 'This username is already taken.' },
  email_taken: { fr: 'Cette adresse e-mail est déjà utilisée.', en: 'This e-mail address is already in use.' },
  already_linked: { fr: 'Ce compte n’est pas un compte invité : il est déjà lié.', en: 'This is not a guest account: it is already linked.' },
  identity_taken: { fr: 'Cette identité est déjà celle d’un autre joueur de ce jeu.', en: 'This identity already belongs to another player of this game.' },
  fournisseur_inconnu: { fr: 'Ce fournisseur d’identité n’est pas déclaré par le jeu (connexions).', en: 'This identity provider is not declared by the game (connexions).' },
  fournisseur_non_configure: { fr: 'Cette connexion n’est pas configurée sur ce serveur.', en: 'This sign-in method is not set up on this server.' },
  'fournisseur_non_configure.steam': { fr: 'La connexion Steam n’est pas configurée sur ce serveur.', en: 'Steam sign-in is not set up on this server.' },
  'fournisseur_non_configure.discord': { fr: 'La connexion Discord n’est pas configurée sur ce serveur.', en: 'Discord sign-in is not set up on this server.' },
  compte_steam_banni: { fr: 'Ce compte Steam est banni de ce jeu.', en: 'This Steam account is banned from this game.' },
  'compte_steam_banni.vac': { fr: 'Ce compte Steam est banni par VAC.', en: 'This Steam account is VAC banned.' },
  'compte_steam_banni.editeur': { fr: 'Ce compte Steam est banni par l’éditeur du jeu.', en: 'This Steam account is banned by the game’s publisher.' },
  notifications_indisponibles: { fr: 'Ce jeu n’envoie pas de notifications Web Push (notifications.web_push).', en: 'This game does not send Web Push notifications (notifications.web_push).' },
  google_taken: { fr: 'Ce compte Google est déjà celui d’un autre joueur de ce jeu.', en: 'This Google account already belongs to another player of this game.' },
  not_found: { fr: 'Cette adresse n’existe pas.', en: 'This endpoint does not exist.' },
  table_not_found: { fr: 'Table introuvable.', en: 'Table not found.' },
  leaderboard_not_found: { fr: 'Classement introuvable.', en: 'Leaderboard not found.' },
  mode_not_found: { fr: 'Mode de jeu introuvable.', en: 'Game mode not found.' },
  match_not_found: { fr: 'Partie introuvable.', en: 'Match not found.' },
  file_not_found: { fr: 'Fichier introuvable.', en: 'File not found.' },
  row_not_found: { fr: 'Ligne introuvable.', en: 'Row not found.' },
  player_not_found: { fr: 'Joueur introuvable.', en: 'Player not found.' },
  forbidden: { fr: 'Action non autorisée.', en: 'You are not allowed to do this.' },
  not_participant: { fr: 'Tu ne participes pas à cette partie.', en: 'You are not a participant of this match.' },
  upload_failed: { fr: 'L’envoi du fichier a échoué.', en: 'The file upload failed.' },
  action_refusee: { fr: 'Action refusée.', en: 'Action refused.' },
  compte_suspendu: { fr: 'Ce compte est suspendu.', en: 'This account is suspended.' },
  'compte_suspendu.temporaire': { fr: 'Ce compte est suspendu jusqu’au {jusqu_a}.', en: 'This account is suspended until {jusqu_a}.' },
  code_invalide: { fr: 'Code invalide ou expiré.', en: 'Invalid or expired code.' },
  too_many_attempts: { fr: 'Trop de tentatives de connexion, réessaie plus tard.', en: 'Too many login attempts, try again later.' },
  rate_limited: { fr: 'Trop de requêtes, ralentis un peu.', en: 'Too many requests, slow down.' },
  unavailable: { fr: 'Service momentanément indisponible, réessaie dans un instant.', en: 'Service temporarily unavailable, try again shortly.' },
  internal_error: { fr: 'Erreur interne du serveur.', en: 'Internal server error.' },
  bad_request: { fr: 'Requête HTTP mal formée.', en: 'Malformed HTTP request.' },
  headers_too_large: { fr: 'Les en-têtes de la requête sont trop volumineux.', en: 'The request headers are too large.' },
  request_timeout: { fr: 'La requête a mis trop de temps à arriver.', en: 'The request took too long to arrive.' },
  too_many_connections: { fr: 'Trop de connexions ouvertes depuis cette adresse.', en: 'Too many open connections from this address.' },
  // The admin commands (manette import, keys, players, match).
  game_not_found: { fr: 'Jeu introuvable.', en: 'Game not found.' },
  key_not_found: { fr: 'Clé d’API introuvable pour ce jeu.', en: 'API key not found for this game.' },
  last_active_key: {
    fr: 'C’est la dernière clé active du jeu : crées-en une nouvelle d’abord (manette keys create <jeu>).',
    en: 'This is the game’s last active key: create a new one first (manette keys create <game>).',
  },
  match_over: {
    fr: 'Cette partie n’est plus en cours : rien n’a changé.',
    en: 'This match is no longer in progress: nothing changed.',
  },
  idempotency_conflict: {
    fr: 'Cette clé d’idempotence a déjà servi pour une autre requête.',
    en: 'This idempotency key was already used for another request.',
  },
  // The studio console (leaderboard retire).
  score_not_found: { fr: 'Ce joueur n’a pas de score dans ce classement pour cette période.', en: 'This player has no score on this leaderboard for this period.' },

  // The economy (docs/economy.md).
  article_introuvable: { fr: 'Article introuvable.', en: 'Article not found.' },
  article_inactif: { fr: 'Cet article n’est pas en vente en ce moment.', en: 'This article is not on sale right now.' },
  article_non_achetable: { fr: 'Cet article ne peut pas être acheté ici.', en: 'This article cannot be bought here.' },
  solde_insuffisant: { fr: 'Solde insuffisant.', en: 'Insufficient balance.' },
  quantite_insuffisante: { fr: 'Tu n’en as pas assez.', en: 'You do not have enough of it.' },
  limite_atteinte: { fr: 'Limite atteinte : tu ne peux pas en avoir plus.', en: 'Limit reached: you cannot hold more.' },
  objet_introuvable: { fr: 'Objet introuvable.', en: 'Object not found.' },
  monnaie_introuvable: { fr: 'Monnaie introuvable.', en: 'Currency not found.' },

  // Reasons (`reason` beside upload_failed, action_refusee and validation_failed).
  'validation_failed.import': { fr: 'Lignes invalides : rien n’a été importé.', en: 'Invalid rows: nothing was imported.' },
  'forbidden.ecriture_joueurs': {
    fr: 'Cette table est écrite par les joueurs (ecriture: joueurs) : manette rows delete ne vaut que pour les tables ecriture: serveur.',
    en: 'This table is written by players (ecriture: joueurs): manette rows delete is for ecriture: serveur tables only.',
  },
  'upload_failed.fichier_existe': { fr: 'Un fichier porte déjà ce nom.', en: 'A file with this name already exists.' },
  'upload_failed.trop_volumineux': { fr: 'Le fichier est trop volumineux.', en: 'The file is too large.' },
  'upload_failed.quota_depasse': { fr: 'Ton espace de stockage est plein.', en: 'Your storage space is full.' },
  'upload_failed.type_non_autorise': { fr: 'Ce type de fichier n’est pas autorisé.', en: 'This file type is not allowed.' },
  'upload_failed.json_invalide': { fr: 'Le contenu n’est pas du JSON valide.', en: 'The content is not valid JSON.' },
  'upload_failed.nom_invalide': { fr: 'Nom de fichier invalide.', en: 'Invalid file name.' },
  'upload_failed.champ_invalide': { fr: 'Champ manquant ou invalide.', en: 'Missing or invalid field.' },
  'match_over.terminee': { fr: 'Cette partie est déjà terminée : rien n’a changé.', en: 'This match is already over: nothing changed.' },
  'match_over.annulee': { fr: 'Cette partie a été annulée : rien n’a changé.', en: 'This match was cancelled: nothing changed.' },
  'action_refusee.partie_terminee': { fr: 'La partie est terminée.', en: 'The match is over.' },
  'action_refusee.pas_ton_tour': { fr: 'Ce n’est pas ton tour.', en: 'It is not your turn.' },
  'action_refusee.action_inconnue': { fr: 'Action inconnue.', en: 'Unknown action.' },
  'action_refusee.donnees_invalides': { fr: 'Données de l’action invalides.', en: 'Invalid action data.' },
  'action_refusee.tour_perime': { fr: 'Ce tour est déjà passé.', en: 'This turn is already over.' },
  'action_refusee.case_occupee': { fr: 'Cette case est déjà prise.', en: 'This square is already taken.' },
  'action_refusee.hors_plateau': { fr: 'Cette case est hors du plateau.', en: 'This square is off the board.' },
  'action_refusee.etat_trop_grand': { fr: 'Cette action rendrait l’état de la partie trop volumineux.', en: 'This action would make the match state too large.' },
  'action_refusee.donnees_trop_grandes': { fr: 'Les données de cette action sont trop volumineuses.', en: 'This action’s data is too large.' },
  // The console's panel editor (manette_admin.panel_apply, game_file_apply).
  game_file_differs: {
    fr: 'Le fichier du jeu et la base ne sont pas d’accord en dehors du panneau : applique d’abord le fichier tel quel (ou corrige-le).',
    en: 'The game file and the database disagree outside the panel: apply the file as it is first (or fix it).',
  },
  'forbidden.ecriture_joueurs_console': {
    fr: 'Cette table est écrite par les joueurs (ecriture: joueurs) : la console n’en modifie pas les lignes, seules celles des tables ecriture: serveur.',
    en: 'This table is written by players (ecriture: joueurs): the console edits the rows of ecriture: serveur tables only.',
  },
  // The studio console: one session revoked (manette_admin.session_revoke).
  session_not_found: { fr: 'Session introuvable pour ce jeu.', en: 'Session not found for this game.' },
  // A rule set's `economie` refused by manette.economy_apply: the action is refused.
  'action_refusee.solde_insuffisant': { fr: 'Solde insuffisant pour cette action.', en: 'Not enough balance for this action.' },
  'action_refusee.quantite_insuffisante': { fr: 'Tu n’en as pas assez pour cette action.', en: 'You do not have enough of it for this action.' },
  'action_refusee.limite_atteinte': { fr: 'Limite atteinte : cette action t’en donnerait trop.', en: 'Limit reached: this action would give you too much.' },
};

// Texts of `details` (validation_failed, invalid_query) that the SQL functions and some
// route schemas write in French, with their English. `%s` stands for a value the text was
// built with (SQL format() or ||): `doit être au moins %s` covers `doit être au moins 0`.
// test/players.test.ts checks that every text the migrations can raise is listed here.
const DETAIL_MESSAGES: ReadonlyArray<readonly [fr: string, en: string]> = [
  // The console's panel save (manette_admin.panel_apply): a part of the game file.
  ['diffère de la base', 'differs from the database'],
  // Data tables: rows (manette.table_check_donnees).
  ['objet attendu', 'object expected'],
  ['ligne de plus de 256 Kio', 'row larger than 256 KiB'],
  ['colonne inconnue', 'unknown column'],
  ['colonne obligatoire : null interdit', 'required column: null is not allowed'],
  ['texte attendu', 'text expected'],
  ['texte de 512 caractères au plus (json pour plus long)', 'text of at most 512 characters (json for longer)'],
  ['entier attendu', 'integer expected'],
  ['entier hors limites (±9007199254740991)', 'integer out of range (±9007199254740991)'],
  ['nombre attendu', 'number expected'],
  ['booléen attendu', 'boolean expected'],
  // Notifications (api.notifications_* and their routes).
  ['URL https attendue', 'https URL expected'],
  ['clés p256dh et auth attendues (base64url)', 'p256dh and auth keys expected (base64url)'],
  ['clé publique P-256 en base64url attendue', 'P-256 public key in base64url expected'],
  ['secret d’authentification en base64url attendu', 'authentication secret in base64url expected'],
  ['objet attendu : {"tour": true, "partie_trouvee": false, ...}', 'object expected: {"tour": true, "partie_trouvee": false, ...}'],
  ['date ISO 8601 avec fuseau attendue (ex. 2025-01-31T12:00:00Z)', 'ISO 8601 date with a time zone expected (e.g. 2025-01-31T12:00:00Z)'],
  ['colonne obligatoire manquante', 'required column missing'],
  // Data tables: imports (manette_admin.table_rows_import).
  ['tableau attendu', 'array expected'],
  ['100000 lignes au plus', 'at most 100000 rows'],
  ['autres erreurs non affichées : %s', 'more errors not shown: %s'],
  // Data tables: import --replace / --cle and rows delete (manette_admin.table_rows_import, table_rows_delete).
  ['replace et cle ne vont pas ensemble', 'replace and cle do not go together'],
  ['colonne déclarée attendue', 'declared column expected'],
  ['valeur requise pour la colonne clé', 'value required for the key column'],
  ['valeur de clé déjà donnée plus haut dans le fichier', 'key value already given earlier in the file'],
  ['plusieurs lignes de la table ont cette valeur de clé', 'several rows of the table have this key value'],
  ['id ou all attendu', 'id or all expected'],
  // Admin end / cancel of a match (manette_admin.match_stop).
  ['gagnant ou nul attendu (l’un des deux)', 'gagnant or nul expected (one of them)'],
  ['ce joueur ne participe pas à la partie', 'this player is not a participant of the match'],
  ['1000 caractères au plus', 'at most 1000 characters'],
  // Game config and the façade's edge checks (api/app.ts): names JavaScript objects give a meaning to.
  ['nom réservé (__proto__, constructor, prototype)', 'reserved name (__proto__, constructor, prototype)'],
  ['ligne introuvable : %s', 'row not found: %s'],
  // Data tables: query strings (api.table_list).
  ['entier de 1 à 200 attendu', 'integer from 1 to 200 expected'],
  ['entier positif ou nul attendu', 'non-negative integer expected'],
  ['asc ou desc attendu', 'asc or desc expected'],
  ['colonne déclarée, cree_le ou maj_le attendu', 'declared column, cree_le or maj_le expected'],
  ['paramètre inconnu (ni colonne déclarée, ni limit, offset, order_by, order_dir)', 'unknown parameter (neither a declared column nor limit, offset, order_by, order_dir)'],
  ['une seule valeur attendue', 'a single value expected'],
  ['valeur invalide pour une colonne %s', 'invalid value for a %s column'],
  // Leaderboards (manette.leaderboard_invalid_value).
  ['nombre fini attendu', 'finite number expected'],
  ['doit être au moins %s', 'must be at least %s'],
  ['doit être au plus %s', 'must be at most %s'],
  ['doit être comprise entre %s et %s', 'must be between %s and %s'],
  ['le total dépasserait la plus grande valeur possible', 'the total would exceed the largest possible value'],
  // Matchmaking and matches (manette.mm_invalid).
  ['chaîne attendue', 'string expected'],
  ['chaîne non vide attendue', 'non-empty string expected'],
  ['nombre entre 0 et 10000 attendu', 'number between 0 and 10000 expected'],
  ['entier positif attendu', 'positive integer expected'],
  // Players (api.players_register and the route schemas).
  ['3 à 32 caractères : lettres, chiffres, _ - .', '3 to 32 characters: letters, digits, _ - .'],
  ['pseudo réservé : supprime-… et invite_… sont des noms du serveur', 'reserved pseudo: supprime-… and invite_… are names of the server'],
  ['pseudo trompeur : lettres pleine chasse ou stylisées', 'misleading pseudo: full-width or styled letters'],
  ['pseudo trompeur : écritures mélangées', 'misleading pseudo: letters of mixed scripts'],
  ['identifiant ou email requis', 'identifiant or email required'],
  ['8 à 128 caractères', '8 to 128 characters'],
  ['code à 8 chiffres attendu', '8-digit code expected'],
  ['code pays ISO 3166-1 alpha-2 attendu', 'ISO 3166-1 alpha-2 country code expected'],
  ['code pays ISO 3166-1 alpha-2 inconnu', 'unknown ISO 3166-1 alpha-2 country code'],
  // Guests and linking (api.players_invite, api.players_lier and their routes).
  ['16 à 128 caractères : lettres, chiffres, _ -', '16 to 128 characters: letters, digits, _ -'],
  // The earlier text, in migrations applied before identity tokens.
  ['email et password, ou id_token (l’un des deux)', 'email and password, or id_token (one of the two)'],
  ['email et password, id_token, ou fournisseur et jeton (l’un des trois)', 'email and password, id_token, or fournisseur and jeton (one of the three)'],
  ['nom de fournisseur : 1 à 32 caractères, a-z 0-9 _ -', 'provider name: 1 to 32 characters, a-z 0-9 _ -'],
  ['une seule preuve : password, id_token, ou fournisseur et jeton', 'one proof only: password, id_token, or fournisseur and jeton'],
  ['discord : un code OAuth2 (POST /players/login/discord {code, code_verifier, redirect_uri})', 'discord: an OAuth2 code (POST /players/login/discord {code, code_verifier, redirect_uri})'],
  ['ticket Steam : hexadécimal (GetAuthSessionTicket ou GetAuthTicketForWebApi)', 'Steam ticket: hexadecimal (GetAuthSessionTicket or GetAuthTicketForWebApi)'],
  ['code_verifier : 43 à 128 caractères A-Z a-z 0-9 - . _ ~ (RFC 7636)', 'code_verifier: 43 to 128 characters A-Z a-z 0-9 - . _ ~ (RFC 7636)'],
  ['code, et code_verifier ou redirect_uri s’il y a lieu, seulement pour discord', 'code, and code_verifier or redirect_uri when needed, only for discord'],
  ['adresse e-mail invalide', 'invalid e-mail address'],
  ['base64 attendu', 'base64 expected'],
  ['image/png, image/jpeg ou image/webp attendu', 'image/png, image/jpeg or image/webp expected'],
  ['image de plus de 256 Kio', 'image larger than 256 KiB'],
  ['le contenu n’est pas une image %s', 'the content is not a %s image'],
  // Other route schemas.
  ['texte sans U+0000', 'text without U+0000'],
  ['offset ne s’emploie pas avec autour=moi', 'offset cannot be used with autour=moi'],
  ['1 à 255 caractères ASCII visibles', '1 to 255 visible ASCII characters'],
  // The rule-function problems manette_admin.apply_game finds (manette.rules_problem,
  // rules_sandbox_problem), which `manette apply` and `start` report. Longer forms first.
  ['morpion se joue à deux : %s', 'morpion is played by two: %s'],
  ['jeu de règles inconnu « %s » : libre, tour_par_tour, morpion, ou le nom « schema.fonction » d’une fonction plpgsql du jeu',
    'unknown rule set "%s": libre, tour_par_tour, morpion, or the name "schema.fonction" of a plpgsql function of the game'],
  ['fonction de règles introuvable : %s (créez-la par une migration avant d’appliquer le fichier)',
    'rule function not found: %s (create it in a migration before applying the file)'],
  ['fonction de règles introuvable : %s', 'rule function not found: %s'],
  ['la fonction de règles doit être %s (une seule valeur jsonb)', 'the rule function must be %s (one jsonb value)'],
  ['%s est SECURITY DEFINER : elle s’exécuterait avec les droits de son propriétaire, hors du bac à sable des règles ; créez-la SECURITY INVOKER (le défaut)',
    '%s is SECURITY DEFINER: it would run with its owner’s rights, outside the rules sandbox; create it SECURITY INVOKER (the default)'],
  ['%s change de rôle (SET %s) : une fonction de règles s’exécute en manette_rules, retirez ce SET',
    '%s changes role (SET %s): a rule function runs as manette_rules, remove this SET'],
  ['%s est écrite en %s, un langage non fiable (untrusted) : écrivez-la en plpgsql ou sql',
    '%s is written in %s, an untrusted language: write it in plpgsql or sql'],
  ['manette_rules (le rôle du bac à sable où s’exécutent les règles) doit pouvoir exécuter %s : %s',
    'manette_rules (the sandbox role rules run as) must be able to execute %s: %s'],
  // The console's overview (manette_admin.console_overview).
  ['1h, 24h ou 7d attendu', '1h, 24h or 7d expected'],
  // The console's matches (manette_admin.console_matches).
  ['en_cours, terminee, annulee ou all', 'en_cours, terminee, annulee or all'],
  // The studio console's leaderboards (manette_admin.console_board_period).
  ['début d’une période du classement attendu', 'the start of one of the leaderboard’s periods expected'],
  // The economy's support command (manette_admin.economy_grant).
  ['de 1 à 500 caractères', '1 to 500 characters'],
  ['au moins une monnaie ou un objet', 'at least one currency or object'],
  // Bans (manette_admin.players_ban).
  ['de 1 à 1000 caractères', '1 to 1000 characters'],
  ['date à venir attendue', 'a date in the future expected'],
];

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const EXACT_DETAILS = new Map(DETAIL_MESSAGES.filter(([fr]) => !fr.includes('%s')));
const PATTERN_DETAILS = DETAIL_MESSAGES.filter(([fr]) => fr.includes('%s')).map(([fr, en]) => ({
  re: new RegExp(`^${fr.split('%s').map(escapeRegExp).join('(.+?)')}$`, 'su'),
  en,
}));

/** A `details` message in the player's language; texts not in the table are left as they are. */
export function detailMessageFor(message: string, lang: Lang): string {
  if (lang === 'fr') return message;
  const exact = EXACT_DETAILS.get(message);
  if (exact !== undefined) return exact;
  for (const { re, en } of PATTERN_DETAILS) {
    const m = re.exec(message);
    if (m) {
      let i = 1;
      return en.replace(/%s/g, () => m[i++] ?? '');
    }
  }
  return message;
}

/** The text for an error code, or for one of its reasons (`action_refusee.pas_ton_tour`). */
export function messageFor(code: string, lang: Lang, reason?: string): string {
  return ((reason && MESSAGES[`${code}.${reason}`]) || MESSAGES[code] || MESSAGES.internal_error!)[lang];
}

export function isKnownCode(code: string): boolean {
  return !code.includes('.') && code in MESSAGES;
}

/** Every error code that has texts (reasons left out), for the OpenAPI document's code table. */
export function knownCodes(): string[] {
  return Object.keys(MESSAGES).filter((code) => !code.includes('.'));
}
