import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // Two cores: more workers only contend for them.
    maxWorkers: 2,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
