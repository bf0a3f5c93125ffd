// Discord's OAuth2 and user endpoints played on a local port, as Discord documents them
// (discord.com/developers/docs/topics/oauth2, its /.well-known/oauth-authorization-server,
// the Embedded App SDK's `authorize` command):
// - the authorization step (GET /oauth2/authorize with client_id, response_type=code,
//   redirect_uri, scope, state, and code_challenge + code_challenge_method=S256 for PKCE)
//   redirects to redirect_uri with ?code&state; a Discord Activity's `authorize` gives a code
//   with no redirect_uri. Tests call `authorize` for the user who approves;
// - POST /oauth2/token, form-encoded only (JSON is refused), grant_type=authorization_code,
//   code, redirect_uri (the authorization's, if it had one), code_verifier (when the
//   authorization had a challenge: its S256 must be the challenge), the client authenticated
//   by client_secret (form or Basic), or none for a public client using PKCE. A code works
//   once and for a few minutes; anything wrong is 400 {error: "invalid_grant"} (a bad client
//   401 {error: "invalid_client"}). The answer: {access_token, token_type: "Bearer",
//   expires_in, refresh_token, scope};
// - GET /users/@me with `Authorization: Bearer <access token>`: the user object (id,
//   username, global_name, discriminator, avatar), 401 {message: "401: Unauthorized", code: 0}
//   for another token.
import http from 'node:http';
import { createHash, randomBytes } from 'node:crypto';

export interface DiscordUser { id: string; username: string; global_name?: string | null }
export interface DiscordApp { client_id: string; client_secret?: string; /** accepts codes without a secret (PKCE) */ public?: boolean }

export interface DiscordServer {
  /** http://127.0.0.1:<port>/api/v10 (MANETTE_DISCORD_API_URL) */
  apiUrl: string;
  /** The user approves the app: the code Discord would give (to the redirect, or to an Activity). */
  authorize(p: { client_id: string; user: DiscordUser; redirect_uri?: string; code_challenge?: string; scope?: string }): string;
  /** The code passes its lifetime. */
  expire(code: string): void;
  /** Token requests' forms received, in order. */
  readonly tokenRequests: URLSearchParams[];
  /** Access tokens handed out (none should ever reach Manette's database). */
  readonly accessTokens: string[];
  close(): Promise<void>;
}

/** A PKCE pair (RFC 7636, S256), as a client makes it. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(48).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export async function serveDiscord(apps: DiscordApp[]): Promise<DiscordServer> {
  const codes = new Map<string, { client_id: string; user: DiscordUser; redirect_uri?: string; code_challenge?: string; scope: string; used: boolean; expired: boolean }>();
  const tokens = new Map<string, DiscordUser>();
  const tokenRequests: URLSearchParams[] = [];
  const accessTokens: string[] = [];
  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const invalidGrant = (res: http.ServerResponse, description: string) => json(res, 400, { error: 'invalid_grant', error_description: description });

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    if (req.method === 'POST' && url.pathname === '/api/v10/oauth2/token') {
      if (!(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
        return json(res, 400, { error: 'invalid_request', error_description: 'Content-Type must be application/x-www-form-urlencoded' });
      }
      const form = new URLSearchParams(raw);
      tokenRequests.push(form);
      let clientId = form.get('client_id');
      let secret = form.get('client_secret');
      const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
      if (basic) [clientId, secret] = Buffer.from(basic[1]!, 'base64').toString().split(':') as [string, string];
      const app = apps.find((a) => a.client_id === clientId);
      if (!app || (secret !== null && secret !== app.client_secret) || (secret === null && !app.public)) {
        return json(res, 401, { error: 'invalid_client' });
      }
      if (form.get('grant_type') !== 'authorization_code') return json(res, 400, { error: 'unsupported_grant_type' });
      const code = codes.get(form.get('code') ?? '');
      if (!code || code.used || code.expired || code.client_id !== clientId) return invalidGrant(res, 'Invalid "code" in request.');
      code.used = true;
      if ((code.redirect_uri ?? null) !== form.get('redirect_uri')) return invalidGrant(res, 'Invalid "redirect_uri" in request.');
      if (code.code_challenge !== undefined) {
        const verifier = form.get('code_verifier') ?? '';
        if (createHash('sha256').update(verifier).digest('base64url') !== code.code_challenge) return invalidGrant(res, 'Invalid "code_verifier" in request.');
      } else if (secret === null) {
        return invalidGrant(res, 'Invalid "code" in request.');
      }
      const access = randomBytes(20).toString('base64url');
      tokens.set(access, code.user);
      accessTokens.push(access);
      return json(res, 200, { token_type: 'Bearer', access_token: access, expires_in: 604800, refresh_token: randomBytes(20).toString('base64url'), scope: code.scope });
    }
    if (req.method === 'GET' && url.pathname === '/api/v10/users/@me') {
      const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
      const user = m ? tokens.get(m[1]!) : undefined;
      if (!user) return json(res, 401, { message: '401: Unauthorized', code: 0 });
      return json(res, 200, { id: user.id, username: user.username, global_name: user.global_name ?? null, discriminator: '0', avatar: null, public_flags: 0, flags: 0 });
    }
    json(res, 404, { message: '404: Not Found', code: 0 });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    apiUrl: `http://127.0.0.1:${port}/api/v10`,
    tokenRequests,
    accessTokens,
    authorize(p) {
      const code = randomBytes(15).toString('base64url');
      codes.set(code, { client_id: p.client_id, user: p.user, redirect_uri: p.redirect_uri, code_challenge: p.code_challenge, scope: p.scope ?? 'identify', used: false, expired: false });
      return code;
    },
    expire(code) { const c = codes.get(code); if (c) c.expired = true; },
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
