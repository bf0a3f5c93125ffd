// POST /players/avatar → api.players_avatar
// SQL now: supabase/schema/functions/api.players_avatar.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { passApi } from '../../db/pool.js';
import { Joueur } from '../schemas.js';

export default defineRoute({
  method: 'post',
  path: '/players/avatar',
  tag: 'Players',
  summary: 'Change the avatar (PNG, JPEG or WebP in base64, at most 256 KiB)',
  auth: 'player',
  // Type, base64, size and signature are checked by api.players_avatar
  // (supabase/migrations/*_one_home_players_rules.sql).
  body: z.object({
    contenu: z.string().meta({ description: 'The image in base64: at most 256 KiB once decoded.' }),
    mime_type: z.string().meta({ description: '`image/png`, `image/jpeg` or `image/webp`, matching the content.' }),
  }),
  response: z.object({ data: z.object({ joueur: Joueur }) }),
  handler: ({ body, ctx, deps }) => passApi(deps.pool, 'players_avatar', ctx, body),
});
