// Wire schemas shared by the data-table routes (docs/tables.md).
import { z } from 'zod';

export const Ligne = z.object({
  id: z.uuid(),
  joueur_id: z.uuid().nullable().meta({ description: 'Owner (the player who created the row); null for a row written by the server.' }),
  donnees: z.record(z.string(), z.unknown()).meta({ description: 'The row’s declared columns.' }),
  cree_le: z.string(),
  maj_le: z.string(),
}).meta({ id: 'Ligne' });

/** The list's own query parameters; any other parameter filters on a column. */
export const LIST_PARAMS = ['limit', 'offset', 'order_by', 'order_dir'] as const;
/** What a column cannot be called: the row's own fields and the list's parameters. */
export const RESERVED_COLUMNS: readonly string[] = ['id', 'joueur_id', 'donnees', 'cree_le', 'maj_le', ...LIST_PARAMS];

// Names are checked in SQL (an unknown or malformed table is table_not_found, a
// malformed id row_not_found), so any string gets there.
export const TableParams = z.object({
  nomTable: z.string().max(200).meta({ description: 'The table’s name, as declared in the game file.' }),
});
export const RowParams = TableParams.extend({
  id: z.string().max(200).meta({ description: 'The row’s id (a UUID).' }),
});

export const Donnees = z.object({
  donnees: z.record(z.string(), z.unknown()).meta({
    description: 'Column values, checked against the table’s declaration (types, `requis`).',
  }),
});
