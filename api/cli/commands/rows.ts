// `manette rows delete <jeu> <table> (--id <id>... | --all)`: deletes rows of a server
// table (ecriture: serveur), all or nothing, audited. One call of manette_admin.table_rows_delete.
import type { Command } from 'commander';
import { CliError } from '../database.js';
import { say } from '../locale.js';
import { adminCall, answer, jsonHelp, type CommandContext } from '../output.js';

export interface RowsDeleted { jeu: string; table: string; supprimees: number; ids: string[] }

export function registerRows(program: Command, ctx: CommandContext): void {
  const fr = ctx.lang === 'fr';
  const rows = program.command('rows')
    .description(fr ? 'les lignes d’une table du jeu écrite par le serveur (ecriture: serveur)' : 'the rows of a server table of the game (ecriture: serveur)');

  rows.command('delete')
    .argument('<jeu>', fr ? 'le jeu (son identifiant, `jeu` du fichier de configuration)' : 'the game (its slug, `jeu` in its config file)')
    .argument('<table>', fr ? 'la table de données (ecriture: serveur)' : 'the data table (ecriture: serveur)')
    .option('--id <id...>', fr ? 'les lignes à supprimer, par id (toutes doivent exister)' : 'the rows to delete, by id (all must exist)')
    .option('--all', fr ? 'supprime toutes les lignes de la table' : 'delete every row of the table')
    .option('--json', jsonHelp(ctx.lang))
    .description(fr
      ? 'supprime des lignes d’une table ecriture: serveur, tout ou rien'
      : 'delete rows of an ecriture: serveur table, all or nothing')
    .action(async (jeu: string, table: string, opts: { id?: string[]; all?: boolean; json?: boolean }) => {
      await answer(ctx, !!opts.json, async () => {
        if (!!opts.all === (opts.id !== undefined)) {
          throw new CliError(say({ fr: 'précise --id <id>... ou --all (l’un des deux)', en: 'give --id <id>... or --all (one of them)' }, ctx.lang));
        }
        return adminCall<RowsDeleted>(ctx, 'select manette_admin.table_rows_delete($1, $2, $3::text[], $4) as r',
          [jeu, table, opts.id ?? null, !!opts.all]);
      }, (r) => say(r.supprimees === 1
        ? { fr: '1 ligne supprimée de la table {table} du jeu {jeu}.', en: '1 row deleted from table {table} of game {jeu}.' }
        : { fr: '{n} lignes supprimées de la table {table} du jeu {jeu}.', en: '{n} rows deleted from table {table} of game {jeu}.' },
      ctx.lang, { n: r.supprimees, table: r.table, jeu: r.jeu }));
    });
}
