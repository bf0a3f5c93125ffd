// POST /players/mot-de-passe/oubli → api.players_mot_de_passe_oubli, then the mail (not awaited)
// SQL now: supabase/schema/functions/api.players_mot_de_passe_oubli.sql
import { randomInt } from 'node:crypto';
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { callApi } from '../../db/pool.js';
import { buildResetMail, sendResetMailInBackground, type ResetMailData } from '../../mail/reset-mail.js';
import { Email } from '../schemas.js';

export default defineRoute({
  method: 'post',
  path: '/players/mot-de-passe/oubli',
  tag: 'Players',
  summary: 'Ask for a password reset code by mail',
  description: 'Always answers `{ok: true, data: {}}`, whether the address is an account\'s or not. When it is, a mail '
    + 'carries an 8-digit code valid 30 minutes, once (a new code replaces the previous one asked from the same client '
    + 'network); for `POST /players/mot-de-passe/reinitialiser`. Limited silently: 3 codes per account and client '
    + 'network, and 10 requests per client network, in 15 minutes. The mail follows `Accept-Language` (English when it prefers `en`, French otherwise) '
    + 'and the game file\'s `courriels`.',
  auth: 'key',
  body: z.object({ email: Email }),
  response: z.object({ data: z.object({}) }),
  async handler({ body, ctx, deps }) {
    // Made for every request, used only when SQL says a mail is due.
    const code = String(randomInt(0, 100_000_000)).padStart(8, '0');
    const result = await callApi<{ envoyer: boolean } & Partial<ResetMailData>>(
      deps.pool, 'players_mot_de_passe_oubli', ctx, { email: body.email, code });
    if (result.envoyer) {
      const url = deps.settings.MANETTE_SMTP_URL;
      void sendResetMailInBackground(buildResetMail(result as ResetMailData, code, ctx.lang ?? 'fr', url), url, deps.logger);
    }
    return { data: {} };
  },
});
