import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe } from 'vitest';
import { migrate } from '../../src/storage/migrate.ts';
import { openPostgres } from '../../src/storage/postgres/connect.ts';
import { openSqlite } from '../../src/storage/sqlite/connect.ts';
import type { Storage } from '../../src/storage/dialect.ts';

/**
 * Waits for the next event-loop iteration. On SQLite, another process's commit is seen from the
 * iteration after it on (storage/sqlite/connect.ts); a request arriving through I/O comes in a
 * later iteration anyway, and a test that writes through a second connection waits this long.
 */
export const nextIteration = () => new Promise<void>((resolve) => setImmediate(resolve));

/** PostgreSQL tests run when this is set (CI sets it to the machine's server). */
export const postgresUrl = process.env.QUIRE_TEST_POSTGRES_URL;

export interface TestDatabase {
  dialect: 'sqlite' | 'postgres';
  /** Opens a fresh, isolated database (a temp SQLite file, or a new PostgreSQL schema), migrated unless told not to. */
  open(options?: { migrate?: boolean }): Promise<Storage & { location: TestLocation }>;
}

/** How a child process reaches the same test database. */
export interface TestLocation {
  env: Record<string, string>;
}

let counter = 0;

const sqlite: TestDatabase = {
  dialect: 'sqlite',
  async open(options = {}) {
    const dataDir = mkdtempSync(join(tmpdir(), 'quire-test-'));
    const storage = openSqlite({ path: join(dataDir, 'quire.db') });
    if (options.migrate ?? true) await migrate(storage);
    return {
      ...storage,
      location: { env: { QUIRE_DATA_DIR: dataDir } },
      async close() {
        await storage.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  },
};

const postgres: TestDatabase = {
  dialect: 'postgres',
  async open(options = {}) {
    const schema = `quire_test_${process.pid}_${Date.now()}_${counter++}`;
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    await admin.end();
    const storage = openPostgres({ connectionString: postgresUrl!, poolSize: 10, statementTimeoutMs: 30_000, schema });
    if (options.migrate ?? true) await migrate(storage);
    const url = new URL(postgresUrl!);
    url.searchParams.set('options', `-c search_path=${schema}`);
    return {
      ...storage,
      location: { env: { DATABASE_URL: url.toString() } },
      async close() {
        await storage.close();
        const cleanup = new pg.Client({ connectionString: postgresUrl });
        await cleanup.connect();
        await cleanup.query(`drop schema ${schema} cascade`);
        await cleanup.end();
      },
    };
  },
};

/** Every database the suite runs against here: SQLite always, PostgreSQL when configured. */
export const testDatabases: TestDatabase[] = postgresUrl ? [sqlite, postgres] : [sqlite];

/**
 * A suite that needs PostgreSQL itself (several processes on one server, cut connections). Without
 * QUIRE_TEST_POSTGRES_URL it is skipped, and says so in its name and on stderr, never silently.
 */
export function describeOnPostgres(name: string, suite: () => void): void {
  if (postgresUrl) {
    describe(name, suite);
    return;
  }
  process.stderr.write(`SKIPPED "${name}": it needs PostgreSQL; set QUIRE_TEST_POSTGRES_URL=postgres://… to run it.\n`);
  describe.skip(`${name} (SKIPPED: set QUIRE_TEST_POSTGRES_URL to run it)`, suite);
}
