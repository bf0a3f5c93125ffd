// POST /players/register → api.players_register (supabase/migrations/*_players.sql)
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { callApi } from '../../db/pool.js';
import { hashPassword } from '../../security/password.js';
import { newPlayerToken } from '../../security/tokens.js';
import { keyedRegistration } from '../../security/register-retry.js';
import { Email, Password, Pseudo, Session } from '../schemas.js';

// ISO 3166-1 alpha-2, officially assigned codes.
const COUNTRIES = new Set((
  'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ '
  + 'BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR '
  + 'CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR '
  + 'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU '
  + 'ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ '
  + 'LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ '
  + 'MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF '
  + 'PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI '
  + 'SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR '
  + 'TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW').split(' '));
const CountryCode = z.string()
  .regex(/^[A-Za-z]{2}$/, 'code pays ISO 3166-1 alpha-2 attendu')
  .refine((c) => COUNTRIES.has(c.toUpperCase()), 'code pays ISO 3166-1 alpha-2 inconnu');

export default defineRoute({
  method: 'post',
  path: '/players/register',
  tag: 'Joueurs',
  summary: 'Créer un compte joueur et ouvrir une session',
  auth: 'key',
  body: z.object({ pseudo: Pseudo, email: Email, password: Password, pays: CountryCode.optional() }),
  response: Session,
  status: 201,
  // The password stays out of the plain body hash; keyedRegistration binds it (and makes the
  // token a retry gets back), see api/security/register-retry.ts.
  idempotent: { secret: ['password'] },
  async handler({ body, ctx, deps }) {
    const N = deps.settings.MANETTE_SCRYPT_N;
    let password_hash: string;
    let token: string;
    if (ctx.idempotency) {
      const keyed = await keyedRegistration({
        password: body.password, idempotencyKey: ctx.idempotency.key, apiKey: ctx.key ?? '',
        pseudo: body.pseudo, email: body.email, bodyHash: ctx.idempotency.body_hash,
      }, N);
      ({ passwordHash: password_hash, token } = keyed);
      ctx.idempotency.body_hash = keyed.bodyHash;
    } else {
      password_hash = await hashPassword(body.password, N);
      token = newPlayerToken();
    }
    // A replayed answer comes back without its token (never stored): it is this same one.
    const { token: _stored, ...rest } = await callApi(deps.pool, 'players_register', ctx, {
      pseudo: body.pseudo, email: body.email, pays: body.pays, password_hash, token,
    });
    return { token, ...rest };
  },
});
