-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.panel_defaults()
-- Current definition from supabase/migrations/20261130000600_panel_account_texts.sql
-- Earlier versions in: 20261122000600_shop_panel.sql
-- Called by: api.panel_get, manette.panel_default_texts, manette_admin.console_panel
CREATE OR REPLACE FUNCTION manette.panel_defaults()
 RETURNS jsonb
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$
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
$function$;
alter function manette.panel_defaults() owner to postgres;
revoke all on function manette.panel_defaults() from public;
grant execute on function manette.panel_defaults() to manette_admin;
grant execute on function manette.panel_defaults() to manette_engine;
