// Wire schemas of the match endpoints: `partie` beside `ok` (docs/matches.md).
import { z } from 'zod';
import { Participant } from '../matchmaking/schemas.js';

export const Partie = z.object({
  id: z.uuid(),
  mode_jeu: z.string(),
  statut: z.enum(['en_cours', 'terminee']),
  tour_joueur: z.uuid().nullable().meta({ description: 'The player whose turn it is (null once the match is over).' }),
  numero_tour: z.number().int().min(1)
    .meta({ description: '1 at the start; +1 for each accepted action (libre, tour_par_tour, morpion, abandonner).' }),
  etat_plateau: z.unknown().meta({ description: 'The game state kept by the rules, for example `{"cases": [...]}` for morpion (tic-tac-toe).' }),
  participants: z.array(Participant).meta({ description: 'In seat order: team 1 first.' }),
  gagnant_id: z.uuid().nullable(),
  gagnant_equipe: z.number().int().nullable(),
  code_salon: z.string(),
  cree_le: z.string(),
  maj_le: z.string(),
  termine_le: z.string().nullable(),
});

export const PartieResult = z.object({ partie: Partie });
