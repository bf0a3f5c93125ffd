// The keys page (to be written).
import type { ConsolePage } from '../types.js';
import { t } from '../i18n.js';

export const keysPage: ConsolePage = {
  id: 'keys',
  label: { en: 'Keys', fr: 'Clés' },
  component: () => <p class="muted">{t({ en: 'Not built yet.', fr: 'Pas encore construite.' })}</p>,
};
