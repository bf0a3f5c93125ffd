// An API worker of `manette start` (forked by api/workers.ts with node:cluster), run
// through tsx like bin/manette.js.
import { register } from 'tsx/esm/api';

register();
const { runWorker } = await import('../api/workers.ts');
await runWorker();
