// POST /players/lier → password hash, Google signature or identity token (its provider from api.players_jeton_start) checked here, then api.players_lier
// SQL now: supabase/schema/functions/api.players_lier.sql, supabase/schema/functions/api.players_jeton_start.sql
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { callApi, passApi } from '../../db/pool.js';
import { ERRORS } from '../../http/errors.js';
import { confirmedBy, hashPassword, hashTicket, passwordCost } from '../../security/password.js';
import { Email, Joueur, Password, Pseudo } from '../schemas.js';
import { Fournisseur, Jeton } from './login-jeton.js';
import { CodeVerifier, DiscordCode, discordProvider, RedirectUri } from './login-discord.js';
import type { Provider } from '../../security/identity-token.js';

const ONE_FORM = 'email et password, id_token, ou fournisseur et jeton (l’un des trois)';
const DISCORD_FORM = 'code, et code_verifier ou redirect_uri s’il y a lieu, seulement pour discord';

export default defineRoute({
  method: 'post',
  path: '/players/lier',
  tag: 'Players',
  summary: 'Link a guest to an e-mail and password, a Google account or an identity token',
  description: 'The caller must be a guest (`already_linked` otherwise). `{pseudo?, email, password}` sets the '
    + 'e-mail, the password and, when given, a new pseudo; `{id_token}` (checked as `POST /players/google` checks '
    + 'it) sets the Google identity and Google’s e-mail when verified and free in the game (the pseudo stays). '
    + '`{fournisseur, jeton}` (checked as `POST /players/login/jeton` checks it, the token then used) sets that '
    + 'identity (issuer and `sub`; the pseudo stays); with `fournisseur: "steam"`, `jeton` is a Steam ticket (as '
    + '`POST /players/login/steam` takes it); `{fournisseur: "discord", code, code_verifier?, redirect_uri?}` links '
    + 'a Discord account (as `POST /players/login/discord` takes it). '
    + 'Same player id, every datum kept, the session stays valid; `joueur.invite` becomes false. '
    + '`email_taken`, `pseudo_taken`, `google_taken` (that Google account is already a player of the game), '
    + '`identity_taken` (that identity is already a player of the game), `fournisseur_inconnu` and any '
    + 'other refusal change nothing.',
  auth: 'player',
  body: z.object({
    pseudo: Pseudo.optional(),
    email: Email.optional(),
    password: Password.optional(),
    id_token: z.string().min(1).max(8192).optional(),
    fournisseur: Fournisseur.optional(),
    jeton: Jeton.optional(),
    // Discord: an OAuth2 code, as POST /players/login/discord takes it (with fournisseur "discord").
    code: DiscordCode.optional(),
    code_verifier: CodeVerifier.optional(),
    redirect_uri: RedirectUri.optional(),
  }).superRefine((b, ctx) => {
    if (b.code !== undefined || b.code_verifier !== undefined || b.redirect_uri !== undefined) {
      if (b.fournisseur !== 'discord' || b.code === undefined || b.jeton !== undefined) {
        ctx.addIssue({ code: 'custom', message: DISCORD_FORM, path: ['code'] });
      }
      for (const field of ['pseudo', 'email', 'password', 'id_token'] as const) {
        if (b[field] !== undefined) ctx.addIssue({ code: 'custom', message: ONE_FORM, path: [field] });
      }
      return;
    }
    if (b.fournisseur !== undefined || b.jeton !== undefined) {
      for (const field of ['pseudo', 'email', 'password', 'id_token'] as const) {
        if (b[field] !== undefined) ctx.addIssue({ code: 'custom', message: ONE_FORM, path: [field] });
      }
      if (b.fournisseur === undefined) ctx.addIssue({ code: 'custom', message: ONE_FORM, path: ['fournisseur'] });
      if (b.jeton === undefined) ctx.addIssue({ code: 'custom', message: ONE_FORM, path: ['jeton'] });
      return;
    }
    if (b.id_token !== undefined) {
      for (const field of ['pseudo', 'email', 'password'] as const) {
        if (b[field] !== undefined) ctx.addIssue({ code: 'custom', message: ONE_FORM, path: [field] });
      }
      return;
    }
    if (b.email === undefined) ctx.addIssue({ code: 'custom', message: ONE_FORM, path: ['email'] });
    if (b.password === undefined) ctx.addIssue({ code: 'custom', message: ONE_FORM, path: ['password'] });
  }),
  response: z.object({ data: z.object({ joueur: Joueur }) }),
  async handler({ body, ctx, deps }) {
    if (body.fournisseur === 'discord' && body.code !== undefined) {
      const provider = await discordProvider(deps, ctx);
      const identity = await deps.verifyDiscordCode!({ code: body.code, code_verifier: body.code_verifier, redirect_uri: body.redirect_uri }, provider);
      if (!identity) throw ERRORS.invalidCredentials();
      return passApi(deps.pool, 'players_lier', ctx, { ...identity, fournisseur: 'discord' });
    }
    if (body.fournisseur !== undefined && body.jeton !== undefined) {
      const provider = await callApi<Provider>(deps.pool, 'players_jeton_start', ctx, { fournisseur: body.fournisseur });
      const identity = await deps.verifyIdentityToken!(body.jeton, provider);
      if (!identity) throw ERRORS.invalidCredentials();
      return passApi(deps.pool, 'players_lier', ctx, { ...identity, fournisseur: body.fournisseur });
    }
    if (body.id_token !== undefined) {
      const identity = await deps.verifyGoogleIdToken(body.id_token);
      if (!identity) throw ERRORS.invalidCredentials();
      return passApi(deps.pool, 'players_lier', ctx, identity);
    }
    const cost = passwordCost(deps.settings);
    const password_hash = await hashPassword(body.password!, cost, hashTicket(cost, ctx.key));
    return confirmedBy(ctx.key, passApi(deps.pool, 'players_lier', ctx, { pseudo: body.pseudo, email: body.email, password_hash }));
  },
});
