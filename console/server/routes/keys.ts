// The keys page's endpoints (console/web/pages/keys.tsx), the CLI's `manette keys` calls:
//   GET  /games/:jeu/keys         → manette_admin.keys_list
//   POST /games/:jeu/keys         → manette_admin.keys_create (a key made by newApiKey(), as the CLI)
//   POST /games/:jeu/keys/revoke  → manette_admin.keys_revoke ({cle}; the last active key: 409 last_active_key)
// SQL now: supabase/schema/functions/manette_admin.keys_list.sql, keys_create.sql, keys_revoke.sql.
import { z } from 'zod';
import { newApiKey } from '../../../api/security/tokens.js';
import { adminCall, consoleRoute, GameParams } from '../route.js';

const game = GameParams;

export const keysRoutes = [
  consoleRoute({
    method: 'get', path: '/games/:jeu/keys',
    params: game,
    handler: ({ deps, params }) => adminCall(deps, 'select manette_admin.keys_list($1) as r', [params.jeu]),
  }),
  consoleRoute({
    method: 'post', path: '/games/:jeu/keys',
    params: game,
    body: z.strictObject({}),
    handler: ({ deps, params }) => adminCall(deps, 'select manette_admin.keys_create($1, $2) as r', [params.jeu, newApiKey()]),
  }),
  consoleRoute({
    method: 'post', path: '/games/:jeu/keys/revoke',
    params: game,
    body: z.strictObject({ cle: z.string().min(1).max(200) }),
    handler: ({ deps, params, body }) => adminCall(deps, 'select manette_admin.keys_revoke($1, $2) as r', [params.jeu, body.cle]),
  }),
];
