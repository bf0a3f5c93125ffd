// The players page's endpoints (to be written).
import type { ConsoleRoute } from '../route.js';

export const playersRoutes: ConsoleRoute<any, any, any>[] = [];
