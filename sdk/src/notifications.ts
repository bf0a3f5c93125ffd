// 'Your turn' notifications in the browser (docs/notifications.md): the player's Web Push
// subscription (a service worker, the SDK's manette-sw.js, shows what arrives), the kinds they
// want, and their presence: while the game's page is shown the player is marked in the room
// (POST /notifications/presence, again every third of the game's presence_s), so nothing is
// sent to them; hidden or closed, they are marked gone and their turns reach them by push.
import { ManetteError } from './errors.js';
import type { RequestOptions } from './http.js';

export type NotificationKind = 'tour' | 'partie_trouvee' | 'partie_terminee';

export interface NotificationPreferences {
  types: Record<NotificationKind, boolean>;
  present: boolean;
  web_push: boolean;
  webhook: boolean;
  abonnements: { id: string; endpoint: string; cree_le: string }[];
  vapid_cle_publique: string | null;
}

export interface SubscribeOptions {
  /** The applicationServerKey (default: the server's, from GET /notifications/preferences). */
  vapidPublicKey?: string;
  /** The service worker's URL, on the page's origin (default: manette-sw.js beside the SDK). */
  serviceWorker?: string;
  /** Its registration scope (default: the folder of `serviceWorker`). */
  scope?: string;
  /** The page a click on a notification opens (default: this page). */
  open?: string;
  /** A subscription obtained elsewhere (a wrapper app, a test): registered as it is, no service worker. */
  subscription?: { endpoint: string; keys: { p256dh: string; auth: string }; expirationTime?: number | null };
  /** Mark the player in the room while this page is shown (default true). */
  presence?: boolean;
}

export interface Notifications {
  /** Asks the browser's permission, registers the service worker and the push subscription, and sends it to the server. */
  subscribe(opts?: SubscribeOptions): Promise<{ id: string; endpoint: string; cree_le: string }>;
  /** Removes this browser's subscription (on the server and in the browser). */
  unsubscribe(): Promise<void>;
  preferences(): Promise<NotificationPreferences>;
  setPreferences(types: Partial<Record<NotificationKind, boolean>>): Promise<NotificationPreferences>;
  /** Marks the player in the room (true) or gone (false) once. */
  present(here: boolean): Promise<{ present: boolean; jusqu_a: string | null; presence_s: number }>;
  /** Keeps the player marked present while the page is visible, gone when hidden or closed; returns the stop function. */
  trackPresence(): () => void;
}

type Call = <T = Record<string, unknown>>(method: string, path: string, opts?: RequestOptions) => Promise<T>;

/** base64url → bytes (an applicationServerKey). */
function keyBytes(b64url: string): Uint8Array {
  const b64 = b64url.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (b64url.length % 4)) % 4);
  const raw = atob(b64);
  const out = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}

function refused(lang: string, what: string): ManetteError {
  return new ManetteError({
    code: 'notifications_refusees', status: 0,
    message: lang === 'en' ? `Notifications are not available: ${what}.` : `Les notifications ne sont pas disponibles : ${what}.`,
  });
}

