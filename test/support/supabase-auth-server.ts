// Supabase Auth (GoTrue) played on a local port, as far as supabase-js's auth client uses it
// for a password sign-in: POST /auth/v1/token?grant_type=password|refresh_token (a session:
// access_token, token_type, expires_in, expires_at, refresh_token, user), GET /auth/v1/user,
// POST /auth/v1/logout, and the key set at /auth/v1/.well-known/jwks.json. The access tokens
// carry the claims Supabase documents ("JWT Claims Reference": iss <url>/auth/v1, aud and role
// `authenticated`, sub the user's id, exp, iat, email, phone, app_metadata, user_metadata,
// aal, amr, session_id, is_anonymous) and no jti, signed ES256 as with asymmetric JWT signing
// keys. A user declared `forged` gets tokens signed by a key the set does not publish.
import http from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import { newKey, sign, type SigningKey } from './jwks-server.js';

export interface AuthUser { id: string; email: string; password: string; name?: string; forged?: boolean }

export interface SupabaseAuthServer {
  /** http://127.0.0.1:<port>: what supabase-js's createClient takes as the project URL. */
  origin: string;
  /** <origin>/auth/v1: MANETTE_SUPABASE_AUTH_URL. */
  authUrl: string;
  addUser(u: Omit<AuthUser, 'id'> & { id?: string }): AuthUser;
  /** Access tokens minted so far (sign-ins and refreshes), per user id. */
  issued(userId: string): number;
  close(): Promise<void>;
}

export async function serveSupabaseAuth(): Promise<SupabaseAuthServer> {
  const key: SigningKey = await newKey('ES256');
  const stranger: SigningKey = await newKey('ES256', key.kid);
  const users = new Map<string, AuthUser>();
  const refreshTokens = new Map<string, { userId: string; sessionId: string }>();
  const counts = new Map<string, number>();
  let lastIat = 0;
  let origin = '';

  const userJson = (u: AuthUser) => ({
    id: u.id, aud: 'authenticated', role: 'authenticated', email: u.email, phone: '',
    app_metadata: { provider: 'email', providers: ['email'] }, user_metadata: u.name ? { full_name: u.name } : {},
    identities: [], created_at: new Date(0).toISOString(), updated_at: new Date().toISOString(), is_anonymous: false,
  });

  async function session(u: AuthUser, sessionId: string) {
    // Two tokens of one user never share their iat (tokens without jti are told apart by it).
    const iat = Math.max(Math.floor(Date.now() / 1000), lastIat + 1);
    lastIat = iat;
    const exp = iat + 3600;
    const access = await sign(u.forged ? stranger : key, {
      iss: `${origin}/auth/v1`, aud: 'authenticated', sub: u.id, exp, iat, email: u.email, phone: '',
      app_metadata: { provider: 'email', providers: ['email'] }, user_metadata: u.name ? { full_name: u.name } : {},
      role: 'authenticated', aal: 'aal1', amr: [{ method: 'password', timestamp: iat }], session_id: sessionId, is_anonymous: false,
    });
    counts.set(u.id, (counts.get(u.id) ?? 0) + 1);
    const refresh = randomBytes(12).toString('base64url');
    refreshTokens.set(refresh, { userId: u.id, sessionId });
    return { access_token: access, token_type: 'bearer', expires_in: 3600, expires_at: exp, refresh_token: refresh, user: userJson(u) };
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    res.setHeader('access-control-allow-origin', '*');
    res.setHeader('access-control-allow-headers', '*');
    res.setHeader('access-control-allow-methods', 'GET, POST, OPTIONS');
    const send = (status: number, body?: unknown) => {
      if (body === undefined) { res.writeHead(status).end(); return; }
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (req.method === 'OPTIONS') return send(204);
    let raw = '';
    req.on('data', (c: Buffer) => { raw += c.toString(); });
    req.on('end', () => {
      void (async () => {
        const body = raw ? JSON.parse(raw) as Record<string, string> : {};
        if (req.method === 'GET' && url.pathname === '/auth/v1/.well-known/jwks.json') return send(200, { keys: [key.publicJwk] });
        if (req.method === 'POST' && url.pathname === '/auth/v1/token') {
          const grant = url.searchParams.get('grant_type');
          if (grant === 'password') {
            const u = [...users.values()].find((x) => x.email === body.email && x.password === body.password);
            if (!u) return send(400, { code: 400, error_code: 'invalid_credentials', msg: 'Invalid login credentials' });
            return send(200, await session(u, randomUUID()));
          }
          if (grant === 'refresh_token') {
            const r = refreshTokens.get(body.refresh_token ?? '');
            if (!r) return send(400, { code: 400, error_code: 'refresh_token_not_found', msg: 'Invalid Refresh Token: Refresh Token Not Found' });
            refreshTokens.delete(body.refresh_token!);
            return send(200, await session(users.get(r.userId)!, r.sessionId));
          }
          return send(400, { code: 400, error_code: 'validation_failed', msg: 'unsupported_grant_type' });
        }
        const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
        const sub = bearer ? (JSON.parse(Buffer.from(bearer.split('.')[1] ?? '', 'base64url').toString() || '{}') as { sub?: string }).sub : undefined;
        if (req.method === 'GET' && url.pathname === '/auth/v1/user') {
          const u = sub ? users.get(sub) : undefined;
          return u ? send(200, userJson(u)) : send(403, { code: 403, error_code: 'bad_jwt', msg: 'invalid JWT' });
        }
        if (req.method === 'POST' && url.pathname === '/auth/v1/logout') return send(204);
        send(404, { code: 404, msg: 'Not Found' });
      })().catch(() => send(500, { code: 500, msg: 'error' }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    origin,
    authUrl: `${origin}/auth/v1`,
    addUser(u) {
      const user = { id: randomUUID(), ...u };
      users.set(user.id, user);
      return user;
    },
    issued: (id) => counts.get(id) ?? 0,
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
