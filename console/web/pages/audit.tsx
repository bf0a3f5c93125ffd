// The audit page (to be written).
import type { ConsolePage } from '../types.js';
import { t } from '../i18n.js';

export const auditPage: ConsolePage = {
  id: 'audit',
  label: { en: 'Audit', fr: 'Audit' },
  component: () => <p class="muted">{t({ en: 'Not built yet.', fr: 'Pas encore construite.' })}</p>,
};
