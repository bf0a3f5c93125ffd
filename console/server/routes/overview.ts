// GET /api/games/:jeu/overview?periode=1h|24h|7d → manette_admin.console_overview: a game's
// activity in buckets over the period (players, sessions, matches, actions, requests and
// their errors) and what is true now (docs/console.md, Overview); and, for the whole
// project, its capacity (manette_admin.console_capacity, ../capacity.ts, docs/capacity.md).
// Read-only.
import { z } from 'zod';
import { adminCall, consoleRoute, GameParams } from '../route.js';
import { capacityOf, type CapacityRaw } from '../capacity.js';

export const OVERVIEW_PERIODS = ['1h', '24h', '7d'] as const;

export const overviewRoutes = [
  consoleRoute({
    method: 'get', path: '/games/:jeu/overview',
    params: GameParams,
    query: z.object({ periode: z.enum(OVERVIEW_PERIODS).default('1h') }),
    handler: async ({ deps, params, query }) => {
      const overview = await adminCall<Record<string, unknown>>(deps, 'select manette_admin.console_overview($1, $2) as r', [params.jeu, query.periode]);
      const raw = await adminCall<CapacityRaw>(deps, 'select manette_admin.console_capacity() as r', []);
      return { ...overview, capacite: capacityOf(raw, deps.settings) };
    },
  }),
];
