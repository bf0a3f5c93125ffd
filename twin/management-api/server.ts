// A local stand-in for the Supabase Management API (api.supabase.com), as far as
// `supabase functions deploy` uses it, so that the real CLI deploys to it: what the CLI
// uploads is kept, file by file with its path, for the tests to run it.
//
// How the CLI (2.117.0; its Go side, which `functions deploy` runs) talks to it:
// - The API's base URL comes from the CLI's profile: `--profile <file>` or
//   SUPABASE_PROFILE=<file>, a JSON file with name, api_url, dashboard_url, project_host
//   (internal/utils/profile.go). cliEnvironment() writes one and sets the access token.
// - Without Docker (or with --use-api) it uploads the function's files for server-side
//   bundling (pkg/function/deploy.go): POST /v1/projects/{ref}/functions/deploy?slug=<slug>,
//   multipart/form-data with one `file` part per file (its filename is the path relative
//   to the working directory) and a `metadata` part (JSON: entrypoint_path,
//   import_map_path, static_patterns, verify_jwt, name). The files are the entrypoint,
//   the import map (deno.json) and what the entrypoint reaches by relative imports
//   (pkg/function/deno.go, WalkImportPaths). It expects 201 and the function as JSON.
// - It then reads GET /v1/projects/{ref}; with Docker it first lists the functions.
//
// What the platform does here too: a bearer token is required; the uploaded files may
// total at most 5 MB (what server-side bundling accepts; Supabase's "Bundle size issues"
// guide); the function is bundled from its entrypoint out of the uploaded files alone
// (./bundler.ts), and a deploy whose graph does not resolve fails.
//
// With a project's keys (../realtime/project-keys.ts), the API keys and JWT signing keys
// endpoints too, as the CLI's generated client has them (supabase/cli
// apps/cli-go/pkg/api/client.gen.go, types.gen.go): GET/POST
// /v1/projects/{ref}/config/auth/signing-keys (create: {algorithm, private_jwk?, status?},
// 201), GET/PATCH .../signing-keys/{id} ({status}), GET /v1/projects/{ref}/api-keys
// (?reveal=true), GET/PUT /v1/projects/{ref}/api-keys/legacy (?enabled=true|false).
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { bundleProblem, type UploadedFile } from './bundler.js';
import { KeyStateError, type ProjectKeys, type SigningKey, type SigningKeyStatus } from '../realtime/project-keys.js';

/** What server-side bundling accepts: 5 MB of uploaded files (decimal megabytes, the stricter reading). */
export const MAX_UPLOAD_BYTES = 5_000_000;
const SLUG = /^[A-Za-z][A-Za-z0-9_-]*$/;

export interface FunctionDeployMetadata {
  entrypoint_path: string;
  import_map_path?: string;
  static_patterns?: string[];
  verify_jwt?: boolean;
  name?: string;
}

export interface Deployment {
  slug: string;
  version: number;
  metadata: FunctionDeployMetadata;
  /** The uploaded files, in upload order, with the paths the CLI gave them. */
  files: UploadedFile[];
}

export interface ManagementApi {
  /** e.g. http://127.0.0.1:PORT */
  url: string;
  projectRef: string;
  accessToken: string;
  /** The last successful deployment of a function. */
  deployment(slug: string): Deployment | undefined;
  /** Deploy attempts refused, with the message the CLI was given. */
  readonly refusals: { slug: string; status: number; message: string }[];
  /** The project's Edge Function secrets (`supabase secrets set`): what a deployed function finds in its environment. */
  readonly secrets: Map<string, string>;
  /** The project's API keys and JWT signing keys, when given. */
  readonly project?: ProjectKeys;
  /** The environment that points the real CLI here (a profile file written in `dir`). */
  cliEnvironment(dir: string): Promise<Record<string, string>>;
  close(): Promise<void>;
}

export interface ManagementApiOptions {
  port?: number;
  host?: string;
  maxUploadBytes?: number;
  /** The project's API keys and signing keys, served by the keys endpoints (none without). */
  project?: ProjectKeys;
}

