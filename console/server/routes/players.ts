// The players page's endpoints (console/web/pages/players.tsx):
//   GET  /games/:jeu/players?q=&limit=&offset=   → manette_admin.console_players
//   GET  /games/:jeu/players/:id                 → manette_admin.console_player
//   POST /games/:jeu/players/:id/sessions/revoke → manette_admin.session_revoke ({session_id}: one session)
//                                                 | manette_admin.players_revoke_sessions (none: all, as the CLI)
//   GET  /games/:jeu/players/:id/economie?limit=&avant= → manette_admin.console_player_economy (wallet,
//                                                 inventory, ledger newest first paged by id; read only)
//   POST /games/:jeu/players/:id/ban {raison, jusqu_a?} → manette_admin.players_ban (as `manette players ban`)
//   POST /games/:jeu/players/:id/unban              → manette_admin.players_unban (as `manette players unban`)
//   GET  /games/:jeu/players/:id/identites          → manette_admin.console_player_identities (the identities
//                                                 of the game file's connexions, the Supabase user id, Google; read only)
//   GET  /games/:jeu/players/:id/notifications      → manette_admin.console_player_notifications (subscriptions,
//                                                 kinds turned off, presence, latest deliveries; read only)
// SQL now: supabase/schema/functions/manette_admin.console_players.sql, console_player.sql,
// session_revoke.sql, players_revoke_sessions.sql, console_player_economy.sql, players_ban.sql,
// players_unban.sql, console_player_identities.sql, console_player_notifications.sql.
import { z } from 'zod';
import { adminCall, consoleRoute, GameParams, paging } from '../route.js';

const game = GameParams;
const player = game.extend({ id: z.uuid() });

export const playersRoutes = [
  consoleRoute({
    method: 'get', path: '/games/:jeu/players',
    params: game,
    query: z.object({
      q: z.string().max(254).default(''),
      ...paging(25, 200),
    }),
    handler: ({ deps, params, query }) => adminCall(deps, 'select manette_admin.console_players($1, $2, $3, $4) as r',
      [params.jeu, query.q, query.limit, query.offset]),
  }),
  consoleRoute({
    method: 'get', path: '/games/:jeu/players/:id',
    params: player,
    handler: ({ deps, params }) => adminCall(deps, 'select manette_admin.console_player($1, $2) as r', [params.jeu, params.id]),
  }),
  consoleRoute({
    method: 'post', path: '/games/:jeu/players/:id/sessions/revoke',
    params: player,
    body: z.strictObject({ session_id: z.uuid().optional() }),
    handler: async ({ deps, params, body }) => {
      if (!body.session_id) {
        // Every active session of the player: the CLI's `manette players revoke-sessions`.
        return adminCall(deps, 'select manette_admin.players_revoke_sessions($1, $2) as r', [params.jeu, params.id]);
      }
      // One session, of this player (another player's session is not found).
      return adminCall(deps, 'select manette_admin.session_revoke($1, $2, $3) as r', [params.jeu, body.session_id, params.id]);
    },
  }),
  consoleRoute({
    method: 'post', path: '/games/:jeu/players/:id/ban',
    params: player,
    body: z.strictObject({
      // 1 to 1000 characters once trimmed: checked by the SQL function (validation_failed, as the CLI).
      raison: z.string().max(2000),
      // The end (ISO 8601 with a zone); absent or null: until unban. In the past: validation_failed.
      jusqu_a: z.iso.datetime({ offset: true }).nullable().optional(),
    }),
    handler: ({ deps, params, body }) => adminCall(deps, 'select manette_admin.players_ban($1, $2, $3, $4) as r',
      [params.jeu, params.id, body.jusqu_a ?? null, body.raison]),
  }),
  consoleRoute({
    method: 'post', path: '/games/:jeu/players/:id/unban',
    params: player,
    body: z.strictObject({}),
    handler: ({ deps, params }) => adminCall(deps, 'select manette_admin.players_unban($1, $2) as r', [params.jeu, params.id]),
  }),
  consoleRoute({
    method: 'get', path: '/games/:jeu/players/:id/identites',
    params: player,
    handler: ({ deps, params }) => adminCall(deps, 'select manette_admin.console_player_identities($1, $2) as r', [params.jeu, params.id]),
  }),
  consoleRoute({
    method: 'get', path: '/games/:jeu/players/:id/economie',
    params: player,
    query: z.object({
      limit: z.coerce.number().int().min(1).max(200).default(20),
      avant: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
    }),
    handler: ({ deps, params, query }) => adminCall(deps, 'select manette_admin.console_player_economy($1, $2, $3, $4) as r',
      [params.jeu, params.id, query.limit, query.avant ?? null]),
  }),
  consoleRoute({
    method: 'get', path: '/games/:jeu/players/:id/notifications',
    params: player,
    handler: ({ deps, params }) => adminCall(deps, 'select manette_admin.console_player_notifications($1, $2) as r', [params.jeu, params.id]),
  }),
];
