// Shared by the leaderboard routes: the board path parameter and the wire shapes.
import { z } from 'zod';

export const BoardParams = z.object({
  id: z.string().meta({ description: 'The board’s code, as declared under `classements` in the game file.' }),
});

const BOARD_CODE = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** A code that cannot name a board (it could not be declared) is sent as null: leaderboard_not_found. */
export const boardId = (id: string) => (BOARD_CODE.test(id) ? id : null);

export const Score = z.object({
  rang: z.number().int().meta({ description: 'Competition rank: ties share a rank (1, 2, 2, 4).' }),
  joueur_id: z.uuid(),
  pseudo: z.string(),
  valeur: z.number(),
  maj_le: z.string().meta({ description: 'When the player reached this value (ISO 8601, UTC).' }),
}).meta({ id: 'Score' });
