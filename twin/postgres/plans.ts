// The plans of the statements Manette's functions run, for the tests and benches that check
// them (indexes used, rows read). On a hosted project auto_explain is preloaded and its
// plans go to the project's Postgres logs; its settings are the superuser's. Here the twin's
// superuser loads and sets it on one session, which then runs as `role` (manette_api): the
// plans arrive as notices on that session. Only the observation needs the superuser.
import pg from 'pg';

export async function planLoggingClient(adminUrl: string, opts: { role: string; analyze?: boolean }): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`load 'auto_explain'`);
    await client.query(`set auto_explain.log_min_duration = 0; set auto_explain.log_nested_statements = on;
      set auto_explain.log_level = notice; set client_min_messages = notice;
      ${opts.analyze ? 'set auto_explain.log_analyze = on; set auto_explain.log_timing = off;' : ''}
      set role ${client.escapeIdentifier(opts.role)}`);
    return client;
  } catch (err) {
    await client.end();
    throw err;
  }
}
