// The local stand-in's JWT secret (Supabase Realtime's `jwt_secret`): generated once and
// kept in the data folder, so tokens survive restarts and every process of this instance
// signs and verifies with the same key.
import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Settings } from '../../api/config/settings.js';
import type { JWK } from 'jose';
import { createRealtimeSigner, newRealtimeSecret, privateJwkSetting, publicJwk, type RealtimeSigner } from '../../api/security/realtime-token.js';

export const REALTIME_SECRET_FILE = 'realtime-jwt-secret';

export async function localRealtimeSecret(dataDir: string): Promise<string> {
  const file = path.join(dataDir, REALTIME_SECRET_FILE);
  await mkdir(dataDir, { recursive: true });
  // Written aside, then linked into place: two first starts agree on one whole secret.
  // One candidate per call (not per process): concurrent callers must not remove each other's.
  const candidate = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(candidate, newRealtimeSecret(), { mode: 0o600 });
  try {
    await link(candidate, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    await rm(candidate, { force: true });
  }
  const secret = (await readFile(file, 'utf8')).trim();
  if (secret.length < 32) throw new Error(`${file} does not hold a realtime secret (delete it to make a new one)`);
  return secret;
}

/**
 * The local stand-in's keys and the signer of players' tokens for it, the same in the
 * primary and in every worker: its secret (MANETTE_REALTIME_JWT_SECRET, else the data
 * folder's) and, with MANETTE_REALTIME_JWT_PRIVATE_KEY, that key's public part as its JWKS
 * (as a hosted project lists its imported signing key), the key then signing the tokens.
 */
export async function localRealtimeSigning(settings: Settings): Promise<{ secret: string; jwks?: { keys: JWK[] }; signer: RealtimeSigner }> {
  const secret = settings.MANETTE_REALTIME_JWT_SECRET ?? await localRealtimeSecret(settings.MANETTE_DATA_DIR);
  if (settings.MANETTE_REALTIME_JWT_PRIVATE_KEY) {
    const privateJwk = privateJwkSetting(settings.MANETTE_REALTIME_JWT_PRIVATE_KEY);
    const signer = await createRealtimeSigner({ privateJwk }, settings.MANETTE_REALTIME_TOKEN_TTL_S);
    return { secret, jwks: { keys: [publicJwk(privateJwk)] }, signer };
  }
  return { secret, signer: await createRealtimeSigner({ secret }, settings.MANETTE_REALTIME_TOKEN_TTL_S) };
}
