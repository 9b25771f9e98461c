import { hiddenPassword, integer, longestTimerMs, optionalText, setting, type Setting } from './parsers.ts';

const defaultDataDir = './data';

/** Where the data lives: the embedded database's directory or a PostgreSQL server. */
export const storageSettings = {
  // Empty is unset: `QUIRE_DATA_DIR=` in an env file must not put the database in whatever directory a command runs in.
  dataDir: setting(
    'QUIRE_DATA_DIR',
    defaultDataDir,
    (raw) => raw.trim() || defaultDataDir,
    "Directory of the embedded SQLite database, workspaces and repository mirrors. A relative path is resolved against the project root (where `npm start` runs: the nearest directory at or above the current one with this database or Quire's `package.json`), so every `quire` command uses the same one; empty means the default. Quire makes it with mode 0700 when it is missing.",
  ),
  databaseUrl: setting<string | undefined>(
    'DATABASE_URL',
    undefined,
    optionalText,
    '`postgres://user:password@host:5432/db` switches every part of Quire to PostgreSQL; unset uses SQLite under QUIRE_DATA_DIR.',
    hiddenPassword,
  ),
  databasePoolSize: setting('QUIRE_DATABASE_POOL_SIZE', 10, integer(1, 1000), 'PostgreSQL connections per process.'),
  statementTimeoutMs: setting(
    'QUIRE_DATABASE_STATEMENT_TIMEOUT_MS',
    30_000,
    integer(0, longestTimerMs),
    'PostgreSQL statement timeout in milliseconds (0 disables it).',
  ),
} satisfies Record<string, Setting<unknown>>;
