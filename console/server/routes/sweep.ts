// GET /api/games/:jeu/sweep → manette_admin.console_sweep: the game's modes with a turn
// timer and the last recorded sweep of expired turns; `avertir` when modes have timers and
// no sweep ran in the last minute (the overview's warning, docs/console.md). Read-only.
import { adminCall, consoleRoute, GameParams } from '../route.js';

export const sweepRoutes = [
  consoleRoute({
    method: 'get', path: '/games/:jeu/sweep',
    params: GameParams,
    handler: ({ deps, params }) => adminCall(deps, 'select manette_admin.console_sweep($1) as r', [params.jeu]),
  }),
];
