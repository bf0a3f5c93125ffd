#!/usr/bin/env node
// Runs the TypeScript CLI through tsx, so no build step is needed.
import { register } from 'tsx/esm/api';

// `start` serves the browser SDK: build it first (skipped when sdk/dist is up to date).
if (process.argv[2] === 'start') await (await import('../sdk/build.mjs')).build();

register();
await import('../api/cli/manette.ts');
