// POST /notifications/abonnements → api.notifications_abonner
// SQL now: supabase/schema/functions/api.notifications_abonner.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { passApi } from '../../db/pool.js';
import { Abonnement, Endpoint } from './schemas.js';

export default defineRoute({
  method: 'post',
  path: '/notifications/abonnements',
  tag: 'Notifications',
  summary: 'Register this browser’s Web Push subscription for the player',
  description: 'The body is `PushSubscription.toJSON()` as the browser gives it: `{endpoint, keys: {p256dh, auth}}` '
    + '(`expirationTime` is accepted and ignored). The same endpoint registered again (another player on this device '
    + 'included) replaces the former registration; a player keeps their 10 latest. `notifications_indisponibles` when the '
    + 'game file does not set `notifications.web_push`.',
  auth: 'player',
  body: z.object({
    endpoint: Endpoint,
    expirationTime: z.number().nullable().optional(),
    keys: z.object({
      p256dh: z.string().regex(/^[A-Za-z0-9_-]{80,100}$/, 'clé publique P-256 en base64url attendue'),
      auth: z.string().regex(/^[A-Za-z0-9_-]{16,32}$/, 'secret d’authentification en base64url attendu'),
    }),
  }),
  status: 201,
  response: z.object({ data: Abonnement }),
  handler: ({ body, ctx, deps }) => passApi(deps.pool, 'notifications_abonner', ctx, { endpoint: body.endpoint, keys: body.keys }),
});
