// `manette players find|revoke-sessions <jeu> <pseudo|email|id>`: a player as support
// needs to see them, and logging them out everywhere. `manette players ban <jeu> <joueur>
// [--jusqu-a <date>] --raison "..."` and `unban`: a suspension (docs/accounts.md, Bans).
// One call of manette_admin.players_* each.
import type { Command } from 'commander';
import type { Lang } from '../../http/messages.js';
import { CliError } from '../database.js';
import { say } from '../locale.js';
import { adminCall, answer, jsonHelp, textFields, type CommandContext } from '../output.js';

export interface PlayerCard {
  id: string; pseudo: string; email: string | null; pays: string | null; cree_le: string;
  invite: boolean; suspension: { depuis: string; jusqu_a: string | null; raison: string } | null; supprime_le: string | null;
  sessions_actives: number; derniere_utilisation: string | null;
  partie_en_cours: { id: string; mode_jeu: string; code_salon: string; cree_le: string } | null;
  parties: number;
}
export interface SessionsRevoked { id: string; pseudo: string; sessions_revoquees: number }
export interface Banned {
  id: string; pseudo: string; suspendu_le: string; jusqu_a: string | null; raison: string;
  sessions_revoquees: number; parties_abandonnees: number;
}
export interface Unbanned { id: string; pseudo: string; etait_suspendu: boolean }

/**
 * `--jusqu-a`: an ISO 8601 date (midnight UTC) or date-time (UTC when it names no zone),
 * in the future. Anything else is refused here, before the database is touched.
 */
export function banEnd(text: string, lang: Lang, now = new Date()): Date {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/i.exec(text.trim());
  const bad = () => new CliError(say({
    fr: '--jusqu-a : date ISO 8601 attendue, ex. 2026-12-31 (minuit UTC) ou 2026-12-31T18:00:00Z ; reçu « {v} »',
    en: '--jusqu-a: an ISO 8601 date expected, e.g. 2026-12-31 (midnight UTC) or 2026-12-31T18:00:00Z; got "{v}"',
  }, lang, { v: text }));
  if (!m) throw bad();
  const [, y, mo, d, h = '00', mi = '00', sec = '00', frac = '', zone = 'Z'] = m;
  // The calendar: 2026-02-30 or 25:00 is not a date (Date would roll it over).
  const day = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(sec)));
  if (day.getUTCFullYear() !== Number(y) || day.getUTCMonth() !== Number(mo) - 1 || day.getUTCDate() !== Number(d)
    || day.getUTCHours() !== Number(h) || day.getUTCMinutes() !== Number(mi) || day.getUTCSeconds() !== Number(sec)) throw bad();
  const offset = zone.toUpperCase() === 'Z' ? 0
    : (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(-2)));
  if (Math.abs(offset) > 18 * 60) throw bad();
  const at = new Date(day.getTime() - offset * 60_000 + Number(`0.${frac || '0'}`) * 1000);
  if (at.getTime() <= now.getTime()) {
    throw new CliError(say({
      fr: '--jusqu-a : {d} est déjà passé ; une date à venir est attendue (sans --jusqu-a : jusqu’à `manette players unban`). Rien n’a changé.',
      en: '--jusqu-a: {d} is already past; a date in the future is expected (without --jusqu-a: until `manette players unban`). Nothing changed.',
    }, lang, { d: at.toISOString() }));
  }
  return at;
}

