// The panels page (to be written).
import type { ConsolePage } from '../types.js';
import { t } from '../i18n.js';

export const panelsPage: ConsolePage = {
  id: 'panels',
  label: { en: 'Panels', fr: 'Panneaux' },
  component: () => <p class="muted">{t({ en: 'Not built yet.', fr: 'Pas encore construite.' })}</p>,
};
