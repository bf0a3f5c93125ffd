// Wire schemas of the matchmaking responses (fields beside `ok`, no `data`). The OpenAPI
// generator documents object schemas, so each state's fields are optional members of one
// object, tagged by `status`.
import { z } from 'zod';

export const Participant = z.object({
  joueur_id: z.uuid(),
  pseudo: z.string(),
  equipe: z.number().int(),
  elo: z.number().nullable().meta({
    description: 'The player’s rating at the start of the match: the server’s in a mode with `"elo": "serveur"`, '
      + 'the `elo_actuel` sent to join otherwise (null only for a match made outside matchmaking).',
  }),
});

const waitingFields = {
  queue_id: z.uuid().optional().meta({ description: 'waiting: the queue entry’s id.' }),
  position: z.number().int().min(1).optional()
    .meta({ description: 'waiting: rank in the mode’s queue, in order of arrival (1 = first).' }),
};
const matchedFields = {
  partie_id: z.uuid().optional().meta({ description: 'matched: the match in progress.' }),
  code_salon: z.string().optional().meta({ description: 'matched: 6 characters from ABCDEFGHJKLMNPQRSTUVWXYZ23456789.' }),
  equipe: z.number().int().min(1).optional().meta({ description: 'matched: the calling player’s team.' }),
  participants: z.array(Participant).optional()
    .meta({ description: 'matched: the match’s players, team 1 first.' }),
};

export const JoinResult = z.object({ status: z.enum(['waiting', 'matched']), ...waitingFields, ...matchedFields });
export const MatchmakingState = z.object({ status: z.enum(['idle', 'waiting', 'matched']), ...waitingFields, ...matchedFields });
