// Default texts of the panels. The keys are GET /panel's `textes` keys
// (manette.panel_defaults()); the last few are the SDK's own, which a game may set too.
export type Lang = 'fr' | 'en';
export type Texts = Record<string, string>;

export const DEFAULT_TEXTS: Record<Lang, Texts> = {
  fr: {
    connexion_titre: 'Connexion',
    connexion_identifiant: 'Pseudo ou e-mail',
    connexion_mot_de_passe: 'Mot de passe',
    connexion_bouton: 'Se connecter',
    connexion_google: 'Continuer avec Google',
    connexion_vers_inscription: 'Pas encore de compte ? Inscris-toi',
    inscription_titre: 'Créer un compte',
    inscription_pseudo: 'Pseudo',
    inscription_email: 'E-mail',
    inscription_mot_de_passe: 'Mot de passe (8 caractères au moins)',
    inscription_bouton: 'Créer mon compte',
    inscription_vers_connexion: 'Déjà un compte ? Connecte-toi',
    deconnexion_bouton: 'Se déconnecter',
    matchmaking_titre: 'Trouver une partie',
    matchmaking_mode: 'Mode de jeu',
    matchmaking_bouton: 'Jouer',
    matchmaking_attente: 'Recherche d’adversaires…',
    matchmaking_position: 'Position dans la file : {position}',
    matchmaking_annuler: 'Annuler',
    matchmaking_trouve: 'Partie trouvée !',
    matchmaking_code_salon: 'Code du salon : {code_salon}',
    // SDK-only keys.
    connecte_en_tant_que: 'Connecté en tant que {pseudo}',
    ou: 'ou',
    matchmaking_connexion_requise: 'Connecte-toi pour chercher une partie.',
    matchmaking_adversaires: 'Joueurs : {pseudos}',
    matchmaking_abandonne: 'Tu n’es plus dans la file.',
  },
  en: {
    connexion_titre: 'Sign in',
    connexion_identifiant: 'Username or email',
    connexion_mot_de_passe: 'Password',
    connexion_bouton: 'Sign in',
    connexion_google: 'Continue with Google',
    connexion_vers_inscription: 'No account yet? Sign up',
    inscription_titre: 'Create an account',
    inscription_pseudo: 'Username',
    inscription_email: 'Email',
    inscription_mot_de_passe: 'Password (at least 8 characters)',
    inscription_bouton: 'Create my account',
    inscription_vers_connexion: 'Already have an account? Sign in',
    deconnexion_bouton: 'Sign out',
    matchmaking_titre: 'Find a match',
    matchmaking_mode: 'Game mode',
    matchmaking_bouton: 'Play',
    matchmaking_attente: 'Looking for opponents…',
    matchmaking_position: 'Position in queue: {position}',
    matchmaking_annuler: 'Cancel',
    matchmaking_trouve: 'Match found!',
    matchmaking_code_salon: 'Room code: {code_salon}',
    connecte_en_tant_que: 'Signed in as {pseudo}',
    ou: 'or',
    matchmaking_connexion_requise: 'Sign in to find a match.',
    matchmaking_adversaires: 'Players: {pseudos}',
    matchmaking_abandonne: 'You are no longer in the queue.',
  },
};

/** `{name}` placeholders replaced by `vars` (unknown ones are left as they are). */
export function format(text: string, vars: Record<string, string | number> = {}): string {
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in vars ? String(vars[name]) : whole));
}
