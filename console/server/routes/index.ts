// Every console endpoint, one file per page (the page's SQL: manette_admin.*).
import type { ConsoleRoute } from '../route.js';
import { gamesRoutes } from './games.js';
import { overviewRoutes } from './overview.js';
import { playersRoutes } from './players.js';
import { tablesRoutes } from './tables.js';
import { leaderboardsRoutes } from './leaderboards.js';
import { matchesRoutes } from './matches.js';
import { keysRoutes } from './keys.js';
import { panelRoutes } from './panel.js';
import { auditRoutes } from './audit.js';
import { sweepRoutes } from './sweep.js';

export const CONSOLE_ROUTES: ConsoleRoute<any, any, any>[] = [
  ...gamesRoutes, ...overviewRoutes, ...playersRoutes, ...tablesRoutes, ...leaderboardsRoutes,
  ...matchesRoutes, ...keysRoutes, ...panelRoutes, ...auditRoutes, ...sweepRoutes,
];
