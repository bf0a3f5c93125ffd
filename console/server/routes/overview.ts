// GET /api/games/:jeu/overview?periode=1h|24h|7d → manette_admin.console_overview: a game's
// activity in buckets over the period (players, sessions, matches, actions, requests and
// their errors) and what is true now (docs/console.md, Overview). Read-only.
import { z } from 'zod';
import { adminCall, consoleRoute, GameParams } from '../route.js';

export const OVERVIEW_PERIODS = ['1h', '24h', '7d'] as const;

export const overviewRoutes = [
  consoleRoute({
    method: 'get', path: '/games/:jeu/overview',
    params: GameParams,
    query: z.object({ periode: z.enum(OVERVIEW_PERIODS).default('1h') }),
    handler: ({ deps, params, query }) =>
      adminCall(deps, 'select manette_admin.console_overview($1, $2) as r', [params.jeu, query.periode]),
  }),
];
