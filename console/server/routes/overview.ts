// The overview page's endpoints (to be written).
import type { ConsoleRoute } from '../route.js';

export const overviewRoutes: ConsoleRoute<any, any, any>[] = [];
