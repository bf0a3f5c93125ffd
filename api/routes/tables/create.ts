// POST /tables/:nomTable → api.tables_create
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { callApi } from '../../db/pool.js';
import { ERRORS } from '../../http/errors.js';
import { Donnees, Ligne, TableParams } from './schemas.js';

// Visible ASCII, as in HTTP header values that clients generate (UUIDs, ULIDs, …).
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

export default defineRoute({
  method: 'post',
  path: '/tables/:nomTable',
  tag: 'Tables',
  summary: 'Créer une ligne (le joueur connecté en est le propriétaire)',
  description: 'Jeton requis (`ecriture: joueurs`) ; une table en `ecriture: serveur` refuse (`forbidden`). '
    + 'En-tête `Idempotency-Key` (1 à 255 caractères ASCII visibles) : la même clé du même joueur '
    + 'dans les 24 h renvoie la première réponse et ne crée rien de plus.',
  auth: 'key',
  params: TableParams,
  notFound: ERRORS.tableNotFound,
  body: Donnees,
  response: z.object({ data: Ligne }),
  status: 201,
  handler: ({ params, body, ctx, deps, req }) => {
    const key = req.get('idempotency-key');
    if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) {
      throw ERRORS.validationFailed([{ champ: 'Idempotency-Key', message: '1 à 255 caractères ASCII visibles' }]);
    }
    return callApi(deps.pool, 'tables_create', ctx, { table: params.nomTable, donnees: body.donnees, idempotency_key: key });
  },
});
