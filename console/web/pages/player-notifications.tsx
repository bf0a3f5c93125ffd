// The player page's notifications card (docs/notifications.md): the player's Web Push
// subscriptions (the push service's host), the kinds they turned off, whether they are marked
// in the room, and the latest deliveries of the outbox with their state. Read only.
// Server: GET /games/:jeu/players/:id/notifications (console/server/routes/players.ts).
import { api, gamePath } from '../api.js';
import { num, t, useLang, when } from '../i18n.js';
import { Card, DataTable, Show, useLoad } from '../ui.js';

interface Subscription { id: string; service: string | null; cree_le: string }
interface Delivery {
  notification_id: string; type: 'tour' | 'partie_trouvee' | 'partie_terminee'; canal: 'web_push' | 'webhook';
  tentatives: number; cree_le: string; etat: 'livree' | 'abandonnee' | 'en_attente';
  livree_le: string | null; prochain_essai: string | null; erreur: string | null;
}
interface PlayerNotifications {
  web_push: boolean; webhook: boolean; refuses: string[]; present_jusqu_a: string | null;
  abonnements: Subscription[]; envois: Delivery[]; envois_total: number;
}

const KIND = {
  tour: { en: 'your turn', fr: 'à vous de jouer' },
  partie_trouvee: { en: 'match found', fr: 'partie trouvée' },
  partie_terminee: { en: 'match over', fr: 'partie terminée' },
};
const STATE = {
  livree: { badge: 'ok', text: { en: 'delivered', fr: 'livrée' } },
  abandonnee: { badge: 'bad', text: { en: 'given up', fr: 'abandonnée' } },
  en_attente: { badge: 'live', text: { en: 'pending', fr: 'en attente' } },
};

export function NotificationsCard({ jeu, id }: { jeu: string; id: string }) {
  useLang();
  const data = useLoad(() => api.get<PlayerNotifications>(gamePath(jeu, 'players', id, 'notifications')), [jeu, id]);
  return (
    <Card title={t({ en: 'Notifications', fr: 'Notifications' })}>
      <Show loaded={data}>{(n) => (
        <>
          <p class="small">
            {!n.web_push && !n.webhook
              ? <span class="muted">{t({ en: 'The game file sends none (no notifications part).', fr: 'Le fichier de jeu n’en envoie pas (pas de partie notifications).' })}</span>
              : <>
                {t({ en: 'Sent by: ', fr: 'Envoyées par : ' })}
                {[n.web_push ? 'Web Push' : null, n.webhook ? 'webhook' : null].filter(Boolean).join(', ')}
                {' · '}
                {n.refuses.length
                  ? t({ en: 'Turned off: {k}', fr: 'Désactivées : {k}' }, { k: n.refuses.map((k) => t(KIND[k as keyof typeof KIND] ?? { en: k, fr: k })).join(', ') })
                  : t({ en: 'Every kind on', fr: 'Tous les types actifs' })}
                {' · '}
                {n.present_jusqu_a
                  ? t({ en: 'In the room until {d}', fr: 'Dans la salle jusqu’à {d}' }, { d: when(n.present_jusqu_a) })
                  : t({ en: 'Not in the room', fr: 'Pas dans la salle' })}
              </>}
          </p>
          <h3>{t({ en: 'Web Push subscriptions', fr: 'Abonnements Web Push' })}</h3>
          <DataTable<Subscription>
            rows={n.abonnements} rowKey={(s) => s.id}
            empty={t({ en: 'No browser subscribed.', fr: 'Aucun navigateur abonné.' })}
            columns={[
              { label: t({ en: 'Push service', fr: 'Service de push' }), cell: (s) => <code>{s.service ?? '—'}</code> },
              { label: t({ en: 'Since', fr: 'Depuis' }), cell: (s) => <span class="nowrap">{when(s.cree_le)}</span> },
            ]} />
          <h3>{t({ en: 'Latest deliveries', fr: 'Derniers envois' })}</h3>
          <DataTable<Delivery>
            rows={n.envois} rowKey={(d) => `${d.notification_id}/${d.canal}/${d.cree_le}`}
            empty={t({ en: 'Nothing sent yet.', fr: 'Rien d’envoyé pour l’instant.' })}
            columns={[
              { label: t({ en: 'When', fr: 'Quand' }), cell: (d) => <span class="nowrap">{when(d.cree_le)}</span> },
              { label: t({ en: 'Kind', fr: 'Type' }), cell: (d) => t(KIND[d.type]) },
              { label: t({ en: 'Channel', fr: 'Canal' }), cell: (d) => (d.canal === 'web_push' ? 'Web Push' : 'webhook') },
              { label: t({ en: 'State', fr: 'État' }), cell: (d) => <span class={`badge ${STATE[d.etat].badge}`}>{t(STATE[d.etat].text)}</span> },
              { label: t({ en: 'Attempts', fr: 'Tentatives' }), cell: (d) => num(d.tentatives), class: 'num' },
              { label: t({ en: 'Last error', fr: 'Dernière erreur' }), cell: (d) => (d.erreur ? <span class="small">{d.erreur}</span> : <span class="muted">—</span>), class: 'wrap' },
            ]} />
          {n.envois_total > n.envois.length
            ? <p class="muted small">{t({ en: 'The {n} newest of {total}.', fr: 'Les {n} plus récents sur {total}.' }, { n: n.envois.length, total: num(n.envois_total) })}</p>
            : null}
        </>
      )}</Show>
    </Card>
  );
}
