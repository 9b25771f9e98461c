import { resolve } from 'node:path';
import { applyEnvFile, type EnvFile } from '../config/env-file.ts';
import { projectRoot } from './project-root.ts';

/**
 * Puts the settings file's values into the process environment before any verb reads it, so the
 * server, every CLI verb and the threads and processes they start all see the same settings:
 * QUIRE_ENV_FILE (relative to the current directory) when set, else `.env` in the project root (where
 * `npm start` runs, found as for the data directory).
 */
export function loadSettingsFile(environment: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): EnvFile | null {
  const named = environment.QUIRE_ENV_FILE;
  if (named) return applyEnvFile(environment, resolve(cwd, named), true);
  const root = projectRoot(cwd, environment.QUIRE_DATA_DIR?.trim() || './data');
  return applyEnvFile(environment, resolve(root, '.env'), false);
}
