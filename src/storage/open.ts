import { join, resolve } from 'node:path';
import type { Config } from '../config/config.ts';
import type { Storage } from './dialect.ts';

export type { Storage } from './dialect.ts';

export interface OpenOptions {
  /** Apply pending migrations before returning (what `serve` and `worker` do). Default true. */
  migrate?: boolean;
  onConnectionError?: (error: Error) => void;
}

/** Opens the database the configuration names: PostgreSQL when DATABASE_URL is set, else SQLite. */
export async function openStorage(
  config: Pick<Config, 'databaseUrl' | 'dataDir' | 'databasePoolSize' | 'statementTimeoutMs'>,
  options: OpenOptions = {},
): Promise<Storage> {
  // Each dialect's driver is loaded when it is used: a SQLite install never loads pg, and the reverse.
  const storage = config.databaseUrl
    ? (await import('./postgres/connect.ts')).openPostgres({
        connectionString: config.databaseUrl,
        poolSize: config.databasePoolSize,
        statementTimeoutMs: config.statementTimeoutMs,
        onConnectionError: options.onConnectionError,
      })
    : (await import('./sqlite/connect.ts')).openSqlite({ path: sqlitePath(config.dataDir) });
  if (options.migrate ?? true) {
    try {
      await (await import('./migrate.ts')).migrate(storage);
    } catch (error) {
      await storage.close();
      throw error;
    }
  }
  return storage;
}

export function sqlitePath(dataDir: string): string {
  return join(resolve(dataDir), 'quire.db');
}
