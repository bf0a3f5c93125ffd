// The matches page's endpoints (to be written).
import type { ConsoleRoute } from '../route.js';

export const matchesRoutes: ConsoleRoute<any, any, any>[] = [];
