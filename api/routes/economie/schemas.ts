// Wire schemas of the economy's responses (docs/economy.md, docs/api.md Economy).
import { z } from 'zod';

export const Solde = z.object({
  code: z.string(),
  nom: z.string(),
  solde: z.number().int().meta({ description: 'The currency’s `depart` while the player has never moved it.' }),
  max: z.number().int().nullable().meta({ description: 'The cap (null: uncapped).' }),
}).meta({ id: 'Solde' });

export const Possession = z.object({
  code: z.string(),
  nom: z.string(),
  quantite: z.number().int().min(1),
  empilable: z.boolean(),
  max: z.number().int().nullable().meta({ description: '1 for a non-stackable object; null: uncapped.' }),
}).meta({ id: 'Possession' });

export const Mouvement = z.object({
  id: z.number().int().meta({ description: 'Increasing: pass the last one as `avant` for the next page.' }),
  type: z.enum(['monnaie', 'objet']),
  code: z.string(),
  delta: z.number().int(),
  apres: z.number().int().meta({ description: 'The balance or quantity after this movement.' }),
  raison: z.enum(['depart', 'achat', 'utilisation', 'recompense', 'support', 'regles']),
  ref: z.record(z.string(), z.unknown()).meta({ description: 'achat: {article, quantite}; recompense: {partie_id}; utilisation: {quantite}; support: {raison}; regles: {partie_id, numero} (a rule function’s economie, numero: the action in the match’s history).' }),
  cree_le: z.string(),
}).meta({ id: 'Mouvement' });

export const Portefeuille = z.array(Solde).meta({ description: 'Every currency of the game, by code.' });
export const Inventaire = z.array(Possession).meta({ description: 'The objects held (quantite > 0), by code.' });
