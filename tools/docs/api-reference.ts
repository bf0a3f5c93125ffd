// docs/api.md's "Request bodies and queries": each endpoint's body and query fields, made
// from the same zod schemas as the OpenAPI document (api/openapi.ts), so they cannot drift.
// `npm run docs:api` rewrites the part between its markers; test/docs-api-reference.test.ts
// fails while it differs from what the schemas say.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { buildOpenApi } from '../../api/openapi.js';
import { routes } from '../../api/routes/index.js';

export const API_DOC = fileURLToPath(new URL('../../docs/api.md', import.meta.url));
export const BEGIN = '<!-- request-reference: begin (npm run docs:api writes this part from the zod schemas) -->';
export const END = '<!-- request-reference: end -->';

interface Schema {
  type?: string | string[]; properties?: Record<string, Schema>; required?: string[]; items?: Schema;
  enum?: unknown[]; const?: unknown; minLength?: number; maxLength?: number; minimum?: number; maximum?: number;
  exclusiveMinimum?: number; exclusiveMaximum?: number; minItems?: number; maxItems?: number; pattern?: string;
  description?: string; anyOf?: Schema[]; oneOf?: Schema[]; allOf?: Schema[]; nullable?: boolean; default?: unknown;
  additionalProperties?: boolean | Schema;
}

const cell = (s: string) => s.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** A field's type, as a reader writes it in JSON. */
function typeOf(s: Schema): string {
  const alts = s.anyOf ?? s.oneOf;
  if (alts) return [...new Set(alts.map(typeOf))].join(' or ');
  if (s.enum) return s.enum.map((v) => `\`${JSON.stringify(v)}\``).join(', ');
  if (s.const !== undefined) return `\`${JSON.stringify(s.const)}\``;
  const t = Array.isArray(s.type) ? s.type.filter((x) => x !== 'null').join(' or ') : s.type;
  if (t === 'array') return `array of ${s.items ? typeOf(s.items) : 'any'}`;
  if (t === 'object' || (!t && s.properties)) return 'object';
  return (t ?? 'any') + (s.nullable || (Array.isArray(s.type) && s.type.includes('null')) ? ' or null' : '');
}

/** Its rules: the schema's own description where it has one (it says the bounds in words), else its bounds. */
function rulesOf(s: Schema): string {
  if (s.description) return s.description;
  const r: string[] = [];
  const range = (lo: number | undefined, hi: number | undefined, unit: string) => {
    if (lo !== undefined && hi !== undefined) r.push(`${lo}–${hi}${unit}`);
    else if (lo !== undefined) r.push(`at least ${lo}${unit}`);
    else if (hi !== undefined) r.push(`at most ${hi}${unit}`);
  };
  range(s.minLength, s.maxLength, ' characters');
  range(s.minimum ?? s.exclusiveMinimum, s.maximum ?? s.exclusiveMaximum, '');
  range(s.minItems, s.maxItems, ' items');
  if (s.pattern) r.push(`pattern \`${s.pattern}\``);
  if (s.default !== undefined) r.push(`default \`${JSON.stringify(s.default)}\``);
  return r.join('; ');
}

function rows(where: string, props: Record<string, Schema>, required: string[]): string[] {
  return Object.entries(props).map(([name, s]) =>
    `| \`${name}\` | ${where} | ${cell(typeOf(s))} | ${required.includes(name) ? 'yes' : 'no'} | ${cell(rulesOf(s))} |`);
}

/** The part of docs/api.md between the markers. */
export function renderRequestReference(): string {
  const doc = buildOpenApi(routes, '/api/public/v1') as { paths: Record<string, Record<string, {
    requestBody?: { content?: Record<string, { schema?: Schema }> };
    parameters?: { in: string; name: string; required?: boolean; schema: Schema; description?: string }[];
  }>> };
  const out: string[] = [BEGIN, ''];
  for (const [p, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const body = op.requestBody?.content?.['application/json']?.schema;
      const query = (op.parameters ?? []).filter((x) => x.in === 'query');
      if (!body && query.length === 0) continue;
      out.push(`### \`${method.toUpperCase()} ${p.replace(/\{(\w+)\}/g, ':$1')}\``, '');
      const lines: string[] = [];
      for (const q of query) lines.push(...rows('query', { [q.name]: { ...q.schema, description: q.schema.description ?? q.description } }, q.required ? [q.name] : []));
      const alts = body?.anyOf ?? body?.oneOf;
      if (alts) {
        out.push(`The body is one of ${alts.length}:`, '');
        alts.forEach((a, i) => lines.push(...rows(`body (${i + 1})`, a.properties ?? {}, a.required ?? [])));
      } else if (body?.properties) {
        lines.push(...rows('body', body.properties, body.required ?? []));
      } else if (body) {
        lines.push(`| (the body) | body | ${cell(typeOf(body))} | yes | ${cell(rulesOf(body))} |`);
      }
      out.push('| Field | In | Type | Required | Rules |', '|---|---|---|---|---|', ...lines, '');
    }
  }
  out.push(END);
  return out.join('\n');
}

/** docs/api.md with its generated part as the schemas say it now. */
export async function apiDocWithReference(): Promise<string> {
  const page = await readFile(API_DOC, 'utf8');
  const from = page.indexOf(BEGIN);
  const to = page.indexOf(END);
  if (from < 0 || to < from) throw new Error(`docs/api.md has no ${BEGIN} ... ${END} part`);
  return page.slice(0, from) + renderRequestReference() + page.slice(to + END.length);
}

