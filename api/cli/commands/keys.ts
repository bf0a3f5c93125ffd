// `manette keys list|create|revoke <jeu>`: a game's API keys, and their rotation: create
// a new key, ship it in the game, then revoke the old one (refused from the API at once).
// The last active key cannot be revoked. One call of manette_admin.keys_* each.
import type { Command } from 'commander';
import { newApiKey } from '../../security/tokens.js';
import { say } from '../locale.js';
import { adminCall, answer, jsonHelp, textTable, type CommandContext } from '../output.js';

export interface KeyRow { cle: string; cree_le: string; revoquee_le: string | null; active: boolean }
export interface KeyList { jeu: string; cles: KeyRow[] }
export interface KeyCreated { jeu: string; cle: string; cree_le: string; actives: number }
export interface KeyRevoked { jeu: string; cle: string; revoquee_le: string; deja_revoquee: boolean; actives: number }

export function registerKeys(program: Command, ctx: CommandContext): void {
  const fr = ctx.lang === 'fr';
  const game = fr ? 'le jeu (son identifiant, `jeu` du fichier de configuration)' : 'the game (its slug, `jeu` in its config file)';
  const keys = program.command('keys')
    .description(fr ? 'les clés d’API d’un jeu : liste, création, révocation (rotation)' : 'a game’s API keys: list, create, revoke (rotation)');

  keys.command('list')
    .argument('<jeu>', game)
    .option('--json', jsonHelp(ctx.lang))
    .description(fr ? 'liste les clés du jeu, de la plus ancienne à la plus récente' : 'list the game’s keys, oldest first')
    .action(async (jeu: string, opts: { json?: boolean }) => {
      await answer(ctx, !!opts.json, () => adminCall<KeyList>(ctx, 'select manette_admin.keys_list($1) as r', [jeu]), (r) => {
        const table = textTable(
          fr ? ['CLÉ', 'CRÉÉE LE', 'RÉVOQUÉE LE', 'ACTIVE'] : ['KEY', 'CREATED', 'REVOKED', 'ACTIVE'],
          r.cles.map((k) => [k.cle, k.cree_le, k.revoquee_le, k.active ? (fr ? 'oui' : 'yes') : (fr ? 'non' : 'no')]));
        const active = r.cles.filter((k) => k.active).length;
        return active > 1
          ? `${table}\n\n${say({ fr: '{n} clés actives ; `manette apply` affiche la plus ancienne.', en: '{n} active keys; `manette apply` prints the oldest.' }, ctx.lang, { n: active })}`
          : table;
      });
    });

  keys.command('create')
    .argument('<jeu>', game)
    .option('--json', jsonHelp(ctx.lang))
    .description(fr
      ? 'crée une nouvelle clé active ; les autres restent valables jusqu’à leur révocation'
      : 'create a new active key; the others keep working until revoked')
    .action(async (jeu: string, opts: { json?: boolean }) => {
      await answer(ctx, !!opts.json, () => adminCall<KeyCreated>(ctx, 'select manette_admin.keys_create($1, $2) as r', [jeu, newApiKey()]),
        (r) => say({
          fr: 'Nouvelle clé du jeu {jeu} : {cle}\nClés actives : {n}. Les autres restent valables jusqu’à leur révocation : manette keys revoke {jeu} <clé>',
          en: 'New key of game {jeu}: {cle}\nActive keys: {n}. The others keep working until revoked: manette keys revoke {jeu} <key>',
        }, ctx.lang, { jeu: r.jeu, cle: r.cle, n: r.actives }));
    });

  keys.command('revoke')
    .argument('<jeu>', game)
    .argument('<key>', fr ? 'la clé à révoquer (sk_live_...)' : 'the key to revoke (sk_live_...)')
    .option('--json', jsonHelp(ctx.lang))
    .description(fr
      ? 'révoque une clé : l’API la refuse aussitôt (la dernière clé active ne peut pas l’être)'
      : 'revoke a key: the API refuses it at once (the last active key cannot be revoked)')
    .action(async (jeu: string, key: string, opts: { json?: boolean }) => {
      await answer(ctx, !!opts.json, () => adminCall<KeyRevoked>(ctx, 'select manette_admin.keys_revoke($1, $2) as r', [jeu, key]),
        (r) => r.deja_revoquee
          ? say({ fr: 'Cette clé était déjà révoquée (le {date}) : rien n’a changé.', en: 'This key was already revoked (on {date}): nothing changed.' },
            ctx.lang, { date: r.revoquee_le })
          : say({
            fr: 'Clé révoquée : {cle}\nL’API la refuse dès maintenant (401 invalid_key). Clés actives restantes : {n}.',
            en: 'Key revoked: {cle}\nThe API refuses it from now on (401 invalid_key). Active keys left: {n}.',
          }, ctx.lang, { cle: r.cle, n: r.actives }));
    });
}
