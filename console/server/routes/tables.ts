// The tables page's endpoints: each one call of a manette_admin.* function (migration
// 20261128000400_console_tables_leaderboards.sql), the import the same as `manette import`
// (api/cli/rows-file.ts parses the text, manette_admin.table_rows_import writes it).
//   GET    /games/:jeu/tables                   → console_tables
//   GET    /games/:jeu/tables/:table/rows       → console_table_rows (?<colonne>=<valeur>&joueur_id&limit&offset)
//   POST   /games/:jeu/tables/:table/rows       → table_row_insert {donnees}
//   PATCH  /games/:jeu/tables/:table/rows/:id   → table_row_update {donnees}
//   DELETE /games/:jeu/tables/:table/rows/:id   → table_rows_delete (as `manette rows delete --id`)
//   POST   /games/:jeu/tables/:table/import     → table_rows_import {format, contenu, mode, cle?}
import { z } from 'zod';
import { IMPORT_SQL, importValues, parseRows } from '../../../api/cli/rows-file.js';
import { adminCall, consoleRoute, GameParams, gameParamsWith } from '../route.js';

const game = GameParams;
const table = gameParamsWith('table');
const row = gameParamsWith('table', 'id');
const donnees = z.object({ donnees: z.record(z.string(), z.unknown()) }).strict();

export const tablesRoutes = [
  consoleRoute({
    method: 'get', path: '/games/:jeu/tables', params: game,
    handler: ({ deps, params }) => adminCall(deps, 'select manette_admin.console_tables($1) as r', [params.jeu]),
  }),
  // Every query parameter but limit and offset is a filter, as in GET /tables/:nomTable
  // (joueur_id too); the SQL reads and checks them.
  consoleRoute({
    method: 'get', path: '/games/:jeu/tables/:table/rows', params: table,
    query: z.record(z.string(), z.string()),
    handler: ({ deps, params, query }) => {
      const { limit, offset, ...filters } = query;
      const int = (v: string | undefined, d: number) => (v === undefined ? d : /^\d{1,9}$/.test(v) ? Number(v) : -1);
      return adminCall(deps, 'select manette_admin.console_table_rows($1, $2, $3::jsonb, $4, $5) as r',
        [params.jeu, params.table, JSON.stringify(filters), int(limit, 50), int(offset, 0)]);
    },
  }),
  consoleRoute({
    method: 'post', path: '/games/:jeu/tables/:table/rows', params: table, body: donnees,
    handler: ({ deps, params, body }) => adminCall(deps, 'select manette_admin.table_row_insert($1, $2, $3::jsonb) as r',
      [params.jeu, params.table, JSON.stringify(body.donnees)]),
  }),
  consoleRoute({
    method: 'patch', path: '/games/:jeu/tables/:table/rows/:id', params: row, body: donnees,
    handler: ({ deps, params, body }) => adminCall(deps, 'select manette_admin.table_row_update($1, $2, $3, $4::jsonb) as r',
      [params.jeu, params.table, params.id, JSON.stringify(body.donnees)]),
  }),
  consoleRoute({
    method: 'delete', path: '/games/:jeu/tables/:table/rows/:id', params: row,
    handler: ({ deps, params }) => adminCall(deps, 'select manette_admin.table_rows_delete($1, $2, $3::text[], false) as r',
      [params.jeu, params.table, [params.id]]),
  }),
  // The text of a CSV or JSON file (read by the page), parsed as `manette import` parses a
  // file; mode ajout (add), replace (--replace) or cle (--cle <colonne>).
  consoleRoute({
    method: 'post', path: '/games/:jeu/tables/:table/import', params: table, bodyLimit: '60mb',
    body: z.object({
      format: z.enum(['csv', 'json']),
      contenu: z.string(),
      mode: z.enum(['ajout', 'replace', 'cle']).default('ajout'),
      cle: z.string().min(1).optional(),
      nom: z.string().max(255).optional(),
    }).strict().refine((b) => (b.mode === 'cle') === (b.cle !== undefined), { path: ['cle'], message: 'cle with mode cle only (and needed there)' }),
    handler: ({ deps, params, body, lang }) => {
      const input = parseRows(body.nom || body.format.toUpperCase(), body.format, body.contenu, lang);
      return adminCall(deps, IMPORT_SQL, importValues(params.jeu, params.table, input, body.mode === 'replace', body.mode === 'cle' ? body.cle : undefined));
    },
  }),
];
