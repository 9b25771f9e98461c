import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// Node's compile cache for every test process and the worker threads Quire starts in them (parse threads,
// reading threads, search workers), as src/cli/main.ts turns it on for the service. Without it each new thread
// strips TypeScript types again, instantiating Node's WebAssembly type stripper in every thread, and threads that
// start and end by the hundred in one process can abort V8 ("Check failed: jit_page.has_value()", nodejs/node#64500):
// with the stripped code cached, threads load no WebAssembly at all.
process.env.NODE_COMPILE_CACHE ??= join(import.meta.dirname, 'node_modules', '.cache', 'quire-compile');

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
