// GET /notifications/preferences → api.notifications_preferences
// SQL now: supabase/schema/functions/api.notifications_preferences.sql
import { defineRoute } from '../../http/route.js';
import { callApi } from '../../db/pool.js';
import { Preferences } from './schemas.js';
import { z } from 'zod';

export default defineRoute({
  method: 'get',
  path: '/notifications/preferences',
  tag: 'Notifications',
  summary: 'The kinds of notifications the player receives, their subscriptions, what the game sends',
  description: '`types`: each kind (`tour`, `partie_trouvee`, `partie_terminee`) on or off for this player (all on until '
    + 'changed); `present`: the player is marked in the room (nothing is sent meanwhile); `web_push` / `webhook`: what '
    + 'the game file sends; `abonnements`: the player’s Web Push subscriptions; `vapid_cle_publique`: the '
    + '`applicationServerKey` to subscribe with (null when the server has none).',
  auth: 'player',
  response: z.object({ data: Preferences }),
  async handler({ ctx, deps }) {
    const { data } = await callApi<{ data: Record<string, unknown> }>(deps.pool, 'notifications_preferences', ctx);
    return { data: { ...data, vapid_cle_publique: deps.settings.MANETTE_VAPID_PUBLIC_KEY ?? null } };
  },
});
