// Data tables (docs/tables.md): api.tables_* (supabase/schema/functions/api.tables_*.sql).
import list from './list.js';
import create from './create.js';
import get from './get.js';
import update from './update.js';
import remove from './delete.js';

export default [list, create, get, update, remove];
