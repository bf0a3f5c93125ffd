// Steam logins (docs/accounts.md, "Steam and Discord"): a session ticket the game got from
// Steam (ISteamUser::GetAuthSessionTicket, or GetAuthTicketForWebApi(identity)), hex-encoded,
// checked by Steam's Web API: GET <MANETTE_STEAM_API_URL>/ISteamUserAuth/AuthenticateUserTicket/v1/
// ?key=<publisher key>&appid=<app id>&ticket=<hex>[&identity=<identity>]. Steam answers
// {"response": {"params": {"result": "OK", "steamid", "ownersteamid", "vacbanned", "publisherbanned"}}}
// for a valid ticket of that app, {"response": {"error": {"errorcode", "errordesc"}}} otherwise.
// The publisher key is a secret of the server's environment: it is sent to Steam only, never
// stored, never logged (the request's URL holds it: it is never printed).
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { ApiError } from '../errors.js';
import type { Settings } from '../config/settings.js';
import type { TokenIdentity } from './identity-token.js';

export interface SteamProvider { type: 'steam'; app_id: number; identite: string | null }

/** A hex ticket: Steam's tickets are at most a few kilobytes (8192 hex characters here). */
export const STEAM_TICKET = /^(?:[0-9a-fA-F]{2}){1,4096}$/;
/** How long a used ticket's hash is kept (a replay within it is refused). Steam keeps a
 *  ticket valid until the game cancels it (CancelAuthTicket): a game cancels it after login. */
export const STEAM_TICKET_KEEP_S = 24 * 3600;
/** A SteamID64: decimal digits. */
const STEAM_ID = /^[0-9]{1,20}$/;
const TIMEOUT_MS = 10_000;

/** Steam reached nothing usable: the client may try again. */
export const providerUnavailable = () => new ApiError(503, 'unavailable', { retryAfter: 1 });
/** The server lacks the secret of a provider the game declares, or the provider refused it. */
export const providerNotConfigured = (provider: 'steam' | 'discord') => new ApiError(503, 'fournisseur_non_configure', { reason: provider });

export function createSteamVerifier(settings: Settings, logger?: Logger) {
  return async function verifySteamTicket(ticket: string, provider: SteamProvider): Promise<TokenIdentity | null> {
    if (!STEAM_TICKET.test(ticket)) return null;
    const appId = String(provider.app_id);
    const key = settings.MANETTE_STEAM_PUBLISHER_KEYS[appId] ?? settings.MANETTE_STEAM_PUBLISHER_KEY;
    if (!key || settings.MANETTE_STEAM_API_URL === 'twin') {
      // `twin` is replaced by the stand-in's URL by `manette start`; elsewhere it is no URL.
      logger?.error({ app_id: appId }, 'steam login: no publisher key (MANETTE_STEAM_PUBLISHER_KEY or MANETTE_STEAM_PUBLISHER_KEYS)');
      throw providerNotConfigured('steam');
    }
    const url = new URL('ISteamUserAuth/AuthenticateUserTicket/v1/', settings.MANETTE_STEAM_API_URL.replace(/\/*$/, '/'));
    url.searchParams.set('key', key);
    url.searchParams.set('appid', appId);
    url.searchParams.set('ticket', ticket);
    if (provider.identite) url.searchParams.set('identity', provider.identite);
    let status: number;
    let body: unknown;
    try {
      const res = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'error' });
      status = res.status;
      body = await res.json().catch(() => null);
    } catch {
      logger?.warn({ app_id: appId }, 'steam login: the Steam Web API could not be reached');
      throw providerUnavailable();
    }
    if (status === 401 || status === 403) {
      // Steam's answer to a wrong or revoked key (or a key without access to this app).
      logger?.error({ app_id: appId, status }, 'steam login: Steam refused the publisher key');
      throw providerNotConfigured('steam');
    }
    const response = (body as { response?: { params?: Record<string, unknown>; error?: Record<string, unknown> } } | null)?.response;
    if (response?.error) return null; // invalid, expired, cancelled, another app's or another identity's ticket
    const params = response?.params;
    if (status !== 200 || !params) {
      logger?.warn({ app_id: appId, status }, 'steam login: unexpected answer from the Steam Web API');
      throw providerUnavailable();
    }
    if (params.result !== 'OK' || typeof params.steamid !== 'string' || !STEAM_ID.test(params.steamid)) return null;
    if (params.vacbanned === true) throw new ApiError(403, 'compte_steam_banni', { reason: 'vac' });
    if (params.publisherbanned === true) throw new ApiError(403, 'compte_steam_banni', { reason: 'editeur' });
    const now = Math.floor(Date.now() / 1000);
    return {
      iss: 'steam',
      sub: params.steamid,
      aud: [appId],
      exp: now + STEAM_TICKET_KEEP_S,
      token_hash: createHash('sha256').update(`steam\n${appId}\n${ticket.toLowerCase()}`).digest('hex'),
      name: null,
      iat: now,
    };
  };
}
