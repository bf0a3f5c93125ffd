// `manette match show <jeu> <match id | code salon>`: a match and its whole history of
// actions, in order (one call of manette_admin.match_show).
// `manette match end <jeu> <match id | code salon> (--gagnant <joueur_id> | --nul) [--raison <texte>]`
// and `manette match cancel <jeu> <match id | code salon> [--raison <texte>]`: the operator
// ends a match in progress with a result, or cancels it without one (manette_admin.match_end /
// match_cancel: audited with the reason, broadcast to the match's room). A match is named
// the same way by every command: the game, then the match's id or room code (resolved as
// `show` does); a lone id, as earlier versions took it, is still accepted.
import type { Command } from 'commander';
import { CliError } from '../database.js';
import { say } from '../locale.js';
import { adminCall, answer, jsonHelp, textFields, textTable, type CommandContext } from '../output.js';

export interface MatchDetail {
  id: string; mode_jeu: string; regles: string; statut: string; tour_joueur: string | null; numero_tour: number;
  etat_plateau: unknown; code_salon: string; gagnant_id: string | null; gagnant_equipe: number | null;
  cree_le: string; maj_le: string; termine_le: string | null;
  /** false: ended before the mode's actions_min (docs/matches.md, Matches that count): nothing paid, rated or credited. */
  comptee?: boolean | null;
  participants: { joueur_id: string; pseudo: string; equipe: number; place: number; elo: number | null }[];
  actions: { seq: number; joueur_id: string | null; pseudo: string | null; action: string; donnees: unknown; numero_tour: number; joue_le: string }[];
}

/** What match end / cancel answer: the match as players now read it, and the history row added. */
export interface MatchStopped {
  partie: Omit<MatchDetail, 'regles' | 'actions' | 'participants'> & { participants: { joueur_id: string; pseudo: string; equipe: number; elo: number | null }[] };
  action: { numero: number; joueur_id: null; action: 'fin_admin' | 'annulation_admin'; donnees: Record<string, unknown>; numero_tour: number; cree_le: string };
}

export function registerMatch(program: Command, ctx: CommandContext): void {
  const fr = ctx.lang === 'fr';
  const match = program.command('match').description(fr ? 'les parties d’un jeu' : 'a game’s matches');

  const gameArg = fr ? 'le jeu (son identifiant, `jeu` du fichier de configuration)' : 'the game (its slug, `jeu` in its config file)';
  const matchRef = fr
    ? 'la partie en cours : son id, ou son code salon'
    : 'the match in progress: its id, or its room code';
  /** The match, in one statement: resolved in the game as `show` does, or a lone id (the earlier form). */
  const stop = <T>(fn: string, jeu: string, ref: string | undefined, rest: unknown[]) => {
    const args = rest.map((_, i) => `, $${i + 3}`).join('');
    return ref === undefined
      ? adminCall<T>(ctx, `select manette_admin.${fn}($1${args.replace(/\$(\d+)/g, (_m, n: string) => `$${Number(n) - 1}`)}) as r`, [jeu, ...rest])
      : adminCall<T>(ctx, `select manette_admin.${fn}(manette_admin.match_show($1, $2)->>'id'${args}) as r`, [jeu, ref, ...rest]);
  };
  match.command('show')
    .argument('<jeu>', gameArg)
    .argument('<match>', fr
      ? 'l’id de la partie, ou son code salon (la partie en cours avec ce code, sinon la plus récente)'
      : 'the match id, or its room code (the match in progress with that code, else the most recent one)')
    .option('--json', jsonHelp(ctx.lang))
    .description(fr ? 'affiche une partie, ses participants et tout son historique d’actions' : 'show a match, its participants and its whole history of actions')
    .action(async (jeu: string, ref: string, opts: { json?: boolean }) => {
      await answer(ctx, !!opts.json, () => adminCall<MatchDetail>(ctx, 'select manette_admin.match_show($1, $2) as r', [jeu, ref]),
        (m) => renderMatch(m, fr));
    });

  const reason = fr
    ? 'pourquoi (inscrit au journal d’audit manette.admin_audit, jamais montré aux joueurs ; 1000 caractères au plus)'
    : 'why (written to the audit trail manette.admin_audit, never shown to players; at most 1000 characters)';

  match.command('end')
    .argument('<jeu>', gameArg)
    .argument('[match]', matchRef)
    .option('--gagnant <joueur_id>', fr ? 'le joueur gagnant (un participant) : son équipe gagne' : 'the winning player (a participant): their team wins')
    .option('--nul', fr ? 'match nul : aucun gagnant' : 'a draw: no winner')
    .option('--raison <texte>', reason)
    .option('--json', jsonHelp(ctx.lang))
    .description(fr
      ? 'termine une partie en cours avec un résultat (--gagnant ou --nul) : victoire comptée, joueurs libérés, etat diffusé'
      : 'end a match in progress with a result (--gagnant or --nul): win counted, players freed, etat broadcast')
    .action(async (jeu: string, ref: string | undefined, opts: { gagnant?: string; nul?: boolean; raison?: string; json?: boolean }) => {
      await answer(ctx, !!opts.json, async () => {
        if (!!opts.nul === (opts.gagnant !== undefined)) {
          throw new CliError(say({ fr: 'précise --gagnant <joueur_id> ou --nul (l’un des deux)', en: 'give --gagnant <joueur_id> or --nul (one of them)' }, ctx.lang));
        }
        return stop<MatchStopped>('match_end', jeu, ref, [opts.gagnant ?? null, !!opts.nul, opts.raison ?? null]);
      }, (r) => renderStopped(r, ctx.lang));
    });

  match.command('cancel')
    .argument('<jeu>', gameArg)
    .argument('[match]', matchRef)
    .option('--raison <texte>', reason)
    .option('--json', jsonHelp(ctx.lang))
    .description(fr
      ? 'annule une partie en cours, sans résultat : aucune victoire comptée, joueurs libérés, etat diffusé'
      : 'cancel a match in progress, without a result: no win counted, players freed, etat broadcast')
    .action(async (jeu: string, ref: string | undefined, opts: { raison?: string; json?: boolean }) => {
      await answer(ctx, !!opts.json, () => stop<MatchStopped>('match_cancel', jeu, ref, [opts.raison ?? null]),
        (r) => renderStopped(r, ctx.lang));
    });
}

