// The twin's Supabase Auth (GoTrue), as far as supabase-js's auth client uses it for e-mail and
// password accounts, answering as Supabase Auth does with e-mail confirmations off (the local
// `supabase start` default, `[auth.email] enable_confirmations = false`):
//   POST /auth/v1/signup {email, password, data?}        → a session (a new, confirmed user)
//   POST /auth/v1/token?grant_type=password|refresh_token → a session
//   GET  /auth/v1/user, POST /auth/v1/logout, GET /auth/v1/.well-known/jwks.json
// A session is {access_token, token_type, expires_in, expires_at, refresh_token, user}; errors
// are {code, error_code, msg} (user_already_exists, weak_password, validation_failed,
// invalid_credentials, refresh_token_not_found, bad_jwt). Access tokens carry the claims of
// Supabase's "JWT Claims Reference" (iss <origin>/auth/v1, aud and role `authenticated`, sub,
// exp, iat, email, phone, app_metadata, user_metadata, aal, amr, session_id, is_anonymous; no
// jti), signed ES256 as by a project's asymmetric signing key; the key set publishes its
// public half. Like Supabase's API gateway, every request but the key set needs an `apikey`
// header (any value: the twin does not check the project's keys here).
//
// With `file`, the signing key, the users (passwords as scrypt hashes) and the refresh tokens
// (as SHA-256 hashes) are kept there, so a restart on the same port keeps the issuer, the
// key and the accounts (`npm start` keeps them in its data folder). Without, all is in memory.
// A user added with `forged` gets tokens signed by a key the set does not publish (tests).
import http from 'node:http';
import { createHash, randomBytes, randomUUID, scrypt, timingSafeEqual } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { exportJWK, generateKeyPair, importJWK, jwtVerify, SignJWT, type JWK } from 'jose';

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number) => Promise<Buffer>;

/** How long an access token lives (Supabase's default JWT expiry, 3600 s). */
export const ACCESS_TOKEN_SECONDS = 3600;
/** Supabase Auth's default minimum password length. */
const MIN_PASSWORD = 6;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface AuthUser { id: string; email: string; password: string; name?: string; forged?: boolean }

interface StoredUser {
  id: string; email: string; salt: string; hash: string; name?: string; forged?: boolean;
  user_metadata: Record<string, unknown>; created_at: string;
}
interface StoredRefresh { user_id: string; session_id: string }
interface State { key: JWK; users: StoredUser[]; refresh: Record<string, StoredRefresh> }

export interface SupabaseAuthStandIn {
  /** http://127.0.0.1:<port>: what supabase-js's createClient takes as the project URL. */
  origin: string;
  /** <origin>/auth/v1: MANETTE_SUPABASE_AUTH_URL. */
  authUrl: string;
  /** A confirmed user, as if signed up (tests). */
  addUser(u: Omit<AuthUser, 'id'> & { id?: string }): Promise<AuthUser>;
  /** Access tokens minted so far (sign-ups, sign-ins and refreshes), per user id. */
  issued(userId: string): number;
  close(): Promise<void>;
}

