// npm run docs:api: docs/api.md's request reference, written from the zod schemas.
import { writeFile } from 'node:fs/promises';
import { API_DOC, apiDocWithReference } from './api-reference.js';

await writeFile(API_DOC, await apiDocWithReference());
console.log('docs/api.md: request bodies and queries written from the zod schemas');
