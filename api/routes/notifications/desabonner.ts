// DELETE /notifications/abonnements/:id → api.notifications_desabonner
// SQL now: supabase/schema/functions/api.notifications_desabonner.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { passApi } from '../../db/pool.js';

export default defineRoute({
  method: 'delete',
  path: '/notifications/abonnements/:id',
  tag: 'Notifications',
  summary: 'Remove one of the player’s Web Push subscriptions',
  description: 'Its notifications not yet delivered go with it. `not_found` for an id that is not one of the player’s.',
  auth: 'player',
  params: z.object({ id: z.string().max(64) }),
  checkedInSql: ['id'],
  response: z.object({ data: z.object({ id: z.uuid() }) }),
  handler: ({ params, ctx, deps }) => passApi(deps.pool, 'notifications_desabonner', ctx, { id: params.id }),
});
