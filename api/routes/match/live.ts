// GET /match/live → api.match_live
// SQL now: supabase/schema/functions/api.match_live.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { passApi } from '../../db/pool.js';
import { IntParam } from '../schemas.js';
import { LiveResult } from './schemas.js';

export default defineRoute({
  method: 'get',
  path: '/match/live',
  tag: 'Matches',
  summary: 'List the matches in progress the player may watch (modes with spectators)',
  description: 'The matches `en_cours` of the game’s modes that set `"spectateurs": true` (of `mode_jeu` only, '
    + 'when given), newest first (`cree_le`), at most `limit`; each is the `partie` of `GET /match/state`. Any '
    + 'logged-in player of the game may read such a match (`GET /match/state`, `GET /match/history`) and join its '
    + 'room read-only; only its participants act. An unknown `mode_jeu` is `mode_not_found` (404); a mode without '
    + 'spectators lists nothing.',
  auth: 'player',
  query: z.strictObject({
    mode_jeu: z.string().min(1).max(64).optional().meta({ description: 'Only this mode’s matches.' }),
    limit: IntParam(1, 100).optional().meta({ description: '1 to 100, default 20.' }),
  }),
  response: LiveResult,
  handler: ({ query, ctx, deps }) => passApi(deps.pool, 'match_live', ctx, {
    mode_jeu: query.mode_jeu, limit: query.limit,
  }),
});
