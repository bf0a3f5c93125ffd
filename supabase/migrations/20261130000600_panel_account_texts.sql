-- <manette-login>'s account texts (docs/accounts.md, "SDK and panel"): the "Jouer sans
-- compte" button, the forgotten password's two steps (the e-mail, then the code and the new
-- password), and a guest's view with its "Lier un compte" form. The same texts as the SDK's
-- defaults (sdk/src/panels/texts.ts; test/sdk-accounts-browser.test.ts compares them),
-- served by GET /panel so that a studio sees and overrides them with the others (console,
-- panel.textes). Both languages get the same keys (pgTAP 75 compares them).

-- French: the defaults' textes, with the new keys.
create or replace function manette.panel_defaults() returns jsonb
language sql
immutable
set search_path = ''
as $$
  select jsonb_build_object(
    'theme', jsonb_build_object(
      'couleur_primaire',    '#6c5ce7',
      'couleur_secondaire',  '#a29bfe',
      'couleur_fond',        '#ffffff',
      'couleur_surface',     '#f5f6fa',
      'couleur_texte',       '#2d3436',
      'couleur_texte_doux',  '#636e72',
      'couleur_erreur',      '#d63031',
      'couleur_succes',      '#00b894',
      'police',              'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
      'rayon_bordure',       '8px',
      'logo_url',            null),
    'textes', jsonb_build_object(
      'connexion_titre',          'Connexion',
      'connexion_identifiant',    'Pseudo ou e-mail',
      'connexion_mot_de_passe',   'Mot de passe',
      'connexion_bouton',         'Se connecter',
      'connexion_google',         'Continuer avec Google',
      'connexion_vers_inscription', 'Pas encore de compte ? Inscris-toi',
      'inscription_titre',        'Créer un compte',
      'inscription_pseudo',       'Pseudo',
      'inscription_email',        'E-mail',
      'inscription_mot_de_passe', 'Mot de passe (8 caractères au moins)',
      'inscription_bouton',       'Créer mon compte',
      'inscription_vers_connexion', 'Déjà un compte ? Connecte-toi',
      'deconnexion_bouton',       'Se déconnecter',
      'matchmaking_titre',        'Trouver une partie',
      'matchmaking_mode',         'Mode de jeu',
      'matchmaking_bouton',       'Jouer',
      'matchmaking_attente',      'Recherche d’adversaires…',
      'matchmaking_position',     'Position dans la file : {position}',
      'matchmaking_annuler',      'Annuler',
      'matchmaking_trouve',       'Partie trouvée !',
      'matchmaking_code_salon',   'Code du salon : {code_salon}')
    || jsonb_build_object(
      'connexion_invite',                 'Jouer sans compte',
      'connexion_oubli',                  'Mot de passe oublié ?',
      'oubli_titre',                      'Mot de passe oublié',
      'oubli_explication',                'Indique l’e-mail de ton compte : tu y recevras un code pour choisir un nouveau mot de passe.',
      'oubli_bouton',                     'Recevoir un code',
      'oubli_envoye',                     'Si un compte existe pour {email}, un code vient d’y être envoyé. Il est valable 30 minutes.',
      'reinitialisation_titre',           'Nouveau mot de passe',
      'reinitialisation_code',            'Code reçu par e-mail (8 chiffres)',
      'reinitialisation_mot_de_passe',    'Nouveau mot de passe (8 caractères au moins)',
      'reinitialisation_bouton',          'Changer le mot de passe',
      'reinitialisation_renvoyer',        'Pas de code ? En demander un autre',
      'reinitialisation_reussie',         'Mot de passe changé. Connecte-toi avec le nouveau.',
      'retour_connexion',                 'Retour à la connexion',
      'invite_connecte',                  'Tu joues en invité : {pseudo}',
      'invite_explication',               'Ta progression est gardée sur cet appareil seulement. Lie un compte pour la retrouver partout.',
      'lier_titre',                       'Lier un compte',
      'lier_pseudo',                      'Pseudo (facultatif)',
      'lier_bouton',                      'Lier mon compte',
      'lier_annuler',                     'Plus tard',
      'lier_reussi',                      'Compte lié : ta progression est gardée.'))
$$;

-- English: the same keys.
create or replace function manette.panel_default_texts(lang text) returns jsonb
language sql
immutable
set search_path = ''
as $$
  select case when lang = 'en' then jsonb_build_object(
      'connexion_titre',          'Sign in',
      'connexion_identifiant',    'Username or email',
      'connexion_mot_de_passe',   'Password',
      'connexion_bouton',         'Sign in',
      'connexion_google',         'Continue with Google',
      'connexion_vers_inscription', 'No account yet? Sign up',
      'inscription_titre',        'Create an account',
      'inscription_pseudo',       'Username',
      'inscription_email',        'Email',
      'inscription_mot_de_passe', 'Password (at least 8 characters)',
      'inscription_bouton',       'Create my account',
      'inscription_vers_connexion', 'Already have an account? Sign in',
      'deconnexion_bouton',       'Sign out',
      'matchmaking_titre',        'Find a match',
      'matchmaking_mode',         'Game mode',
      'matchmaking_bouton',       'Play',
      'matchmaking_attente',      'Looking for opponents…',
      'matchmaking_position',     'Position in queue: {position}',
      'matchmaking_annuler',      'Cancel',
      'matchmaking_trouve',       'Match found!',
      'matchmaking_code_salon',   'Room code: {code_salon}')
    || jsonb_build_object(
      'connexion_invite',                 'Play without an account',
      'connexion_oubli',                  'Forgot your password?',
      'oubli_titre',                      'Forgot password',
      'oubli_explication',                'Enter your account’s email: you will receive a code there to choose a new password.',
      'oubli_bouton',                     'Get a code',
      'oubli_envoye',                     'If an account exists for {email}, a code has just been sent to it. It is valid for 30 minutes.',
      'reinitialisation_titre',           'New password',
      'reinitialisation_code',            'Code from the email (8 digits)',
      'reinitialisation_mot_de_passe',    'New password (at least 8 characters)',
      'reinitialisation_bouton',          'Change password',
      'reinitialisation_renvoyer',        'No code? Ask for another one',
      'reinitialisation_reussie',         'Password changed. Sign in with the new one.',
      'retour_connexion',                 'Back to sign in',
      'invite_connecte',                  'Playing as a guest: {pseudo}',
      'invite_explication',               'Your progress is kept on this device only. Link an account to find it everywhere.',
      'lier_titre',                       'Link an account',
      'lier_pseudo',                      'Username (optional)',
      'lier_bouton',                      'Link my account',
      'lier_annuler',                     'Not now',
      'lier_reussi',                      'Account linked: your progress is saved.')
    else manette.panel_defaults()->'textes' end
$$;
