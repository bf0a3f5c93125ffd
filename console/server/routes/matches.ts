// The matches page's endpoints (docs/console.md#matches), each one manette_admin.* call:
//   GET  /games/:jeu/matches?statut=&limit=&offset=   → console_matches
//   GET  /games/:jeu/matches/:id                      → match_show (the CLI's `match show`)
//   GET  /games/:jeu/matches/:id/replay?depuis=&limit= → console_match_replay (states by the match's own rules)
//   POST /games/:jeu/matches/:id/end {gagnant?, nul?, raison?} → console_match_end → match_end (audited)
//   POST /games/:jeu/matches/:id/cancel {raison?}     → console_match_cancel → match_cancel (audited)
//   GET  /games/:jeu/realtime                         → console_realtime, and the console token signed here
import { z } from 'zod';
import { adminCall, consoleRoute, GameParams, gameParamsWith, paging } from '../route.js';

const jeuParams = GameParams;
const matchParams = gameParamsWith('id');

/** The topic the console hears a game's new matches on (manette_admin's trigger sends `partie`). */
export const GAME_TOPIC_PREFIX = 'manette_jeu_';
export const ROOM_PREFIX = 'manette_partie_';

export const matchesRoutes = [
  consoleRoute({
    method: 'get', path: '/games/:jeu/matches',
    params: jeuParams,
    query: z.object({
      statut: z.enum(['en_cours', 'terminee', 'annulee', 'all']).default('en_cours'),
      ...paging(50, 200),
    }).strict(),
    handler: ({ deps, params, query }) => adminCall(deps, 'select manette_admin.console_matches($1, $2, $3, $4) as r',
      [params.jeu, query.statut, query.limit, query.offset]),
  }),
  consoleRoute({
    method: 'get', path: '/games/:jeu/matches/:id',
    params: matchParams,
    handler: ({ deps, params }) => adminCall(deps, 'select manette_admin.match_show($1, $2) as r', [params.jeu, params.id]),
  }),
  consoleRoute({
    method: 'get', path: '/games/:jeu/matches/:id/replay',
    params: matchParams,
    query: z.object({
      depuis: z.coerce.number().int().min(0).max(1_000_000_000).default(0),
      limit: z.coerce.number().int().min(1).max(500).default(100),
    }).strict(),
    handler: ({ deps, params, query }) => adminCall(deps, 'select manette_admin.console_match_replay($1, $2, $3, $4) as r',
      [params.jeu, params.id, query.depuis, query.limit]),
  }),
  consoleRoute({
    method: 'post', path: '/games/:jeu/matches/:id/end',
    params: matchParams,
    // Types only: "exactly one of gagnant and nul" and "a participant" are match_end's own
    // checks (validation_failed on gagnant), the same the CLI reaches.
    body: z.object({
      gagnant: z.string().max(100).nullable().optional(),
      nul: z.boolean().optional(),
      raison: z.string().nullable().optional(),
    }).strict(),
    handler: ({ deps, params, body }) => adminCall(deps, 'select manette_admin.console_match_end($1, $2, $3, $4, $5) as r',
      [params.jeu, params.id, body.gagnant ?? null, body.nul ?? false, body.raison ?? null]),
  }),
  consoleRoute({
    method: 'post', path: '/games/:jeu/matches/:id/cancel',
    params: matchParams,
    body: z.object({ raison: z.string().nullable().optional() }).strict(),
    handler: ({ deps, params, body }) => adminCall(deps, 'select manette_admin.console_match_cancel($1, $2, $3) as r',
      [params.jeu, params.id, body.raison ?? null]),
  }),
  consoleRoute({
    method: 'get', path: '/games/:jeu/realtime',
    params: jeuParams,
    async handler({ deps, params }) {
      // The game is checked (game_not_found) even when the console has no Realtime.
      const game = await adminCall<{ jeu_id: string; cle: string | null }>(deps, 'select manette_admin.console_realtime($1) as r', [params.jeu]);
      const rt = deps.realtime;
      // The project's key (MANETTE_REALTIME_KEY), else for the local stand-in one of the
      // game's own keys, which its socket check accepts (as a player's client presents).
      const key = rt?.key || game.cle;
      if (!rt || !key) return null;
      const { token, exp } = await rt.signer.consoleToken({ gameId: game.jeu_id });
      return {
        url: rt.url, key, token, token_expire_le: new Date(exp * 1000).toISOString(),
        topic_jeu: `${GAME_TOPIC_PREFIX}${game.jeu_id}`, prefixe_partie: ROOM_PREFIX,
      };
    },
  }),
];
