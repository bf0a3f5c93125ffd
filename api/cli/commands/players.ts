// `manette players find|revoke-sessions <jeu> <pseudo|email|id>`: a player as support
// needs to see them, and logging them out everywhere. One call of manette_admin.players_* each.
import type { Command } from 'commander';
import { say } from '../locale.js';
import { adminCall, answer, jsonHelp, textFields, type CommandContext } from '../output.js';

export interface PlayerCard {
  id: string; pseudo: string; email: string | null; pays: string | null; cree_le: string;
  sessions_actives: number; derniere_utilisation: string | null;
  partie_en_cours: { id: string; mode_jeu: string; code_salon: string; cree_le: string } | null;
  parties: number;
}
export interface SessionsRevoked { id: string; pseudo: string; sessions_revoquees: number }

export function registerPlayers(program: Command, ctx: CommandContext): void {
  const fr = ctx.lang === 'fr';
  const game = fr ? 'le jeu (son identifiant, `jeu` du fichier de configuration)' : 'the game (its slug, `jeu` in its config file)';
  const who = fr ? 'le joueur : pseudo ou e-mail (sans tenir compte de la casse), ou id' : 'the player: pseudo or e-mail (any case), or id';
  const players = program.command('players')
    .description(fr ? 'les joueurs d’un jeu : fiche, déconnexion partout' : 'a game’s players: details, log out everywhere');

  players.command('find')
    .argument('<jeu>', game)
    .argument('<who>', who)
    .option('--json', jsonHelp(ctx.lang))
    .description(fr ? 'affiche un joueur : sessions, partie en cours, nombre de parties' : 'show a player: sessions, match in progress, number of matches')
    .action(async (jeu: string, ref: string, opts: { json?: boolean }) => {
      await answer(ctx, !!opts.json, () => adminCall<PlayerCard>(ctx, 'select manette_admin.players_find($1, $2) as r', [jeu, ref]), (p) => {
        const live = p.partie_en_cours;
        return textFields([
          ['id', p.id],
          ['pseudo', p.pseudo],
          ['e-mail', p.email],
          [fr ? 'pays' : 'country', p.pays],
          [fr ? 'inscrit le' : 'created', p.cree_le],
          [fr ? 'sessions actives' : 'active sessions', p.sessions_actives],
          [fr ? 'dernière utilisation' : 'last used', p.derniere_utilisation],
          [fr ? 'partie en cours' : 'match in progress', live && say({ fr: '{id} (mode {mode}, salon {code})', en: '{id} (mode {mode}, room {code})' },
            ctx.lang, { id: live.id, mode: live.mode_jeu, code: live.code_salon })],
          [fr ? 'parties' : 'matches', p.parties],
        ]);
      });
    });

  players.command('revoke-sessions')
    .argument('<jeu>', game)
    .argument('<who>', who)
    .option('--json', jsonHelp(ctx.lang))
    .description(fr
      ? 'déconnecte le joueur partout : ses jetons sont refusés aussitôt (401 invalid_token)'
      : 'log the player out everywhere: its tokens are refused at once (401 invalid_token)')
    .action(async (jeu: string, ref: string, opts: { json?: boolean }) => {
      await answer(ctx, !!opts.json, () => adminCall<SessionsRevoked>(ctx, 'select manette_admin.players_revoke_sessions($1, $2) as r', [jeu, ref]),
        (r) => r.sessions_revoquees === 0
          ? say({ fr: '{pseudo} ({id}) n’avait aucune session active : rien n’a changé.', en: '{pseudo} ({id}) had no active session: nothing changed.' },
            ctx.lang, { pseudo: r.pseudo, id: r.id })
          : say({
            fr: '{n} session(s) révoquée(s) pour {pseudo} ({id}) : ses jetons sont refusés dès maintenant.',
            en: '{n} session(s) revoked for {pseudo} ({id}): its tokens are refused from now on.',
          }, ctx.lang, { n: r.sessions_revoquees, pseudo: r.pseudo, id: r.id }));
    });
}
