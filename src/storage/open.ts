import { join, resolve } from 'node:path';
import type { Config } from '../config/config.ts';
import type { Storage } from './dialect.ts';
import { migrate } from './migrate.ts';
import { openPostgres } from './postgres/connect.ts';
import { openSqlite } from './sqlite/connect.ts';

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
  const storage = config.databaseUrl
    ? openPostgres({
        connectionString: config.databaseUrl,
        poolSize: config.databasePoolSize,
        statementTimeoutMs: config.statementTimeoutMs,
        onConnectionError: options.onConnectionError,
      })
    : openSqlite({ path: sqlitePath(config.dataDir) });
  if (options.migrate ?? true) {
    try {
      await migrate(storage);
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
