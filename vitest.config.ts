import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    // Tests run several `manette start` at once: each twin Supabase Auth takes a free port
    // (its default, 54332, would be busy for all but one).
    env: { MANETTE_SUPABASE_AUTH_PORT: '0' },
    // A test's own work (requests, queries: 30 s at worst under load) and up to six `manette`
    // commands, 5 s each (test/support/manette-cli.ts); a test that runs more says so with
    // cliTimeout(n), as the ones that start servers or browsers give their own.
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // Two cores: more workers only contend for them.
    maxWorkers: 2,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
