// An API worker of `manette start` (forked by api/workers.ts with node:cluster): compiled
// or through tsx, as bin/manette.js decides.
import { compiledUrl } from './build.mjs';

const compiled = compiledUrl('api/workers.ts');
if (!compiled) (await import('tsx/esm/api')).register();
const { runWorker } = await import(compiled ?? '../api/workers.ts');
await runWorker();
