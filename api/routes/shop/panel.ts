// GET /panel → api.panel_get
// SQL now: supabase/schema/functions/api.panel_get.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { passApi } from '../../db/pool.js';

export const Panel = z.object({
  theme: z.record(z.string(), z.string().nullable())
    .meta({ description: 'Couleurs, police, rayon, logo_url : valeurs du jeu sur les valeurs par défaut.' }),
  textes: z.record(z.string(), z.string())
    .meta({ description: 'Textes des panneaux de connexion et de matchmaking : valeurs du jeu sur les textes par défaut, '
      + 'en anglais si Accept-Language préfère en, en français sinon.' }),
  google_client_id: z.string().nullable()
    .meta({ description: 'Identifiant client Google du jeu (null sans connexion Google) : le panneau de connexion '
      + 'propose Google quand il est présent.' }),
}).meta({ id: 'Panel' });

export default defineRoute({
  method: 'get',
  path: '/panel',
  tag: 'Boutique',
  summary: 'Thème et textes des panneaux du SDK navigateur',
  auth: 'key',
  response: z.object({ data: Panel }),
  handler: ({ ctx, deps }) => passApi(deps.pool, 'panel_get', ctx),
});
