// The shapes the notifications routes share (docs/notifications.md).
import { z } from 'zod';

export const KINDS = ['tour', 'partie_trouvee', 'partie_terminee'] as const;

/** A Web Push endpoint: https (http only to this machine, for tests). */
export const Endpoint = z.string().max(2048).refine(
  (u) => /^https:\/\/[^\s/?#@]+(\/\S*)?$/.test(u) || /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:[0-9]{1,5})?(\/\S*)?$/.test(u),
  'URL https attendue');

export const Abonnement = z.object({ id: z.uuid(), endpoint: z.string(), cree_le: z.string() });

export const Preferences = z.object({
  types: z.object({ tour: z.boolean(), partie_trouvee: z.boolean(), partie_terminee: z.boolean() }),
  present: z.boolean(),
  web_push: z.boolean(),
  webhook: z.boolean(),
  abonnements: z.array(Abonnement),
  vapid_cle_publique: z.string().nullable(),
});
