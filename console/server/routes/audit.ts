// The audit page's endpoint (console/web/pages/audit.tsx): the game's audit trail, newest
// first, paged by id (`avant`: the smallest id of the page before).
//   GET /games/:jeu/audit?limit=&avant= → manette_admin.console_audit
// SQL now: supabase/schema/functions/manette_admin.console_audit.sql.
import { z } from 'zod';
import { adminCall, consoleRoute, GameParams } from '../route.js';

export const auditRoutes = [
  consoleRoute({
    method: 'get', path: '/games/:jeu/audit',
    params: GameParams,
    query: z.object({
      limit: z.coerce.number().int().min(1).max(200).default(50),
      avant: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
    }),
    handler: ({ deps, params, query }) => adminCall(deps, 'select manette_admin.console_audit($1, $2, $3) as r',
      [params.jeu, query.limit, query.avant ?? null]),
  }),
];
