import { integer, optionalText, setting, text, type Setting } from './parsers.ts';

/** Where the data lives: the embedded database's directory or a PostgreSQL server. */
export const storageSettings = {
  dataDir: setting('QUIRE_DATA_DIR', './data', text, 'Directory of the embedded SQLite database, workspaces and repository mirrors.'),
  databaseUrl: setting<string | undefined>(
    'DATABASE_URL',
    undefined,
    optionalText,
    '`postgres://user:password@host:5432/db` switches every part of Quire to PostgreSQL; unset uses SQLite under QUIRE_DATA_DIR.',
  ),
  databasePoolSize: setting('QUIRE_DATABASE_POOL_SIZE', 10, integer(1, 1000), 'PostgreSQL connections per process.'),
  statementTimeoutMs: setting('QUIRE_DATABASE_STATEMENT_TIMEOUT_MS', 30_000, integer(0), 'PostgreSQL statement timeout in milliseconds (0 disables it).'),
} satisfies Record<string, Setting<unknown>>;
