// A process that only delivers notifications (api/notification-sender.ts), as `manette start`
// does beside the API: the tests kill it with SIGKILL in the middle of a delivery. Its
// settings come from the environment (DATABASE_URL, MANETTE_WEBHOOK_SECRET, ...); it says
// `ready` on stdout once its pool checked its identity.
import pino from 'pino';
import { readSettings } from '../../api/config/settings.js';
import { createPool, verifyApiIdentity } from '../../api/db/pool.js';
import { startNotificationSender } from '../../api/notification-sender.js';

const settings = readSettings(process.env);
const pool = createPool(settings.DATABASE_URL!, { role: settings.MANETTE_DB_ROLE, max: 2 });
await verifyApiIdentity(pool);
const sender = startNotificationSender(pool, settings, pino({ level: 'silent' }), 50);
process.stdout.write('ready\n');
process.on('SIGTERM', () => { void sender.stop().then(() => pool.end()).then(() => process.exit(0)); });
