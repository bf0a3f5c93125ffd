-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.panel_default_texts(lang text)
-- Current definition from supabase/migrations/20261130000600_panel_account_texts.sql
-- Earlier versions in: 20261123000700_victory_leaderboard.sql
-- Calls: manette.panel_defaults
-- Called by: api.panel_get, manette_admin.console_panel
CREATE OR REPLACE FUNCTION manette.panel_default_texts(lang text)
 RETURNS jsonb
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$
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
$function$;
alter function manette.panel_default_texts(text) owner to postgres;
revoke all on function manette.panel_default_texts(text) from public;
grant execute on function manette.panel_default_texts(text) to manette_admin;
grant execute on function manette.panel_default_texts(text) to manette_engine;
