// Manette's service worker (docs/notifications.md): shows the 'your turn' notifications that
// arrive by Web Push, and opens (or focuses) the game when one is clicked. Served beside the
// SDK (/sdk/manette-sw.js); a game on another origin copies it to its own site, since a
// service worker must come from the page's origin. Its URL's `ouvrir` parameter is the page a
// click opens (the SDK sets it to the page that subscribed).
/* eslint-env serviceworker */
const OPEN = new URL(self.location.href).searchParams.get('ouvrir') || self.registration.scope;

const TEXTS = {
  fr: {
    tour: ['À vous de jouer', 'C’est votre tour (partie {code_salon}).'],
    partie_trouvee: ['Partie trouvée', 'Votre partie {code_salon} commence.'],
    partie_terminee: ['Partie terminée', 'La partie {code_salon} est terminée.'],
  },
  en: {
    tour: ['Your turn', 'It is your turn (match {code_salon}).'],
    partie_trouvee: ['Match found', 'Your match {code_salon} is starting.'],
    partie_terminee: ['Match over', 'Match {code_salon} is over.'],
  },
};

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('push', (event) => {
  let data = {};
  try { data = event.data ? event.data.json() : {}; } catch { data = {}; }
  const lang = (self.navigator.language || 'fr').toLowerCase().startsWith('fr') ? 'fr' : 'en';
  const [title, body] = (TEXTS[lang][data.type] || [data.titre || 'Manette', data.texte || '']);
  const fill = (s) => s.replace(/\{(\w+)\}/g, (_, k) => (data[k] == null ? '' : String(data[k])));
  event.waitUntil(self.registration.showNotification(fill(title), {
    body: fill(body),
    // One notification per match: a newer one replaces it. The id lets a page de-duplicate.
    tag: data.partie_id ? `manette-${data.partie_id}` : undefined,
    renotify: Boolean(data.partie_id),
    data: { ...data, ouvrir: OPEN },
  }));
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const url = (event.notification.data && event.notification.data.ouvrir) || OPEN;
  event.waitUntil((async () => {
    const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
    for (const w of windows) {
      if (w.url.split('#')[0] === url.split('#')[0] && 'focus' in w) return w.focus();
    }
    return self.clients.openWindow(url);
  })());
});
