// The start check of the API's database identity (api/db/pool.ts verifyApiIdentity): the
// role its requests really run as, asked of the database through the requests' own path,
// must not bypass row level security, and must be one the URL's user may set. Otherwise
// `manette start` refuses to serve, naming the fix. (Behind a pooler: test/pooler.test.ts;
// the Edge Function: test/edge-deno.test.ts.)
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSettings } from '../api/config/settings.js';
import { callApi, createPool, IdentityError, verifyApiIdentity } from '../api/db/pool.js';
import { startService } from '../api/server.js';
import { freshDatabase, query } from './support/harness.js';

const suffix = randomBytes(4).toString('hex');
/** A role with BYPASSRLS the URL's user may set (as MANETTE_DB_ROLE could name by mistake). */
const BYPASS_ROLE = `t_bypass_${suffix}`;
/** A login that is not a member of manette_api. */
const STRANGER = `t_stranger_${suffix}`;

let databaseUrl: string;
let dir: string;

beforeAll(async () => {
  databaseUrl = await freshDatabase();
  dir = await mkdtemp(path.join(tmpdir(), 'manette-identity-'));
  await query(databaseUrl, `create role ${BYPASS_ROLE} nologin bypassrls; grant ${BYPASS_ROLE} to current_user;
    create role ${STRANGER} login password 'stranger-password'`);
});
afterAll(async () => {
  if (databaseUrl) await query(databaseUrl, `drop role if exists ${BYPASS_ROLE}; drop role if exists ${STRANGER}`);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the API identity check', () => {
  it('passes for manette_api: not a superuser, no BYPASSRLS, statement_timeout as set', async () => {
    const pool = createPool(databaseUrl, { max: 1, deadlineMs: 1_234 });
    try {
      await expect(verifyApiIdentity(pool)).resolves.toBeUndefined();
    } finally {
      await pool.end();
    }
  });

  it('`manette start` refuses to serve as a role with BYPASSRLS, naming MANETTE_DB_ROLE', async () => {
    const settings = readSettings({
      DATABASE_URL: databaseUrl, MANETTE_DB_ROLE: BYPASS_ROLE, MANETTE_WORKERS: '1', PORT: '0', HOST: '127.0.0.1',
      MANETTE_DATA_DIR: dir, MANETTE_REALTIME_URL: 'ws://127.0.0.1:1/realtime/v1', MANETTE_REALTIME_JWT_SECRET: 'x'.repeat(40),
    });
    const failure = await startService(settings, pino({ level: 'silent' })).then(
      async (service) => { await service.close(); return undefined; }, (err: unknown) => err);
    expect(failure).toBeInstanceOf(IdentityError);
    expect((failure as Error).message).toContain(`"${BYPASS_ROLE}" has BYPASSRLS`);
    expect((failure as Error).message).toContain('set MANETTE_DB_ROLE to manette_api');
  });

  it('a request on a pool whose identity was never checked is refused before its call runs', async () => {
    const pool = createPool(databaseUrl, { role: BYPASS_ROLE, max: 1 });
    try {
      await expect(callApi(pool, 'game_check', { key: 'sk_live_x', token: undefined, origin: undefined, base_url: '' }))
        .rejects.toThrow(IdentityError);
    } finally {
      await pool.end();
    }
  });

  it('refuses a URL user that may not act as the role, naming the grant', async () => {
    const url = new URL(databaseUrl);
    url.username = STRANGER;
    url.password = 'stranger-password';
    const pool = createPool(url.toString(), { max: 1 });
    try {
      const failure = await verifyApiIdentity(pool).catch((err: unknown) => err);
      expect(failure).toBeInstanceOf(IdentityError);
      expect((failure as Error).message).toContain(`grant manette_api to ${STRANGER}`);
    } finally {
      await pool.end();
    }
  });

  it('refuses a role that does not exist', async () => {
    const pool = createPool(databaseUrl, { role: `t_missing_${suffix}`, max: 1 });
    try {
      await expect(verifyApiIdentity(pool)).rejects.toThrow(/does not exist in this database.*MANETTE_DB_ROLE/);
    } finally {
      await pool.end();
    }
  });
});
