// GET /realtime/config → api.realtime_config: where games subscribe to match events, and
// with a player token, the signed realtime token for that player (docs/matches.md).
// SQL now: supabase/schema/functions/api.realtime_config.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { callApi } from '../../db/pool.js';

export const CHANNEL_PREFIX = 'manette_partie_';

/** The game file's realtime.evenements: what an accepted action sends (docs/matches.md, "Events per action"). */
type MatchEvents = 'action_etat' | 'etat' | 'etat_aux_autres';

/** The local stand-in, on the host the game used to reach the API (LAN, emulator, ...). */
function localRealtimeUrl(baseUrl: string, port: number): string {
  const url = new URL(baseUrl);
  return `${url.protocol === 'https:' ? 'wss' : 'ws'}://${url.hostname}:${port}/realtime/v1`;
}

interface RealtimeConfigRow { private: boolean; evenements?: MatchEvents; jeu_id: string; joueur_id: string | null; session_expire: number | null }

export default defineRoute({
  method: 'get',
  path: '/realtime/config',
  tag: 'Realtime',
  summary: 'Where to subscribe to realtime events (Phoenix / Supabase Realtime), and the player’s token',
  description: 'Without x-player-token, `token` and `token_expire_le` are null. With it: a JWT for private rooms '
    + '(`access_token` of phx_join, or realtime-js’s `setAuth`), valid for at most ten minutes (renew it before `token_expire_le`) and never past the session. '
    + '`evenements`, present when the game file’s realtime.evenements is not the default `action_etat` (`action` then `etat` on the '
    + 'match room, as when absent): `etat` (one `etat` carrying `action`, on the room) or `etat_aux_autres` (that `etat` on the '
    + 'other participants’ channels `manette_joueur_<id>`, on the room only in a mode with spectators).',
  auth: 'key',
  response: z.object({
    url: z.string(), key: z.string(), channel_prefix: z.string(), private: z.boolean(),
    evenements: z.enum(['etat', 'etat_aux_autres']).optional(),
    token: z.string().nullable(), token_expire_le: z.string().nullable(),
  }),
  async handler({ ctx, deps }) {
    const cfg = await callApi<RealtimeConfigRow>(deps.pool, 'realtime_config', ctx);
    let token: string | null = null;
    let tokenExpires: string | null = null;
    if (cfg.joueur_id && cfg.session_expire !== null) {
      const signed = await deps.realtime.signer.playerToken({
        playerId: cfg.joueur_id, gameId: cfg.jeu_id, notAfter: cfg.session_expire,
      });
      token = signed.token;
      tokenExpires = new Date(signed.exp * 1000).toISOString();
    }
    const { localPort } = deps.realtime;
    return {
      url: localPort ? localRealtimeUrl(ctx.base_url, localPort) : deps.realtime.url,
      key: deps.realtime.key || (ctx.key as string),
      channel_prefix: CHANNEL_PREFIX,
      private: cfg.private,
      // Only when not the default: a game that keeps the seed's events gets the seed's answer.
      ...(cfg.evenements && cfg.evenements !== 'action_etat' ? { evenements: cfg.evenements } : {}),
      token,
      token_expire_le: tokenExpires,
    };
  },
});
