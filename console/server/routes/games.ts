// GET /api/games → manette_admin.console_games(): the games of the database, for the switcher.
import { adminCall, consoleRoute } from '../route.js';

export const gamesRoutes = [
  consoleRoute({
    method: 'get', path: '/games',
    handler: ({ deps }) => adminCall(deps, 'select manette_admin.console_games() as r', []),
  }),
];