function renderStopped(r: MatchStopped, lang: 'fr' | 'en'): string {
  const p = r.partie;
  if (p.statut === 'annulee') {
    return say({
      fr: 'Partie {id} annulée : aucune victoire comptée, ses joueurs sont libres de rejouer.',
      en: 'Match {id} cancelled: no win counted, its players are free to play again.',
    }, lang, { id: p.id });
  }
  return endText(p, lang) + (p.comptee === false ? say({
    fr: ' Terminée avant l’actions_min du mode : ni récompense, ni Elo, ni victoire.',
    en: ' It ended before the mode’s actions_min: no reward, rating change or win.',
  }, lang) : '');
}

function endText(p: MatchStopped['partie'], lang: 'fr' | 'en'): string {
  if (p.gagnant_id === null) {
    return say({
      fr: 'Partie {id} terminée : match nul. Ses joueurs sont libres de rejouer.',
      en: 'Match {id} ended: a draw. Its players are free to play again.',
    }, lang, { id: p.id });
  }
  const winner = p.participants.find((x) => x.joueur_id === p.gagnant_id)?.pseudo ?? p.gagnant_id;
  return say({
    fr: 'Partie {id} terminée : {pseudo} gagne (équipe {equipe}). Ses joueurs sont libres de rejouer.',
    en: 'Match {id} ended: {pseudo} wins (team {equipe}). Its players are free to play again.',
  }, lang, { id: p.id, pseudo: winner, equipe: p.gagnant_equipe ?? '—' });
}

function renderMatch(m: MatchDetail, fr: boolean): string {
  const pseudo = (id: string | null) => (id === null ? null : m.participants.find((p) => p.joueur_id === id)?.pseudo ?? id);
  const winner = m.gagnant_id !== null
    ? `${pseudo(m.gagnant_id)}${m.gagnant_equipe !== null ? ` (${fr ? 'équipe' : 'team'} ${m.gagnant_equipe})` : ''}`
    : m.gagnant_equipe !== null ? `${fr ? 'équipe' : 'team'} ${m.gagnant_equipe}` : null;
  const head = textFields([
    [fr ? 'partie' : 'match', m.id],
    ['mode', `${m.mode_jeu} (${fr ? 'règles' : 'rules'} ${m.regles})`],
    [fr ? 'statut' : 'status', statusText(m.statut, fr)],
    [fr ? 'tour' : 'turn', `${m.numero_tour}${m.tour_joueur !== null ? ` (${pseudo(m.tour_joueur)})` : ''}`],
    [fr ? 'code salon' : 'room code', m.code_salon],
    [fr ? 'gagnant' : 'winner', winner],
    ...(m.comptee === false
      ? [[fr ? 'comptée' : 'counted', fr ? 'non (avant l’actions_min du mode : ni récompense, ni Elo, ni victoire)'
        : 'no (before the mode’s actions_min: no reward, rating change or win)'] as [string, string]]
      : []),
    [fr ? 'créée le' : 'created', m.cree_le],
    [fr ? 'terminée le' : 'ended', m.termine_le],
    [fr ? 'plateau' : 'board', JSON.stringify(m.etat_plateau)],
  ]);
  const participants = textTable(
    fr ? ['PLACE', 'ÉQUIPE', 'PSEUDO', 'ELO', 'ID'] : ['SEAT', 'TEAM', 'PSEUDO', 'ELO', 'ID'],
    // ELO: the rating at the start of the match, to two decimals here (exact in --json).
    m.participants.map((p) => [p.place, p.equipe, p.pseudo, p.elo === null ? null : Math.round(p.elo * 100) / 100, p.joueur_id]));
  const actions = m.actions.length === 0
    ? (fr ? 'Aucune action jouée.' : 'No action played.')
    : textTable(
      fr ? ['N°', 'TOUR', 'JOUEUR', 'ACTION', 'JOUÉE LE', 'DONNÉES'] : ['#', 'TURN', 'PLAYER', 'ACTION', 'PLAYED', 'DATA'],
      m.actions.map((a) => [a.seq, a.numero_tour, a.pseudo ?? a.joueur_id, a.action, a.joue_le, JSON.stringify(a.donnees)]));
  return [head, '', say({ fr: 'Participants ({n})', en: 'Participants ({n})' }, fr ? 'fr' : 'en', { n: m.participants.length }), participants,
    '', say({ fr: 'Actions ({n})', en: 'Actions ({n})' }, fr ? 'fr' : 'en', { n: m.actions.length }), actions].join('\n');
}

/** A match's status for a person, in their language, with the wire value (`--json` has it alone). */
function statusText(statut: string, fr: boolean): string {
  const words: Record<string, [string, string]> = {
    en_cours: ['en cours', 'in progress'], terminee: ['terminée', 'finished'], annulee: ['annulée', 'cancelled'],
  };
  const w = words[statut];
  return w ? `${w[fr ? 0 : 1]} (${statut})` : statut;
}
