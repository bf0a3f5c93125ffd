// The tables page's endpoints (to be written).
import type { ConsoleRoute } from '../route.js';

export const tablesRoutes: ConsoleRoute<any, any, any>[] = [];
