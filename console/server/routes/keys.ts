// The keys page's endpoints (to be written).
import type { ConsoleRoute } from '../route.js';

export const keysRoutes: ConsoleRoute<any, any, any>[] = [];
