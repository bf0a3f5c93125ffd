// The audit page's endpoints (to be written).
import type { ConsoleRoute } from '../route.js';

export const auditRoutes: ConsoleRoute<any, any, any>[] = [];
