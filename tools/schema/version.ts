// Migration versions (`npm run migration` stamps new files with them): the rule lives with
// the runner, in the npm package, since `manette supabase-migrations` uses it too.
export { MIGRATION_NAME, nextMigrationVersion, versionAt, versionTime } from '../../api/db/migration-version.js';
