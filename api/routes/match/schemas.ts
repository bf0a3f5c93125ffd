// Wire schemas of the match endpoints: `partie` beside `ok` (contract section 8).
import { z } from 'zod';
import { Participant } from '../matchmaking/schemas.js';

export const Partie = z.object({
  id: z.uuid(),
  mode_jeu: z.string(),
  statut: z.enum(['en_cours', 'terminee']),
  tour_joueur: z.uuid().nullable().meta({ description: 'Le joueur dont c’est le tour (null une fois la partie terminée).' }),
  numero_tour: z.number().int().min(1)
    .meta({ description: '1 au départ ; +1 à chaque action acceptée (libre, tour_par_tour, morpion, abandonner).' }),
  etat_plateau: z.unknown().meta({ description: 'L’état du jeu tenu par le jeu de règles, par exemple `{"cases": [...]}` au morpion.' }),
  participants: z.array(Participant).meta({ description: 'Dans l’ordre des places : équipe 1 d’abord.' }),
  gagnant_id: z.uuid().nullable(),
  gagnant_equipe: z.number().int().nullable(),
  code_salon: z.string(),
  cree_le: z.string(),
  maj_le: z.string(),
  termine_le: z.string().nullable(),
});

export const PartieResult = z.object({ partie: Partie });
