// GET /panel → api.panel_get
// SQL now: supabase/schema/functions/api.panel_get.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { passApi } from '../../db/pool.js';

export const Panel = z.object({
  theme: z.record(z.string(), z.string().nullable())
    .meta({ description: 'Colours, font, radius, logo_url: the game’s values over the defaults.' }),
  textes: z.record(z.string(), z.string())
    .meta({ description: 'Texts of the login and matchmaking panels: the game’s values over the default texts, '
      + 'in English when Accept-Language prefers en, in French otherwise.' }),
  google_client_id: z.string().nullable()
    .meta({ description: 'The game’s Google client id (null without Google sign-in): the login panel '
      + 'offers Google when it is set.' }),
  connexions: z.array(z.string())
    .meta({ description: 'The names of the providers of the game file’s `connexions` (never their settings), '
      + 'sorted: the login panel offers a button for each (POST /players/login/jeton). Empty without any.' }),
}).meta({ id: 'Panel' });

export default defineRoute({
  method: 'get',
  path: '/panel',
  tag: 'Shop',
  summary: 'Theme and texts of the browser SDK’s panels',
  auth: 'key',
  response: z.object({ data: Panel }),
  handler: ({ ctx, deps }) => passApi(deps.pool, 'panel_get', ctx),
});
