// The panel page's endpoints (to be written).
import type { ConsoleRoute } from '../route.js';

export const panelRoutes: ConsoleRoute<any, any, any>[] = [];
