// The twin's template databases of a test run (made by global-setup.ts, cloned by harness.ts).
/** A provisioned database with no migration: the template of emptyDatabase(). */
export const BLANK_DB = 'supabase_blank';
/** BLANK_DB with every migration applied: the template of freshDatabase(). */
export const TEMPLATE_DB = 'manette_template';
