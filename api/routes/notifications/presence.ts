// POST /notifications/presence → api.notifications_presence
// SQL now: supabase/schema/functions/api.notifications_presence.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { passApi } from '../../db/pool.js';

export default defineRoute({
  method: 'post',
  path: '/notifications/presence',
  tag: 'Notifications',
  summary: 'Mark the player in the room (nothing is sent to them) or gone',
  description: '`{present: true}` marks the player present for the game file’s `notifications.presence_s` seconds '
    + '(60 by default): no notification is queued for them meanwhile. The SDK sends it while the game’s page is shown, '
    + 'again every third of that time, and `{present: false}` when the page is hidden or closed.',
  auth: 'player',
  body: z.object({ present: z.boolean() }),
  response: z.object({ data: z.object({ present: z.boolean(), jusqu_a: z.string().nullable(), presence_s: z.number().int() }) }),
  handler: ({ body, ctx, deps }) => passApi(deps.pool, 'notifications_presence', ctx, body),
});