export function registerPlayers(program: Command, ctx: CommandContext): void {
  const fr = ctx.lang === 'fr';
  const game = fr ? 'le jeu (son identifiant, `jeu` du fichier de configuration)' : 'the game (its slug, `jeu` in its config file)';
  const who = fr ? 'le joueur : pseudo ou e-mail (sans tenir compte de la casse), ou id' : 'the player: pseudo or e-mail (any case), or id';
  const players = program.command('players')
    .description(fr ? 'les joueurs d’un jeu : fiche, déconnexion partout, suspension' : 'a game’s players: details, log out everywhere, suspension');

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
          [fr ? 'invité' : 'guest', p.invite ? (fr ? 'oui' : 'yes') : (fr ? 'non' : 'no')],
          [fr ? 'suspendu' : 'suspended', p.suspension && say({
            fr: 'depuis {depuis}, {fin} : {raison}', en: 'since {depuis}, {fin}: {raison}',
          }, ctx.lang, { depuis: p.suspension.depuis, raison: p.suspension.raison,
            fin: p.suspension.jusqu_a ? say({ fr: 'jusqu’au {d}', en: 'until {d}' }, ctx.lang, { d: p.suspension.jusqu_a })
              : (fr ? 'jusqu’à unban' : 'until unban') })],
          [fr ? 'supprimé le' : 'deleted', p.supprime_le],
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

  players.command('ban')
    .argument('<jeu>', game)
    .argument('<who>', who)
    .option('--jusqu-a <date>', fr
      ? 'fin de la suspension : date ISO 8601 (2026-12-31 = minuit UTC, ou 2026-12-31T18:00:00Z) ; sans elle, jusqu’à unban'
      : 'end of the suspension: an ISO 8601 date (2026-12-31 = midnight UTC, or 2026-12-31T18:00:00Z); without it, until unban')
    .requiredOption('--raison <texte>', fr ? 'pourquoi, de 1 à 1000 caractères (gardé dans l’audit et montré par la console)' : 'why, 1 to 1000 characters (kept in the audit, shown by the console)')
    .option('--json', jsonHelp(ctx.lang))
    .description(fr
      ? 'suspend le joueur : sessions révoquées, file d’attente quittée, partie en cours abandonnée ; toute connexion refusée (403 compte_suspendu) jusqu’à la date ou unban'
      : 'suspend the player: sessions revoked, queue left, match in progress abandoned; every login refused (403 compte_suspendu) until the date or unban')
    .action(async (jeu: string, ref: string, opts: { jusquA?: string; raison: string; json?: boolean }) => {
      await answer(ctx, !!opts.json, async () => {
        const until = opts.jusquA === undefined ? null : banEnd(opts.jusquA, ctx.lang);
        return adminCall<Banned>(ctx, 'select manette_admin.players_ban($1, $2, $3, $4) as r', [jeu, ref, until?.toISOString() ?? null, opts.raison]);
      }, (r) => [
        r.jusqu_a
          ? say({ fr: '{pseudo} ({id}) est suspendu jusqu’au {d}.', en: '{pseudo} ({id}) is suspended until {d}.' }, ctx.lang, { pseudo: r.pseudo, id: r.id, d: r.jusqu_a })
          : say({ fr: '{pseudo} ({id}) est suspendu jusqu’à `manette players unban`.', en: '{pseudo} ({id}) is suspended until `manette players unban`.' }, ctx.lang, { pseudo: r.pseudo, id: r.id }),
        say({
          fr: '{n} session(s) révoquée(s), {m} partie(s) abandonnée(s) ; ses connexions sont refusées (403 compte_suspendu).',
          en: '{n} session(s) revoked, {m} match(es) abandoned; its logins are refused (403 compte_suspendu).',
        }, ctx.lang, { n: r.sessions_revoquees, m: r.parties_abandonnees }),
      ].join('\n'));
    });

  players.command('unban')
    .argument('<jeu>', game)
    .argument('<who>', who)
    .option('--json', jsonHelp(ctx.lang))
    .description(fr ? 'lève la suspension du joueur : il peut se connecter de nouveau' : 'lift the player’s suspension: it can log in again')
    .action(async (jeu: string, ref: string, opts: { json?: boolean }) => {
      await answer(ctx, !!opts.json, () => adminCall<Unbanned>(ctx, 'select manette_admin.players_unban($1, $2) as r', [jeu, ref]),
        (r) => r.etait_suspendu
          ? say({ fr: 'Suspension de {pseudo} ({id}) levée : il peut se connecter de nouveau.', en: '{pseudo} ({id}) is no longer suspended: it can log in again.' },
            ctx.lang, { pseudo: r.pseudo, id: r.id })
          : say({ fr: '{pseudo} ({id}) n’était pas suspendu : rien n’a changé.', en: '{pseudo} ({id}) was not suspended: nothing changed.' },
            ctx.lang, { pseudo: r.pseudo, id: r.id }));
    });
}
