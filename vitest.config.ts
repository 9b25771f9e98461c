import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // CI logs name every test, so they show the PostgreSQL suites ran rather than skipped.
    reporters: process.env.CI ? ['verbose'] : ['default'],
  },
});
