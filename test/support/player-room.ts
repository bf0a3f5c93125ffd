// A player's realtime-js client joined to a private match room, as the SDK joins it: the
// settings of GET /realtime/config, the player's realtime token. Collects the names of the
// broadcasts it receives (what Supabase bills one delivery each).
import WebSocket from 'ws';
import { RealtimeClient, type RealtimeClientOptions } from '@supabase/realtime-js';
import type { client } from './harness.js';

/** Joins `room` for the player with `token`; `clients` keeps the client for the test's cleanup. */
export async function joinPlayerRoom(api: ReturnType<typeof client>, token: string, room: string, clients: RealtimeClient[]): Promise<string[]> {
  const config = (await api.get('/realtime/config', { token })).body;
  const c = new RealtimeClient(config.url, { params: { apikey: config.key }, transport: WebSocket as unknown as RealtimeClientOptions['transport'], timeout: 5_000 });
  clients.push(c);
  await c.setAuth(config.token);
  const got: string[] = [];
  const ch = c.channel(config.channel_prefix + room, { config: { private: true } }).on('broadcast', { event: '*' }, (m) => got.push(m.event));
  await new Promise<void>((resolve, reject) => ch.subscribe((status, err) => {
    if (status === 'SUBSCRIBED') resolve();
    else if (status !== 'CLOSED') reject(new Error(`${status} ${err?.message ?? ''}`));
  }));
  return got;
}