export async function startManagementApi(opts: ManagementApiOptions = {}): Promise<ManagementApi> {
  const maxUpload = opts.maxUploadBytes ?? MAX_UPLOAD_BYTES;
  // A project ref is 20 lowercase letters; an access token is sbp_ and 40 hex digits (the CLI checks both).
  const projectRef = Array.from(randomBytes(20), (b) => String.fromCharCode(97 + (b % 26))).join('');
  const accessToken = `sbp_${randomBytes(20).toString('hex')}`;
  const createdAt = Date.now();
  const deployments = new Map<string, Deployment & { id: string; createdAt: number; updatedAt: number }>();
  const refusals: ManagementApi['refusals'] = [];
  const secrets = new Map<string, string>();

  const functionJson = (d: Deployment & { id: string; createdAt: number; updatedAt: number }) => ({
    id: d.id, slug: d.slug, name: d.metadata.name ?? d.slug, status: 'ACTIVE', version: d.version,
    created_at: d.createdAt, updated_at: d.updatedAt, verify_jwt: d.metadata.verify_jwt ?? true,
    import_map: !!d.metadata.import_map_path, entrypoint_path: d.metadata.entrypoint_path,
    import_map_path: d.metadata.import_map_path,
  });

  async function deploy(req: IncomingMessage, res: ServerResponse, query: URLSearchParams): Promise<void> {
    const refuse = (status: number, message: string, slug = query.get('slug') ?? '') => {
      refusals.push({ slug, status, message });
      send(res, status, { message });
    };
    const type = req.headers['content-type'] ?? '';
    if (!type.startsWith('multipart/form-data')) return refuse(415, 'Expected multipart/form-data');
    // The body is kept up to twice the limit (multipart framing included), no further.
    const body = await readBody(req, maxUpload * 2);
    if (!body) return refuse(413, `The function's files exceed ${maxUpload} bytes, the most server-side bundling accepts`);
    let form: FormData;
    try {
      form = await new Request('http://twin/', { method: 'POST', headers: { 'content-type': type }, body: new Uint8Array(body) }).formData();
    } catch (err) {
      return refuse(400, `Invalid multipart body: ${(err as Error).message}`);
    }
    let metadata: FunctionDeployMetadata;
    try {
      metadata = JSON.parse(String(form.get('metadata'))) as FunctionDeployMetadata;
    } catch {
      return refuse(400, 'Missing or invalid metadata');
    }
    const slug = query.get('slug') ?? metadata.name ?? '';
    if (!SLUG.test(slug)) return refuse(400, `Invalid function slug: ${JSON.stringify(slug)}`, slug);
    if (typeof metadata.entrypoint_path !== 'string') return refuse(400, 'metadata.entrypoint_path is required', slug);
    const files: UploadedFile[] = [];
    for (const part of form.getAll('file')) {
      if (typeof part === 'string') return refuse(400, 'A file part without a file name', slug);
      const name = part.name;
      if (path.posix.isAbsolute(name) || path.posix.normalize(name).startsWith('..')) return refuse(400, `Invalid file path: ${name}`, slug);
      files.push({ path: path.posix.normalize(name), bytes: Buffer.from(await part.arrayBuffer()) });
    }
    const total = files.reduce((n, f) => n + f.bytes.length, 0);
    if (total > maxUpload) return refuse(413, `The function's files total ${total} bytes, over the ${maxUpload} bytes server-side bundling accepts`, slug);
    const problem = await bundleProblem(files, metadata.entrypoint_path, metadata.import_map_path || undefined);
    if (problem) return refuse(400, `Failed to bundle the function (reason: ${problem})`, slug);

    const previous = deployments.get(slug);
    const now = Date.now();
    const d = {
      slug, metadata, files, version: (previous?.version ?? 0) + 1,
      id: previous?.id ?? randomUUID(), createdAt: previous?.createdAt ?? now, updatedAt: now,
    };
    deployments.set(slug, d);
    send(res, 201, functionJson(d));
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://twin');
    if (req.headers.authorization !== `Bearer ${accessToken}`) return send(res, 401, { message: 'Unauthorized' });
    const m = /^\/v1\/projects\/([^/]+)(\/.*)?$/.exec(url.pathname);
    if (!m) return send(res, 404, { message: 'Not found' });
    if (m[1] !== projectRef) return send(res, 404, { message: `Project ${m[1]} not found` });
    const rest = m[2] ?? '';
    if (req.method === 'GET' && rest === '') {
      return send(res, 200, {
        id: projectRef, ref: projectRef, organization_id: 'twin', name: 'manette-twin', region: 'local',
        created_at: new Date(createdAt).toISOString(), status: 'ACTIVE_HEALTHY',
        database: { host: `db.${projectRef}.supabase.test`, version: '17', postgres_engine: '17', release_channel: 'ga' },
      });
    }
    if (req.method === 'GET' && rest === '/functions') return send(res, 200, [...deployments.values()].map(functionJson));
    const fn = /^\/functions\/([^/]+)$/.exec(rest);
    if (req.method === 'GET' && fn) {
      const d = deployments.get(fn[1]!);
      return d ? send(res, 200, functionJson(d)) : send(res, 404, { message: 'Function not found' });
    }
    // `supabase secrets set` (internal/secrets/set: V1BulkCreateSecrets, 201 expected) and
    // `supabase secrets list` (names and a digest of each value, never the value).
    if (req.method === 'POST' && rest === '/secrets') {
      readBody(req, 1_000_000).then((body) => {
        const list = JSON.parse(body?.toString('utf8') ?? 'null') as { name?: unknown; value?: unknown }[] | null;
        if (!Array.isArray(list) || !list.every((e) => typeof e?.name === 'string' && typeof e.value === 'string')) {
          return send(res, 400, { message: 'Invalid secrets' });
        }
        if (list.some((e) => (e.name as string).startsWith('SUPABASE_'))) {
          return send(res, 400, { message: 'Env name cannot start with SUPABASE_' });
        }
        for (const e of list) secrets.set(e.name as string, e.value as string);
        send(res, 201, {});
      }).catch((err: Error) => send(res, 400, { message: err.message }));
      return;
    }
    if (req.method === 'GET' && rest === '/secrets') {
      return send(res, 200, [...secrets].map(([name, value]) => ({ name, value: createHash('sha256').update(value).digest('hex') })));
    }
    if (opts.project && (rest.startsWith('/config/auth/signing-keys') || rest.startsWith('/api-keys'))) {
      keysEndpoint(opts.project, req, res, rest, url.searchParams).catch((err: Error) => send(res, 500, { message: err.message }));
      return;
    }
    if (req.method === 'POST' && rest === '/functions/deploy') {
      deploy(req, res, url.searchParams).catch((err: Error) => send(res, 500, { message: err.message }));
      return;
    }
    send(res, 404, { message: 'Not found' });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://${opts.host ?? '127.0.0.1'}:${port}`;

  return {
    url, projectRef, accessToken, refusals, secrets, project: opts.project,
    deployment: (slug) => deployments.get(slug),
    async cliEnvironment(dir) {
      await mkdir(dir, { recursive: true });
      const profile = path.join(dir, 'supabase-profile.json');
      await writeFile(profile, JSON.stringify({
        name: 'manette-twin', api_url: url, dashboard_url: `${url}/dashboard`, project_host: 'supabase.test',
      }));
      return {
        SUPABASE_PROFILE: profile,
        SUPABASE_ACCESS_TOKEN: accessToken,
        SUPABASE_TELEMETRY_DISABLED: '1',
        DO_NOT_TRACK: '1',
      };
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

const signingKeyJson = (k: SigningKey) => ({
  id: k.id, algorithm: k.algorithm, status: k.status, public_jwk: k.publicJwk ?? null,
  created_at: k.createdAt, updated_at: k.updatedAt,
});
const STATUSES: SigningKeyStatus[] = ['standby', 'in_use', 'previously_used', 'revoked'];

/** The API keys and JWT signing keys endpoints over a project's keys. */
async function keysEndpoint(project: ProjectKeys, req: IncomingMessage, res: ServerResponse, rest: string, query: URLSearchParams): Promise<void> {
  const json = async (): Promise<Record<string, unknown> | undefined> => {
    try {
      const v = JSON.parse((await readBody(req, 100_000))?.toString('utf8') ?? '') as unknown;
      return typeof v === 'object' && v !== null && !Array.isArray(v) ? v as Record<string, unknown> : undefined;
    } catch {
      return undefined;
    }
  };
  const attempt = (status: number, fn: () => unknown) => {
    try {
      send(res, status, fn());
    } catch (err) {
      if (err instanceof KeyStateError) return send(res, err.status, { message: err.message });
      throw err;
    }
  };
  if (rest === '/config/auth/signing-keys' && req.method === 'GET') return send(res, 200, { keys: project.list().map(signingKeyJson) });
  if (rest === '/config/auth/signing-keys' && req.method === 'POST') {
    const body = await json();
    if (!body || typeof body.algorithm !== 'string') return send(res, 400, { message: 'algorithm is required' });
    if (typeof body.private_jwk !== 'object' || body.private_jwk === null) {
      return send(res, 400, { message: 'the twin creates signing keys only from an imported private_jwk (Supabase-generated keys have no private part here)' });
    }
    const status = body.status ?? 'standby';
    if (status !== 'standby' && status !== 'in_use') return send(res, 400, { message: 'status must be standby or in_use' });
    return attempt(201, () => signingKeyJson(project.importKey(body.algorithm as string, body.private_jwk as import('jose').JWK, status)));
  }
  if (rest === '/config/auth/signing-keys/legacy' && req.method === 'GET') return send(res, 200, signingKeyJson(project.legacyKey()));
  const one = /^\/config\/auth\/signing-keys\/([^/]+)$/.exec(rest);
  if (one && req.method === 'GET') {
    const k = project.get(one[1]!);
    return k ? send(res, 200, signingKeyJson(k)) : send(res, 404, { message: 'Signing key not found' });
  }
  if (one && req.method === 'PATCH') {
    const body = await json();
    if (!body || !STATUSES.includes(body.status as SigningKeyStatus)) return send(res, 400, { message: `status must be one of ${STATUSES.join(', ')}` });
    return attempt(200, () => signingKeyJson(project.setStatus(one[1]!, body.status as SigningKeyStatus)));
  }
  if (rest === '/api-keys' && req.method === 'GET') {
    const reveal = query.get('reveal') === 'true';
    const keys: Record<string, unknown>[] = Object.entries(project.publishableKeys).map(([name, key]) => ({
      name, type: 'publishable', prefix: key.slice(0, 'sb_publishable_'.length + 4), api_key: reveal ? key : `${key.slice(0, 'sb_publishable_'.length + 4)}...`,
    }));
    return send(res, 200, keys);
  }
  if (rest === '/api-keys/legacy' && req.method === 'GET') return send(res, 200, { enabled: project.legacyApiKeysEnabled });
  if (rest === '/api-keys/legacy' && req.method === 'PUT') {
    const enabled = query.get('enabled');
    if (enabled !== 'true' && enabled !== 'false') return send(res, 400, { message: 'enabled=true or enabled=false is required' });
    return attempt(200, () => { project.setLegacyApiKeys(enabled === 'true'); return { enabled: project.legacyApiKeysEnabled }; });
  }
  send(res, 404, { message: 'Not found' });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** The request body, or undefined when it passes `limit` bytes (the rest is read and dropped, so the client gets the answer). */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.on('end', () => resolve(size <= limit ? Buffer.concat(chunks) : undefined));
    req.on('error', reject);
  });
}
