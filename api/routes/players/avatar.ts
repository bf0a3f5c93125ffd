// POST /players/avatar → api.players_avatar
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { callApi } from '../../db/pool.js';
import { Joueur } from '../schemas.js';

const MAX_AVATAR_BYTES = 256 * 1024;
const SIGNATURES: Record<string, (b: Buffer) => boolean> = {
  'image/png': (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/jpeg': (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  'image/webp': (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
};

export default defineRoute({
  method: 'post',
  path: '/players/avatar',
  tag: 'Joueurs',
  summary: 'Changer l’avatar (PNG, JPEG ou WebP en base64, 256 Kio au plus)',
  auth: 'player',
  body: z.object({
    contenu: z.string().min(1).regex(/^[A-Za-z0-9+/]+={0,2}$/, 'base64 attendu'),
    mime_type: z.enum(['image/png', 'image/jpeg', 'image/webp']),
  }).superRefine((b, ctx) => {
    const bytes = Buffer.from(b.contenu, 'base64');
    if (bytes.length > MAX_AVATAR_BYTES) {
      ctx.addIssue({ code: 'custom', path: ['contenu'], message: 'image de plus de 256 Kio' });
    } else if (!SIGNATURES[b.mime_type]!(bytes)) {
      ctx.addIssue({ code: 'custom', path: ['contenu'], message: `le contenu n’est pas une image ${b.mime_type}` });
    }
  }),
  response: z.object({ data: z.object({ joueur: Joueur }) }),
  handler: ({ body, ctx, deps }) => callApi(deps.pool, 'players_avatar', ctx, body),
});
