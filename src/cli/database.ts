import { isAbsolute, resolve } from 'node:path';
import { MissingOrganizationError } from '../accounts/organizations.ts';
import { loadConfig, type Config } from '../config/config.ts';
import { withStoredSecretKey } from '../config/secret-key-file.ts';
import { openStorage, sqlitePath, type Storage } from '../storage/open.ts';
import { CliError } from './output.ts';
import { projectRoot } from './project-root.ts';

/**
 * The configuration of a CLI verb: the environment's, with a relative QUIRE_DATA_DIR (the default
 * `./data` or one set) resolved from the project root rather than the current directory, so a verb
 * run from a subdirectory opens the database `npm start` opens.
 */
export function cliConfig(environment: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Config {
  const config = loadConfig(environment);
  if (isAbsolute(config.dataDir)) return config;
  return { ...config, dataDir: resolve(projectRoot(cwd, config.dataDir), config.dataDir) };
}

/** Which database a configuration opens, in words: printed when a verb finds nothing there. */
export function databaseName(config: Pick<Config, 'databaseUrl' | 'dataDir'>): string {
  if (!config.databaseUrl) return `SQLite database ${sqlitePath(config.dataDir)}`;
  try {
    const url = new URL(config.databaseUrl);
    return `PostgreSQL database ${url.pathname.slice(1) || '(default)'} on ${url.host}`;
  } catch {
    return 'the PostgreSQL database of DATABASE_URL';
  }
}

/**
 * The configuration of a verb that opens the database: `cliConfig`, with the secret key kept in the
 * data directory when QUIRE_SECRET_KEY is not set, on SQLite. `quire serve` and `quire worker` make
 * it at their first start; other verbs only use one that is there.
 */
export function storageConfig(makeSecretKey = false): Config {
  return withStoredSecretKey(cliConfig(), makeSecretKey);
}

/** Runs `action` against the database a server with the same environment would use. */
export async function withStorage<T>(action: (storage: Storage, config: Config) => Promise<T>): Promise<T> {
  const config = storageConfig();
  const storage = await openStorage(config);
  try {
    return await action(storage, config);
  } catch (error) {
    // A verb that found no organization most likely opened another database than the one meant.
    if (error instanceof MissingOrganizationError) throw new CliError(`${error.message} (opened the ${databaseName(config)})`);
    throw error;
  } finally {
    await storage.close();
  }
}
