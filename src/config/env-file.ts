import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { ConfigError } from './parsers.ts';

/**
 * Settings kept in a file (`.env` in the project root, or the file QUIRE_ENV_FILE names), read with
 * Node's own parser (`KEY=value` lines, `#` comments, quoted values, `export` prefixes). The process
 * environment wins over the file, so a value set for one run overrides the file without editing it.
 */
export interface EnvFile {
  path: string;
  /** The names whose values came from the file (the environment had none). */
  names: ReadonlySet<string>;
}

/**
 * Copies the values of the file at `path` into `environment` where it has none. A missing file is no
 * file when `required` is false (`.env` is optional); a file named on purpose must be there.
 */
export function applyEnvFile(environment: NodeJS.ProcessEnv, path: string, required: boolean): EnvFile | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (!required && code === 'ENOENT') return null;
    const fix = required ? 'point QUIRE_ENV_FILE at a readable settings file, or unset it to use .env in the project root' : 'make it readable, or remove it';
    throw new ConfigError(`The settings file ${path} cannot be read (${code}): ${fix}.`);
  }
  const names = new Set<string>();
  for (const [name, value] of Object.entries(parseEnv(text))) {
    if (environment[name] !== undefined) continue;
    environment[name] = value;
    names.add(name);
  }
  return { path, names };
}
