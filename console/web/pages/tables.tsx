// The tables page (to be written).
import type { ConsolePage } from '../types.js';
import { t } from '../i18n.js';

export const tablesPage: ConsolePage = {
  id: 'tables',
  label: { en: 'Tables', fr: 'Tables' },
  component: () => <p class="muted">{t({ en: 'Not built yet.', fr: 'Pas encore construite.' })}</p>,
};
