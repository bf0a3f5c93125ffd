// The players page (to be written).
import type { ConsolePage } from '../types.js';
import { t } from '../i18n.js';

export const playersPage: ConsolePage = {
  id: 'players',
  label: { en: 'Players', fr: 'Joueurs' },
  component: () => <p class="muted">{t({ en: 'Not built yet.', fr: 'Pas encore construite.' })}</p>,
};