export function createNotifications(call: Call, opts: { sdkUrl?: string; scope: string; lang: string; loggedIn: () => boolean }): Notifications {
  const storeKey = `manette:notifications:${opts.scope}`;
  const store = (): Storage | undefined => { try { return globalThis.localStorage; } catch { return undefined; } };
  let stopPresence: (() => void) | undefined;

  const api: Notifications = {
    async preferences() {
      return (await call<{ data: NotificationPreferences }>('GET', '/notifications/preferences')).data;
    },
    async setPreferences(types) {
      return (await call<{ data: NotificationPreferences }>('POST', '/notifications/preferences', { body: { types } })).data;
    },
    async present(here) {
      return (await call<{ data: { present: boolean; jusqu_a: string | null; presence_s: number } }>(
        'POST', '/notifications/presence', { body: { present: here }, keepalive: !here })).data;
    },
    trackPresence() {
      stopPresence?.();
      const doc = globalThis.document;
      let timer: ReturnType<typeof setInterval> | undefined;
      let every = 20_000;
      const mark = (here: boolean) => {
        if (!opts.loggedIn()) return;
        api.present(here).then((r) => {
          const next = Math.max(5_000, Math.floor((r.presence_s * 1000) / 3));
          if (here && next !== every) { every = next; restart(); }
        }, () => { /* offline: the mark runs out by itself */ });
      };
      const restart = () => {
        if (timer) clearInterval(timer);
        timer = setInterval(() => { if (!doc || doc.visibilityState === 'visible') mark(true); }, every);
      };
      const onVisibility = () => mark(doc?.visibilityState === 'visible');
      const onHide = () => mark(false);
      doc?.addEventListener('visibilitychange', onVisibility);
      globalThis.addEventListener?.('pagehide', onHide);
      mark(!doc || doc.visibilityState === 'visible');
      restart();
      stopPresence = () => {
        if (timer) clearInterval(timer);
        doc?.removeEventListener('visibilitychange', onVisibility);
        globalThis.removeEventListener?.('pagehide', onHide);
        stopPresence = undefined;
      };
      return stopPresence;
    },
    async subscribe(o = {}) {
      let sub = o.subscription;
      if (!sub) {
        const nav = globalThis.navigator as Navigator | undefined;
        if (!nav?.serviceWorker || !('PushManager' in globalThis)) throw refused(opts.lang, 'navigateur sans Web Push');
        const permission = await Notification.requestPermission();
        if (permission !== 'granted') throw refused(opts.lang, opts.lang === 'en' ? 'permission denied' : 'permission refusée');
        const key = o.vapidPublicKey ?? (await api.preferences()).vapid_cle_publique;
        if (!key) throw refused(opts.lang, opts.lang === 'en' ? 'the server has no VAPID key' : 'le serveur n’a pas de clé VAPID');
        const sw = new URL(o.serviceWorker ?? new URL('manette-sw.js', opts.sdkUrl ?? location.href).href, location.href);
        sw.searchParams.set('ouvrir', o.open ?? location.href);
        const reg = await nav.serviceWorker.register(sw.href, o.scope ? { scope: o.scope } : undefined);
        const worker = reg.installing ?? reg.waiting ?? reg.active;
        if (worker && worker.state !== 'activated') {
          await new Promise<void>((resolve) => {
            const check = () => { if (worker.state === 'activated') { worker.removeEventListener('statechange', check); resolve(); } };
            worker.addEventListener('statechange', check);
            check();
          });
        }
        const push = (await reg.pushManager.getSubscription())
          ?? await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) as BufferSource });
        sub = push.toJSON() as NonNullable<SubscribeOptions['subscription']>;
      }
      const { data } = await call<{ data: { id: string; endpoint: string; cree_le: string } }>(
        'POST', '/notifications/abonnements', { body: { endpoint: sub.endpoint, keys: sub.keys, expirationTime: sub.expirationTime ?? null } });
      store()?.setItem(storeKey, data.id);
      if (o.presence !== false) api.trackPresence();
      return data;
    },
    async unsubscribe() {
      stopPresence?.();
      const id = store()?.getItem(storeKey);
      if (id) {
        try {
          await call('DELETE', `/notifications/abonnements/${encodeURIComponent(id)}`);
        } catch (err) {
          if (!(err instanceof ManetteError && err.code === 'not_found')) throw err;
        }
        store()?.removeItem(storeKey);
      }
      const regs = await globalThis.navigator?.serviceWorker?.getRegistrations?.() ?? [];
      for (const reg of regs) {
        if (!reg.active?.scriptURL.includes('manette-sw.js')) continue;
        await (await reg.pushManager.getSubscription())?.unsubscribe();
      }
    },
  };
  return api;
}
