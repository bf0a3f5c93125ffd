#!/usr/bin/env node
// Runs a TypeScript file: node bin/run-ts.js file.ts [args]. Its compiled JavaScript when
// the file is part of the current build in dist/ (the embedded Postgres' supervisor, which
// twin/postgres/embedded.ts starts this way; bin/build.mjs), else the file through tsx
// (benchmarks, scripts). Either way the script sees itself, the .ts file, as argv[1].
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { compiledUrl, ROOT } from './build.mjs';

const file = process.argv[2];
if (!file) {
  console.error('usage: node bin/run-ts.js <file.ts> [args...]');
  process.exit(2);
}
process.argv.splice(1, 1); // the script sees itself as argv[1]
const compiled = compiledUrl(path.relative(ROOT, path.resolve(file)));
if (compiled) {
  await import(compiled);
} else {
  (await import('tsx/esm/api')).register();
  await import(pathToFileURL(path.resolve(file)).href);
}
