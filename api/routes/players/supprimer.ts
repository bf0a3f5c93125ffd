// POST /players/me/supprimer → api.players_supprimer_start (an identity token: api.players_jeton_start), the credential checked here, api.players_supprimer
// SQL now: supabase/schema/functions/api.players_supprimer_start.sql, supabase/schema/functions/api.players_jeton_start.sql, supabase/schema/functions/api.players_supprimer.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { callApi } from '../../db/pool.js';
import { checkPassword, passwordCost, reserveHashThen } from '../../security/password.js';
import { ApiError, ERRORS } from '../../http/errors.js';
import type { Provider } from '../../security/identity-token.js';
import { Fournisseur, Jeton } from './login-jeton.js';
import { CodeVerifier, DiscordCode, RedirectUri } from './login-discord.js';

const ONE_PROOF = 'une seule preuve : password, id_token, ou fournisseur et jeton';

interface Start {
  supprime: boolean;
  attempt_id: number | null;
  password_hash: string | null;
  google_sub: string | null;
  invite: boolean;
  /** The game's connexions.discord.client_id, when it declares Discord. */
  discord_client_id?: string;
}

export default defineRoute({
  method: 'post',
  path: '/players/me/supprimer',
  tag: 'Players',
  summary: 'Delete the logged-in player’s account (GDPR article 17)',
  description: 'Confirmed by the password (`{password}`), or by a Google ID token issued within the last '
    + '10 minutes for the account’s Google id (`{id_token}`), or by an identity token issued within the last 10 minutes '
    + 'for one of the account’s identities (`{fournisseur, jeton}`, checked as `POST /players/login/jeton` checks it, '
    + 'and used; a Steam ticket with `fournisseur: "steam"`), or a fresh Discord code of the account’s Discord user '
    + '(`{fournisseur: "discord", code, code_verifier?, redirect_uri?}`); a guest, who has none of these, sends `{}`. '
    + 'Anything else: `invalid_credentials`, nothing changed (a wrong password counts as a failed login, '
    + 'with the same limits). In one transaction: the queue left, ongoing matches abandoned, then every '
    + 'personal datum erased; the player stays only as an anonymous participant (`supprime-…`) of the '
    + 'matches they played. Idempotent: the same token again (now revoked) gets the same answer.',
  auth: 'player',
  body: z.object({
    password: z.string().min(1).max(128).optional(),
    id_token: z.string().min(1).max(8192).optional(),
    fournisseur: Fournisseur.optional(),
    jeton: Jeton.optional(),
    // Discord: a fresh OAuth2 code of the account's Discord user (as POST /players/login/discord takes it).
    code: DiscordCode.optional(),
    code_verifier: CodeVerifier.optional(),
    redirect_uri: RedirectUri.optional(),
  }).refine((b) => b.password === undefined || b.id_token === undefined, {
    message: 'password ou id_token, pas les deux', path: ['id_token'],
  }).superRefine((b, ctx) => {
    if (b.code !== undefined || b.code_verifier !== undefined || b.redirect_uri !== undefined) {
      if (b.fournisseur !== 'discord' || b.code === undefined || b.jeton !== undefined || b.password !== undefined || b.id_token !== undefined) {
        ctx.addIssue({ code: 'custom', message: ONE_PROOF, path: ['code'] });
      }
      return;
    }
    if (b.fournisseur === undefined && b.jeton === undefined) return;
    for (const field of ['password', 'id_token'] as const) {
      if (b[field] !== undefined) ctx.addIssue({ code: 'custom', message: ONE_PROOF, path: [field] });
    }
    if (b.fournisseur === undefined) ctx.addIssue({ code: 'custom', message: ONE_PROOF, path: ['fournisseur'] });
    if (b.jeton === undefined) ctx.addIssue({ code: 'custom', message: ONE_PROOF, path: ['jeton'] });
  }),
  response: z.object({ data: z.object({ supprime: z.literal(true) }) }),
  async handler({ body, ctx, deps }) {
    if (body.fournisseur === 'discord' && body.code !== undefined) {
      // The start first: a repeat after the deletion is answered without spending the code
      // at Discord (a code works once there); it names the game's Discord application.
      const start = await callApi<Start>(deps.pool, 'players_supprimer_start', ctx);
      if (start.supprime) return { data: { supprime: true } };
      if (start.discord_client_id === undefined) throw new ApiError(400, 'fournisseur_inconnu');
      const identity = await deps.verifyDiscordCode!(
        { code: body.code, code_verifier: body.code_verifier, redirect_uri: body.redirect_uri },
        { type: 'discord', client_id: start.discord_client_id });
      if (!identity) throw ERRORS.invalidCredentials();
      return callApi(deps.pool, 'players_supprimer', ctx, { methode: 'jeton', jeton: { ...identity, fournisseur: 'discord' } });
    }
    if (body.fournisseur !== undefined && body.jeton !== undefined) {
      // Signature, issuer, audience and expiry here; the identity's owner, freshness and
      // single use in api.players_supprimer (which also answers a repeat after the deletion).
      const provider = await callApi<Provider>(deps.pool, 'players_jeton_start', ctx, { fournisseur: body.fournisseur });
      const identity = await deps.verifyIdentityToken!(body.jeton, provider);
      if (!identity) throw ERRORS.invalidCredentials();
      return callApi(deps.pool, 'players_supprimer', ctx, { methode: 'jeton', jeton: { ...identity, fournisseur: body.fournisseur } });
    }
    if (body.password !== undefined) {
      const cost = passwordCost(deps.settings);
      const { ticket, started: start } = await reserveHashThen(cost, () => callApi<Start>(deps.pool, 'players_supprimer_start', ctx), ctx.key);
      if (start.supprime) { ticket.cancel(); return { data: { supprime: true } }; }
      const { ok } = await checkPassword(body.password, start.password_hash, cost, ticket);
      return callApi(deps.pool, 'players_supprimer', ctx, {
        methode: 'password', attempt_id: start.attempt_id, verified: ok, verified_password_hash: start.password_hash,
      });
    }
    const start = await callApi<Start>(deps.pool, 'players_supprimer_start', ctx);
    if (start.supprime) return { data: { supprime: true } };
    if (body.id_token !== undefined) {
      // Signature, issuer and expiry here; audience, account and freshness in api.players_supprimer.
      const identity = await deps.verifyGoogleIdToken(body.id_token);
      return callApi(deps.pool, 'players_supprimer', ctx, {
        methode: 'google', attempt_id: start.attempt_id, verified: identity !== null,
        google: identity ? { aud: identity.aud, sub: identity.sub, iat: identity.iat } : null,
      });
    }
    return callApi(deps.pool, 'players_supprimer', ctx, { methode: 'aucune', attempt_id: start.attempt_id });
  },
});
