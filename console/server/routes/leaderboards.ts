// The leaderboards page's endpoints (to be written).
import type { ConsoleRoute } from '../route.js';

export const leaderboardsRoutes: ConsoleRoute<any, any, any>[] = [];
