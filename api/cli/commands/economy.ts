// `manette economy grant|revoke <jeu> <joueur> (--monnaie <code> <n> | --objet <code> <n>)...
// --raison "..."`: support's corrections of a player's balances and inventory. One call of
// manette_admin.economy_grant (revoke = negative deltas): manette.economy_apply with reason
// `support`, audited with the wallet and inventory before and after (docs/admin.md, Economy).
import type { Command } from 'commander';
import { CliError } from '../database.js';
import { say } from '../locale.js';
import { adminCall, answer, jsonHelp, textTable, type CommandContext } from '../output.js';
import type { Lang } from '../../http/messages.js';

interface Balance { code: string; nom: string; solde: number; max: number | null }
interface Held { code: string; nom: string; quantite: number }
export interface EconomyGranted { joueur_id: string; pseudo: string; portefeuille: Balance[]; inventaire: Held[] }
type Movement = { monnaie: string; delta: number } | { objet: string; delta: number };

const CODE = /^[A-Za-z0-9_.-]{1,64}$/;

/** The movements of `--monnaie c n` / `--objet c n` pairs, signed (revoke: negative). */
export function economyMovements(monnaies: string[], objets: string[], sign: 1 | -1, lang: Lang): Movement[] {
  const out: Movement[] = [];
  for (const [kind, values] of [['monnaie', monnaies], ['objet', objets]] as const) {
    if (values.length % 2 !== 0) {
      throw new CliError(say({ fr: '--{k} attend un code puis un nombre', en: '--{k} expects a code then a number' }, lang, { k: kind }));
    }
    for (let i = 0; i < values.length; i += 2) {
      const code = values[i]!;
      const n = values[i + 1]!;
      if (!CODE.test(code)) {
        throw new CliError(say({ fr: 'code invalide : {c}', en: 'invalid code: {c}' }, lang, { c: code }));
      }
      if (!/^[1-9][0-9]{0,12}$/.test(n) || Number(n) > 1e12) {
        throw new CliError(say({ fr: 'nombre entier de 1 à 10^12 attendu : {n}', en: 'an integer from 1 to 10^12 expected: {n}' }, lang, { n }));
      }
      out.push(kind === 'monnaie' ? { monnaie: code, delta: sign * Number(n) } : { objet: code, delta: sign * Number(n) });
    }
  }
  if (out.length === 0) {
    throw new CliError(say({ fr: 'au moins un --monnaie <code> <n> ou --objet <code> <n>', en: 'at least one --monnaie <code> <n> or --objet <code> <n>' }, lang));
  }
  return out;
}

export function registerEconomy(program: Command, ctx: CommandContext): void {
  const fr = ctx.lang === 'fr';
  const economy = program.command('economy')
    .description(fr ? 'l’économie d’un joueur : créditer ou retirer monnaies et objets (support, audité)'
      : 'a player’s economy: grant or revoke currencies and objects (support, audited)');

  for (const [name, sign] of [['grant', 1], ['revoke', -1]] as const) {
    economy.command(name)
      .argument('<jeu>', fr ? 'le jeu (son identifiant, `jeu` du fichier de configuration)' : 'the game (its slug, `jeu` in its config file)')
      .argument('<joueur>', fr ? 'le joueur : id, e-mail ou pseudo' : 'the player: id, e-mail or pseudo')
      .option('--monnaie <code-n...>', fr ? 'une monnaie et un nombre (répétable)' : 'a currency and an amount (repeatable)')
      .option('--objet <code-n...>', fr ? 'un objet et un nombre (répétable)' : 'an object and a quantity (repeatable)')
      .requiredOption('--raison <texte>', fr ? 'pourquoi (gardé dans le journal et l’audit)' : 'why (kept in the ledger and the audit)')
      .option('--json', jsonHelp(ctx.lang))
      .description(sign > 0
        ? (fr ? 'crédite des monnaies ou des objets (au-delà d’un plafond : refusé, rien ne change)'
          : 'grant currencies or objects (past a cap: refused, nothing changes)')
        : (fr ? 'retire des monnaies ou des objets (plus que le solde : refusé, rien ne change)'
          : 'revoke currencies or objects (more than the balance: refused, nothing changes)'))
      .action(async (jeu: string, joueur: string, opts: { monnaie?: string[]; objet?: string[]; raison: string; json?: boolean }) => {
        await answer(ctx, !!opts.json, async () => {
          const movements = economyMovements(opts.monnaie ?? [], opts.objet ?? [], sign, ctx.lang);
          return adminCall<EconomyGranted>(ctx, 'select manette_admin.economy_grant($1, $2, $3::jsonb, $4) as r',
            [jeu, joueur, JSON.stringify(movements), opts.raison]);
        }, (r) => [
          say({ fr: 'Fait pour {p} ({id}).', en: 'Done for {p} ({id}).' }, ctx.lang, { p: r.pseudo, id: r.joueur_id }),
          '',
          textTable(fr ? ['MONNAIE', 'SOLDE', 'MAX'] : ['CURRENCY', 'BALANCE', 'MAX'], r.portefeuille.map((b) => [b.code, b.solde, b.max])),
          '',
          r.inventaire.length === 0
            ? say({ fr: 'Inventaire vide.', en: 'Empty inventory.' }, ctx.lang)
            : textTable(fr ? ['OBJET', 'QUANTITÉ'] : ['OBJECT', 'QUANTITY'], r.inventaire.map((i) => [i.code, i.quantite])),
        ].join('\n'));
      });
  }
}
