// The leaderboards page (to be written).
import type { ConsolePage } from '../types.js';
import { t } from '../i18n.js';

export const leaderboardsPage: ConsolePage = {
  id: 'leaderboards',
  label: { en: 'Leaderboards', fr: 'Classements' },
  component: () => <p class="muted">{t({ en: 'Not built yet.', fr: 'Pas encore construite.' })}</p>,
};
