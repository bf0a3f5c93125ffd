// GET /realtime/config: where games subscribe to match events (contract section 8).
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { callApi } from '../../db/pool.js';

export const CHANNEL_PREFIX = 'manette_partie_';

/** The local stand-in, on the host the game used to reach the API (LAN, emulator, ...). */
function localRealtimeUrl(baseUrl: string, port: number): string {
  const url = new URL(baseUrl);
  return `${url.protocol === 'https:' ? 'wss' : 'ws'}://${url.hostname}:${port}/realtime/v1`;
}

export default defineRoute({
  method: 'get',
  path: '/realtime/config',
  tag: 'Temps réel',
  summary: 'Configuration du canal temps réel (Phoenix / Supabase Realtime)',
  auth: 'key',
  response: z.object({ url: z.string(), key: z.string(), channel_prefix: z.string() }),
  async handler({ ctx, deps }) {
    await callApi(deps.pool, 'game_check', ctx);
    const { localPort } = deps.realtime;
    return {
      url: localPort ? localRealtimeUrl(ctx.base_url, localPort) : deps.realtime.url,
      key: deps.realtime.key || (ctx.key as string),
      channel_prefix: CHANNEL_PREFIX,
    };
  },
});
