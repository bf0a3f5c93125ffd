// docs/api.md's "Request bodies and queries" is what the zod schemas say (the same schemas
// validate requests and make the OpenAPI document): a field added, removed or changed in a
// route without `npm run docs:api` fails here.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { API_DOC, apiDocWithReference, renderRequestReference } from '../tools/docs/api-reference.js';

describe('docs/api.md, request bodies and queries', () => {
  it('is up to date with the routes\' schemas (else: npm run docs:api)', async () => {
    expect(await readFile(API_DOC, 'utf8')).toBe(await apiDocWithReference());
  });

  it('names every body field and query parameter of the endpoints that take one', () => {
    const part = renderRequestReference();
    expect(part).toContain('### `POST /storage/upload`');
    expect(part).toMatch(/^\| `mime_type` \| body \| string \| yes \| /m);
    expect(part).toMatch(/^\| `depuis` \| query \| string \| no \| /m);
    expect(part).toMatch(/^\| `quantite` \| body \| integer \| no \| /m);
  });
});
