// Wire schemas of the matchmaking responses (fields beside `ok`, no `data`). The OpenAPI
// generator documents object schemas, so each state's fields are optional members of one
// object, tagged by `status`.
import { z } from 'zod';

export const Participant = z.object({
  joueur_id: z.uuid(),
  pseudo: z.string(),
  equipe: z.number().int(),
});

const waitingFields = {
  queue_id: z.uuid().optional().meta({ description: 'waiting : identifiant de l’entrée en file.' }),
  position: z.number().int().min(1).optional()
    .meta({ description: 'waiting : rang dans la file du mode, dans l’ordre d’arrivée (1 = le premier).' }),
};
const matchedFields = {
  partie_id: z.uuid().optional().meta({ description: 'matched : la partie en cours.' }),
  code_salon: z.string().optional().meta({ description: 'matched : 6 caractères parmi ABCDEFGHJKLMNPQRSTUVWXYZ23456789.' }),
  equipe: z.number().int().min(1).optional().meta({ description: 'matched : équipe du joueur appelant.' }),
  participants: z.array(Participant).optional()
    .meta({ description: 'matched : joueurs de la partie, équipe 1 d’abord.' }),
};

export const JoinResult = z.object({ status: z.enum(['waiting', 'matched']), ...waitingFields, ...matchedFields });
export const MatchmakingState = z.object({ status: z.enum(['idle', 'waiting', 'matched']), ...waitingFields, ...matchedFields });
