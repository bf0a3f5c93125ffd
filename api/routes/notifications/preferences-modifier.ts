// POST /notifications/preferences → api.notifications_preferences_modifier
// SQL now: supabase/schema/functions/api.notifications_preferences_modifier.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { callApi } from '../../db/pool.js';
import { Preferences } from './schemas.js';

export default defineRoute({
  method: 'post',
  path: '/notifications/preferences',
  tag: 'Notifications',
  summary: 'Turn kinds of notifications on or off for the player',
  description: '`{types: {tour?, partie_trouvee?, partie_terminee?}}`: the kinds named change, the others stay. '
    + 'Answers as `GET /notifications/preferences`.',
  auth: 'player',
  body: z.object({
    types: z.strictObject({ tour: z.boolean().optional(), partie_trouvee: z.boolean().optional(), partie_terminee: z.boolean().optional() }),
  }),
  response: z.object({ data: Preferences }),
  async handler({ body, ctx, deps }) {
    const { data } = await callApi<{ data: Record<string, unknown> }>(deps.pool, 'notifications_preferences_modifier', ctx, body);
    return { data: { ...data, vapid_cle_publique: deps.settings.MANETTE_VAPID_PUBLIC_KEY ?? null } };
  },
});