export async function startSupabaseAuthStandIn(opts: { port?: number; host?: string; file?: string } = {}): Promise<SupabaseAuthStandIn> {
  const state = await loadState(opts.file);
  const kid = String(state.key.kid);
  const privateKey = await importJWK(state.key, 'ES256');
  const publicJwk = { kty: state.key.kty, crv: state.key.crv, x: state.key.x, y: state.key.y, kid, alg: 'ES256', use: 'sig' };
  const publicKey = await importJWK(publicJwk, 'ES256');
  // Tokens of a `forged` user: same kid, a key nobody publishes.
  const stranger = (await generateKeyPair('ES256')).privateKey;
  const users = new Map(state.users.map((u) => [u.id, u]));
  const counts = new Map<string, number>();
  let lastIat = 0;
  let origin = '';
  let saving: Promise<void> = Promise.resolve();

  const save = () => {
    if (!opts.file) return Promise.resolve();
    const file = opts.file;
    const body = JSON.stringify({ key: state.key, users: [...users.values()], refresh: state.refresh } satisfies State);
    // One write at a time, each complete (a rename), so a crash leaves the last whole file.
    saving = saving.then(async () => {
      await writeFile(`${file}.tmp`, body, { mode: 0o600 });
      await rename(`${file}.tmp`, file);
    });
    return saving;
  };

  const userJson = (u: StoredUser) => ({
    id: u.id, aud: 'authenticated', role: 'authenticated', email: u.email, email_confirmed_at: u.created_at, phone: '',
    confirmed_at: u.created_at, app_metadata: { provider: 'email', providers: ['email'] }, user_metadata: u.user_metadata,
    identities: [], created_at: u.created_at, updated_at: new Date().toISOString(), is_anonymous: false,
  });

  async function session(u: StoredUser, sessionId: string, method: string) {
    // Two tokens of one user never share their iat (tokens without jti are told apart by it).
    const iat = Math.max(Math.floor(Date.now() / 1000), lastIat + 1);
    lastIat = iat;
    const exp = iat + ACCESS_TOKEN_SECONDS;
    const access = await new SignJWT({
      iss: `${origin}/auth/v1`, aud: 'authenticated', sub: u.id, exp, iat, email: u.email, phone: '',
      app_metadata: { provider: 'email', providers: ['email'] }, user_metadata: u.user_metadata,
      role: 'authenticated', aal: 'aal1', amr: [{ method, timestamp: iat }], session_id: sessionId, is_anonymous: false,
    }).setProtectedHeader({ alg: 'ES256', kid, typ: 'JWT' }).sign(u.forged ? stranger : privateKey);
    counts.set(u.id, (counts.get(u.id) ?? 0) + 1);
    const refresh = randomBytes(12).toString('base64url');
    state.refresh[sha256(refresh)] = { user_id: u.id, session_id: sessionId };
    await save();
    return { access_token: access, token_type: 'bearer', expires_in: ACCESS_TOKEN_SECONDS, expires_at: exp, refresh_token: refresh, user: userJson(u) };
  }

  async function createUser(email: string, password: string, metadata: Record<string, unknown>, extra: Partial<StoredUser> = {}): Promise<StoredUser> {
    const salt = randomBytes(16);
    const user: StoredUser = {
      id: extra.id ?? randomUUID(), email: email.toLowerCase(), salt: salt.toString('base64'),
      hash: (await scryptAsync(password, salt, 32)).toString('base64'), user_metadata: metadata,
      created_at: new Date().toISOString(), ...(extra.forged ? { forged: true } : {}),
    };
    users.set(user.id, user);
    await save();
    return user;
  }

  async function passwordMatches(u: StoredUser, password: string): Promise<boolean> {
    const hash = await scryptAsync(password, Buffer.from(u.salt, 'base64'), 32);
    return timingSafeEqual(hash, Buffer.from(u.hash, 'base64'));
  }

  const byEmail = (email: unknown) => typeof email === 'string' ? [...users.values()].find((u) => u.email === email.toLowerCase()) : undefined;
  const fail = (code: number, error_code: string, msg: string, more: Record<string, unknown> = {}) => ({ status: code, body: { code, error_code, msg, ...more } });

  async function answer(method: string, url: URL, headers: http.IncomingHttpHeaders, body: Record<string, unknown>): Promise<{ status: number; body?: unknown }> {
    if (method === 'GET' && url.pathname === '/auth/v1/.well-known/jwks.json') return { status: 200, body: { keys: [publicJwk] } };
    // Supabase's gateway, before Auth: a request without a key never reaches it.
    if (!headers.apikey) return { status: 401, body: { message: 'No API key found in request', hint: 'No `apikey` request header or url param was found.' } };
    if (method === 'POST' && url.pathname === '/auth/v1/signup') {
      const { email, password } = body;
      if (typeof email !== 'string' || !EMAIL.test(email)) return fail(400, 'validation_failed', 'Unable to validate email address: invalid format');
      if (typeof password !== 'string' || password.length < MIN_PASSWORD) {
        return fail(422, 'weak_password', `Password should be at least ${MIN_PASSWORD} characters.`, { weak_password: { reasons: ['length'] } });
      }
      if (byEmail(email)) return fail(422, 'user_already_exists', 'User already registered');
      const data = body.data && typeof body.data === 'object' ? body.data as Record<string, unknown> : {};
      const user = await createUser(email, password, data);
      return { status: 200, body: await session(user, randomUUID(), 'password') };
    }
    if (method === 'POST' && url.pathname === '/auth/v1/token') {
      const grant = url.searchParams.get('grant_type');
      if (grant === 'password') {
        const u = byEmail(body.email);
        if (!u || typeof body.password !== 'string' || !(await passwordMatches(u, body.password))) {
          return fail(400, 'invalid_credentials', 'Invalid login credentials');
        }
        return { status: 200, body: await session(u, randomUUID(), 'password') };
      }
      if (grant === 'refresh_token') {
        const hashed = typeof body.refresh_token === 'string' ? sha256(body.refresh_token) : '';
        const r = state.refresh[hashed];
        const u = r ? users.get(r.user_id) : undefined;
        if (!r || !u) return fail(400, 'refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found');
        delete state.refresh[hashed];
        return { status: 200, body: await session(u, r.session_id, 'password') };
      }
      return fail(400, 'validation_failed', 'unsupported_grant_type');
    }
    const bearer = /^Bearer (.+)$/.exec(headers.authorization ?? '')?.[1];
    const claims = bearer ? await verified(bearer) : undefined;
    if (method === 'GET' && url.pathname === '/auth/v1/user') {
      const u = claims?.sub ? users.get(claims.sub) : undefined;
      return u ? { status: 200, body: userJson(u) } : fail(403, 'bad_jwt', 'invalid JWT: unable to parse or verify signature');
    }
    if (method === 'POST' && url.pathname === '/auth/v1/logout') {
      if (!claims) return fail(403, 'bad_jwt', 'invalid JWT: unable to parse or verify signature');
      // scope=global (supabase-js's default): every session of the user; local: this one.
      const scope = url.searchParams.get('scope') ?? 'global';
      for (const [hashed, r] of Object.entries(state.refresh)) {
        if (r.user_id === claims.sub && (scope !== 'local' || r.session_id === claims.session_id)) delete state.refresh[hashed];
      }
      await save();
      return { status: 204 };
    }
    return { status: 404, body: { code: 404, error_code: 'not_found', msg: 'Not Found' } };
  }

  /** The claims of a token this server signed with its published key (undefined otherwise). */
  async function verified(token: string): Promise<{ sub?: string; session_id?: string } | undefined> {
    try {
      const { payload } = await jwtVerify(token, publicKey, { issuer: `${origin}/auth/v1`, audience: 'authenticated' });
      return payload as { sub?: string; session_id?: string };
    } catch {
      return undefined;
    }
  }

  const server = http.createServer((req, res) => {
    res.setHeader('access-control-allow-origin', '*');
    res.setHeader('access-control-allow-headers', 'apikey, authorization, content-type, x-client-info, x-supabase-api-version');
    res.setHeader('access-control-allow-methods', 'GET, POST, OPTIONS');
    const send = (status: number, body?: unknown) => {
      if (body === undefined) { res.writeHead(status).end(); return; }
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (req.method === 'OPTIONS') return send(204);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        let body: Record<string, unknown> = {};
        try {
          const raw = Buffer.concat(chunks).toString();
          body = raw ? JSON.parse(raw) as Record<string, unknown> : {};
        } catch {
          return send(400, { code: 400, error_code: 'bad_json', msg: 'Could not parse request body as JSON' });
        }
        const out = await answer(req.method ?? 'GET', new URL(req.url ?? '/', 'http://x'), req.headers, body ?? {});
        send(out.status, out.body);
      })().catch(() => send(500, { code: 500, error_code: 'unexpected_failure', msg: 'Unexpected failure' }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    origin,
    authUrl: `${origin}/auth/v1`,
    async addUser(u) {
      const user = await createUser(u.email, u.password, u.name ? { full_name: u.name } : {}, { id: u.id, forged: u.forged });
      return { ...u, id: user.id };
    },
    issued: (id) => counts.get(id) ?? 0,
    close: async () => {
      await new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); });
      await saving;
    },
  };
}

function sha256(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

/** The kept state, or a new one (a new signing key) when there is no file yet. */
async function loadState(file: string | undefined): Promise<State> {
  if (file) {
    try {
      const kept = JSON.parse(await readFile(file, 'utf8')) as State;
      if (kept.key?.d && Array.isArray(kept.users)) return { key: kept.key, users: kept.users, refresh: kept.refresh ?? {} };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    await mkdir(path.dirname(file), { recursive: true });
  }
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const key = { ...(await exportJWK(privateKey)), kid: `twin-auth-${randomUUID().slice(0, 8)}`, alg: 'ES256' };
  return { key, users: [], refresh: {} };
}
