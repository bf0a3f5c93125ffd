#!/usr/bin/env node
// The `manette` command: its compiled JavaScript (dist/, bin/build.mjs) when it is there and
// current, as in the npm package; else its TypeScript through tsx (a checkout without a
// build, or with sources edited since), so that no one ever runs stale JavaScript.
import { compiledUrl } from './build.mjs';

// `start` serves the browser SDK: build it first (skipped when sdk/dist is up to date).
if (process.argv[2] === 'start') await (await import('../sdk/build.mjs')).build();

const compiled = compiledUrl('api/cli/manette.ts');
if (compiled) {
  await import(compiled);
} else {
  (await import('tsx/esm/api')).register();
  await import('../api/cli/manette.ts');
}
