// The overview page (to be written).
import type { ConsolePage } from '../types.js';
import { t } from '../i18n.js';

export const overviewPage: ConsolePage = {
  id: 'overview',
  label: { en: 'Overview', fr: 'Vue d’ensemble' },
  component: () => <p class="muted">{t({ en: 'Not built yet.', fr: 'Pas encore construite.' })}</p>,
};
