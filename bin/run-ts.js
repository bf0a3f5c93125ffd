#!/usr/bin/env node
// Runs a TypeScript file (benchmarks, scripts) through tsx: node bin/run-ts.js file.ts [args]
import { register } from 'tsx/esm/api';
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const file = process.argv[2];
if (!file) {
  console.error('usage: node bin/run-ts.js <file.ts> [args...]');
  process.exit(2);
}
process.argv.splice(1, 1); // the script sees itself as argv[1]
register();
await import(pathToFileURL(path.resolve(file)).href);
