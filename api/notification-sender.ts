// The delivery of 'your turn' notifications (docs/notifications.md): the outbox rows that the
// committing transactions of matches wrote (manette.notification_outbox) are claimed in
// batches by api.notifications_claim (FOR UPDATE SKIP LOCKED, each for a lease of
// MANETTE_NOTIFICATIONS_LEASE_S seconds), delivered, then settled by api.notifications_settle:
// delivered; retried later with backoff (a 5xx, a 429, a network failure, a timeout); removed
// with the subscription (a push service's 404 or 410); given up (another 4xx). A process killed
// mid-delivery leaves its rows claimed until the lease runs out; then another claims them:
// at least once. Every delivery of one notification carries its id (the payload's `id`, the
// webhook's `Manette-Webhook-Id`), so a receiver drops what it already has.
//
// Run by `manette start` (the primary process, beside the sweep of expired turns), any number
// of processes at once. Web Push: the `web-push` library (VAPID, RFC 8291 aes128gcm). Webhook:
// POST of the JSON payload, signed with HMAC-SHA256 over `<timestamp>.<body>`.
import { createHmac } from 'node:crypto';
import type { Logger } from 'pino';
import webpush from 'web-push';
import { runAsApi, type Pool } from './db/pool.js';
import type { Settings } from './config/settings.js';
import { startBackgroundTask, type BackgroundTask } from './background-task.js';

export const NOTIFY_INTERVAL_MS = 1_000;
const DELIVERY_TIMEOUT_MS = 10_000;

export interface ClaimedDelivery {
  id: string;
  notification_id: string;
  channel: 'web_push' | 'webhook';
  attempt: number;
  payload: Record<string, unknown>;
  endpoint: string | null;
  p256dh: string | null;
  auth: string | null;
  webhook_url: string | null;
}

export type Outcome = { id: string; outcome: 'delivered' | 'retry' | 'gone' | 'failed'; error?: string };

export type SenderSettings = Pick<Settings,
  'MANETTE_VAPID_PUBLIC_KEY' | 'MANETTE_VAPID_PRIVATE_KEY' | 'MANETTE_VAPID_SUBJECT' | 'MANETTE_WEBHOOK_SECRET'
  | 'MANETTE_NOTIFICATIONS_LEASE_S' | 'MANETTE_NOTIFICATIONS_RETRY_S' | 'MANETTE_NOTIFICATIONS_BATCH'>;

