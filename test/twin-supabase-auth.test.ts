// The twin's Supabase Auth (twin/supabase-auth/server.ts), as `npm start` runs it for the demo:
// sign-up and password sign-in answer as Supabase Auth does with e-mail confirmations off,
// its errors carry Supabase's error codes, the gateway refuses a request without `apikey`, a
// refresh token is used once and a logout ends the user's sessions, the tokens verify against
// its key set with Supabase's claims; with a file, a restart on the same port keeps the
// signing key and the accounts, and the file holds no password nor refresh token.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { startSupabaseAuthStandIn, type SupabaseAuthStandIn } from '../twin/supabase-auth/server.js';

const dirs: string[] = [];
const running: SupabaseAuthStandIn[] = [];
afterAll(async () => {
  for (const s of running) await s.close().catch(() => {});
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function call(auth: SupabaseAuthStandIn, pathname: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${auth.origin}${pathname}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { apikey: 'sb_publishable_test', 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (res.status === 204 ? null : await res.json()) as Record<string, any> };
}

describe('the twin\'s Supabase Auth', () => {
  it('signs up, signs in, refreshes once and logs out as Supabase Auth answers', async () => {
    const auth = await startSupabaseAuthStandIn();
    running.push(auth);
    const noKey = await fetch(`${auth.authUrl}/signup`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(noKey.status).toBe(401);

    expect((await call(auth, '/auth/v1/signup', { email: 'pas-un-courriel', password: 'secret-long' })).body.error_code).toBe('validation_failed');
    const weak = await call(auth, '/auth/v1/signup', { email: 'lin@studio.test', password: 'court' });
    expect(weak).toMatchObject({ status: 422, body: { error_code: 'weak_password', weak_password: { reasons: ['length'] } } });

    const up = await call(auth, '/auth/v1/signup', { email: 'Lin@Studio.test', password: 'secret-long', data: { full_name: 'Lin' } });
    expect(up.status).toBe(200);
    expect(up.body).toMatchObject({ token_type: 'bearer', expires_in: 3600, user: { email: 'lin@studio.test', user_metadata: { full_name: 'Lin' } } });
    expect((await call(auth, '/auth/v1/signup', { email: 'lin@studio.test', password: 'autre-secret' })).body.error_code).toBe('user_already_exists');

    // Supabase's access token claims, verified through the published key set.
    const { payload, protectedHeader } = await jwtVerify(up.body.access_token, createRemoteJWKSet(new URL(`${auth.authUrl}/.well-known/jwks.json`)), {
      issuer: auth.authUrl, audience: 'authenticated',
    });
    expect(protectedHeader.alg).toBe('ES256');
    expect(payload).toMatchObject({ sub: up.body.user.id, role: 'authenticated', aal: 'aal1', email: 'lin@studio.test', is_anonymous: false });
    expect(payload.jti).toBeUndefined();
    expect(typeof payload.session_id).toBe('string');

    expect((await call(auth, '/auth/v1/token?grant_type=password', { email: 'lin@studio.test', password: 'faux' })).body.error_code).toBe('invalid_credentials');
    const signIn = await call(auth, '/auth/v1/token?grant_type=password', { email: 'lin@studio.test', password: 'secret-long' });
    expect(signIn.body.user.id).toBe(up.body.user.id);
    const me = await call(auth, '/auth/v1/user', undefined, { authorization: `Bearer ${signIn.body.access_token}` });
    expect(me.body.id).toBe(up.body.user.id);

    // A refresh token is used once.
    const refreshed = await call(auth, '/auth/v1/token?grant_type=refresh_token', { refresh_token: signIn.body.refresh_token });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.access_token).not.toBe(signIn.body.access_token);
    expect((await call(auth, '/auth/v1/token?grant_type=refresh_token', { refresh_token: signIn.body.refresh_token })).body.error_code).toBe('refresh_token_not_found');

    // Logout (scope global, supabase-js's default): every refresh token of the user ends.
    expect((await call(auth, '/auth/v1/logout', {}, { authorization: `Bearer ${refreshed.body.access_token}` })).status).toBe(204);
    expect((await call(auth, '/auth/v1/token?grant_type=refresh_token', { refresh_token: refreshed.body.refresh_token })).status).toBe(400);
    expect((await call(auth, '/auth/v1/token?grant_type=refresh_token', { refresh_token: up.body.refresh_token })).status).toBe(400);
  });

  it('keeps its key and accounts across a restart on the same port, with only hashes in its file', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'manette-auth-'));
    dirs.push(dir);
    const file = path.join(dir, 'supabase-auth.json');
    const first = await startSupabaseAuthStandIn({ file });
    const up = await call(first, '/auth/v1/signup', { email: 'kim@studio.test', password: 'secret-de-kim' });
    const keys = (await call(first, '/auth/v1/.well-known/jwks.json')).body.keys;
    const port = new URL(first.origin).port;
    await first.close();

    const kept = await readFile(file, 'utf8');
    expect(kept).not.toContain('secret-de-kim');
    expect(kept).not.toContain(up.body.refresh_token);

    const again = await startSupabaseAuthStandIn({ file, port: Number(port) });
    running.push(again);
    expect(again.authUrl).toBe(first.authUrl);
    expect((await call(again, '/auth/v1/.well-known/jwks.json')).body.keys).toEqual(keys);
    const signIn = await call(again, '/auth/v1/token?grant_type=password', { email: 'kim@studio.test', password: 'secret-de-kim' });
    expect(signIn.body.user.id).toBe(up.body.user.id);
    expect((await call(again, '/auth/v1/token?grant_type=refresh_token', { refresh_token: up.body.refresh_token })).status).toBe(200);
  });
});
