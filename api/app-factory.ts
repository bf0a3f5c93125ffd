// What the Node server and the Supabase Edge Function share to build the façade, so
// both construct it the same way: the realtime signer for a Supabase project, the
// password hashing calibration and the Google verifier.
import type express from 'express';
import type { Logger } from 'pino';
import type { Settings } from './config/settings.js';
import type { Pool } from './db/pool.js';
import { createApp } from './app.js';
import type { Deps } from './http/route.js';
import { createGoogleVerifier } from './security/google.js';
import { createIdentityVerifier, createKeySets } from './security/identity-token.js';
import { createSteamVerifier } from './security/steam.js';
import { createDiscordVerifier } from './security/discord.js';
import { hashingQueue, passwordCost } from './security/password.js';
import { createRealtimeSigner, privateJwkSetting, type RealtimeSigningKey } from './security/realtime-token.js';

/**
 * What signs realtime tokens on a Supabase project: exactly one of the project's JWT
 * secret or a private JWK the project trusts, named in the environment.
 */
export function supabaseSigningKey(settings: Settings): RealtimeSigningKey {
  const secret = settings.MANETTE_REALTIME_JWT_SECRET;
  const jwk = settings.MANETTE_REALTIME_JWT_PRIVATE_KEY;
  if (!!secret === !!jwk) {
    throw new Error('with MANETTE_REALTIME_URL, set exactly one of MANETTE_REALTIME_JWT_SECRET (the project\'s JWT secret, HS256) '
      + 'or MANETTE_REALTIME_JWT_PRIVATE_KEY (a private JWK imported into the project\'s JWT signing keys: RS256 or ES256 on P-256, with its kid): see docs/matches.md');
  }
  if (secret) return { secret };
  return { privateJwk: privateJwkSetting(jwk!) };
}

/** Supabase Realtime (MANETTE_REALTIME_URL and its key) with players' tokens signed as the project expects. */
export async function supabaseRealtime(settings: Settings): Promise<Deps['realtime']> {
  if (!settings.MANETTE_REALTIME_URL) throw new Error('MANETTE_REALTIME_URL is not set');
  const signer = await createRealtimeSigner(supabaseSigningKey(settings), settings.MANETTE_REALTIME_TOKEN_TTL_S);
  return { url: settings.MANETTE_REALTIME_URL, key: settings.MANETTE_REALTIME_KEY ?? '', signer };
}

/** The Express façade over a pool and a realtime, as every host serves it. */
export function buildFacade(
  opts: { pool: Pool; settings: Settings; realtime: Deps['realtime'] }, logger: Logger,
): express.Express {
  // Measures the cost of a hash now, not at the first login; its parallelism is this
  // process's share of the cores (MANETTE_HASH_PARALLELISM, set per worker by `manette start`);
  // in the Edge Function, the hashing a worker holds is bounded (MANETTE_EDGE_HASH_CPU_MS).
  hashingQueue(passwordCost(opts.settings), opts.settings.MANETTE_HASH_PARALLELISM, opts.settings.MANETTE_EDGE_HASH_CPU_MS);
  // One cache of key sets for Google and the game files' connexions (security/identity-token.ts).
  const keySets = createKeySets({ cacheS: opts.settings.MANETTE_JWKS_CACHE_S, cooldownS: opts.settings.MANETTE_JWKS_COOLDOWN_S });
  return createApp({
    ...opts,
    verifyGoogleIdToken: createGoogleVerifier(opts.settings.MANETTE_GOOGLE_JWKS_URL, keySets),
    verifyIdentityToken: createIdentityVerifier(keySets, opts.settings.MANETTE_SUPABASE_AUTH_URL, createSteamVerifier(opts.settings, logger)),
    verifyDiscordCode: createDiscordVerifier(opts.settings, logger),
  }, logger);
}