/** The webhook's signature header: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`. */
export function webhookSignature(secret: string, timestamp: number, body: string): string {
  return `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

const retryable = (status: number) => status >= 500 || status === 429 || status === 408;

async function deliverWebhook(d: ClaimedDelivery, settings: SenderSettings): Promise<Outcome> {
  if (!d.webhook_url) return { id: d.id, outcome: 'failed', error: 'the game file names no webhook any more' };
  if (!settings.MANETTE_WEBHOOK_SECRET) return { id: d.id, outcome: 'retry', error: 'MANETTE_WEBHOOK_SECRET is not set' };
  const body = JSON.stringify(d.payload);
  const timestamp = Math.floor(Date.now() / 1000);
  try {
    const res = await fetch(d.webhook_url, {
      method: 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Manette-Webhook/1',
        'manette-webhook-id': d.notification_id,
        'manette-webhook-attempt': String(d.attempt),
        'manette-webhook-signature': webhookSignature(settings.MANETTE_WEBHOOK_SECRET, timestamp, body),
      },
      body,
    });
    await res.arrayBuffer().catch(() => undefined);
    if (res.status >= 200 && res.status < 300) return { id: d.id, outcome: 'delivered' };
    return { id: d.id, outcome: retryable(res.status) ? 'retry' : 'failed', error: `webhook answered ${res.status}` };
  } catch (err) {
    return { id: d.id, outcome: 'retry', error: `webhook unreachable: ${(err as Error).message}` };
  }
}

async function deliverWebPush(d: ClaimedDelivery, settings: SenderSettings): Promise<Outcome> {
  const { MANETTE_VAPID_PUBLIC_KEY: publicKey, MANETTE_VAPID_PRIVATE_KEY: privateKey, MANETTE_VAPID_SUBJECT: subject } = settings;
  if (!publicKey || !privateKey || !subject) {
    return { id: d.id, outcome: 'retry', error: 'MANETTE_VAPID_PUBLIC_KEY, MANETTE_VAPID_PRIVATE_KEY and MANETTE_VAPID_SUBJECT must be set' };
  }
  if (!d.endpoint || !d.p256dh || !d.auth) return { id: d.id, outcome: 'failed', error: 'subscription gone' };
  let request: ReturnType<typeof webpush.generateRequestDetails>;
  try {
    // The library encrypts the payload (RFC 8291, aes128gcm) and signs the VAPID JWT
    // (RFC 8292); the request itself goes out with fetch (http to this machine in tests).
    request = webpush.generateRequestDetails(
      { endpoint: d.endpoint, keys: { p256dh: d.p256dh, auth: d.auth } },
      JSON.stringify(d.payload),
      {
        vapidDetails: { subject, publicKey, privateKey },
        TTL: 24 * 3600,
        urgency: d.payload.type === 'tour' ? 'high' : 'normal',
        // A later notification of the same match replaces this one on the push service.
        topic: String(d.payload.partie_id ?? '').replace(/-/g, '').slice(0, 32) || undefined,
        contentEncoding: 'aes128gcm',
      },
    );
  } catch (err) {
    return { id: d.id, outcome: 'failed', error: `cannot encrypt for this subscription: ${(err as Error).message}` };
  }
  try {
    const res = await fetch(request.endpoint, {
      method: request.method,
      headers: request.headers as Record<string, string>,
      body: request.body ? new Uint8Array(request.body) : undefined,
      redirect: 'manual',
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
    });
    await res.arrayBuffer().catch(() => undefined);
    if (res.status >= 200 && res.status < 300) return { id: d.id, outcome: 'delivered' };
    if (res.status === 404 || res.status === 410) return { id: d.id, outcome: 'gone', error: `push service answered ${res.status}` };
    return { id: d.id, outcome: retryable(res.status) ? 'retry' : 'failed', error: `push service answered ${res.status}` };
  } catch (err) {
    return { id: d.id, outcome: 'retry', error: `push service unreachable: ${(err as Error).message}` };
  }
}

export function deliver(d: ClaimedDelivery, settings: SenderSettings): Promise<Outcome> {
  return d.channel === 'webhook' ? deliverWebhook(d, settings) : deliverWebPush(d, settings);
}

/** One round: claim a batch, deliver it (in parallel), settle it. Returns the rows claimed. */
export async function deliverOnce(pool: Pool, settings: SenderSettings): Promise<number> {
  const [row] = await runAsApi<{ claimed: ClaimedDelivery[] }>(pool,
    `select api.notifications_claim(${settings.MANETTE_NOTIFICATIONS_BATCH}, ${settings.MANETTE_NOTIFICATIONS_LEASE_S}) as claimed`);
  const claimed = row?.claimed ?? [];
  if (claimed.length === 0) return 0;
  const outcomes = await Promise.all(claimed.map((d) => deliver(d, settings)));
  const literal = JSON.stringify(outcomes).replace(/'/g, "''");
  await runAsApi(pool, `select api.notifications_settle('${literal}'::jsonb, ${settings.MANETTE_NOTIFICATIONS_RETRY_S})`);
  return claimed.length;
}

export type NotificationSender = BackgroundTask;

/** Delivers every `intervalMs` (at once again while batches come full). */
export function startNotificationSender(pool: Pool, settings: SenderSettings, logger: Logger, intervalMs = NOTIFY_INTERVAL_MS): NotificationSender {
  return startBackgroundTask('delivery of notifications', async () => {
    const n = await deliverOnce(pool, settings);
    if (n > 0) logger.debug({ deliveries: n }, 'notifications delivered or rescheduled');
    return n >= settings.MANETTE_NOTIFICATIONS_BATCH;
  }, logger, intervalMs);
}
