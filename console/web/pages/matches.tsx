// The matches page (to be written).
import type { ConsolePage } from '../types.js';
import { t } from '../i18n.js';

export const matchesPage: ConsolePage = {
  id: 'matches',
  label: { en: 'Matches', fr: 'Parties' },
  component: () => <p class="muted">{t({ en: 'Not built yet.', fr: 'Pas encore construite.' })}</p>,
};
