// The leaderboards page's endpoints: each one call of a manette_admin.* function
// (migration 20261128000400_console_tables_leaderboards.sql).
//   GET  /games/:jeu/leaderboards              → console_leaderboards
//   GET  /games/:jeu/leaderboards/:id          → console_leaderboard (?periode&limit&offset&joueur)
//   POST /games/:jeu/leaderboards/:id/retire   → leaderboard_retire {joueur_id, periode?}
import { z } from 'zod';
import { adminCall, consoleRoute, GameParams, gameParamsWith, paging } from '../route.js';

const game = GameParams;
const board = gameParamsWith('id');

export const leaderboardsRoutes = [
  consoleRoute({
    method: 'get', path: '/games/:jeu/leaderboards', params: game,
    handler: ({ deps, params }) => adminCall(deps, 'select manette_admin.console_leaderboards($1) as r', [params.jeu]),
  }),
  consoleRoute({
    method: 'get', path: '/games/:jeu/leaderboards/:id', params: board,
    query: z.object({
      periode: z.string().max(64).optional(),
      ...paging(20, 100),
      joueur: z.string().max(320).optional(),
    }).strict(),
    handler: ({ deps, params, query }) => adminCall(deps, 'select manette_admin.console_leaderboard($1, $2, $3, $4, $5, $6) as r',
      [params.jeu, params.id, query.periode || null, query.limit, query.offset, query.joueur?.trim() || null]),
  }),
  // joueur_id: the player's id (or e-mail, or pseudo); periode: a period start (default: the current period).
  consoleRoute({
    method: 'post', path: '/games/:jeu/leaderboards/:id/retire', params: board,
    body: z.object({ joueur_id: z.string().min(1).max(320), periode: z.string().max(64).nullable().optional() }).strict(),
    handler: ({ deps, params, body }) => adminCall(deps, 'select manette_admin.leaderboard_retire($1, $2, $3, $4) as r',
      [params.jeu, params.id, body.joueur_id, body.periode || null]),
  }),
];
