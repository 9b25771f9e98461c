import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** The SQLite file under a data directory, as `openStorage` names it. */
const databaseFile = join('data', 'quire.db');

/** Whether a package.json is Quire's own, or one of a project that installs Quire. */
function isQuirePackage(path: string): boolean {
  try {
    const manifest = JSON.parse(readFileSync(path, 'utf8')) as { name?: string; dependencies?: object; devDependencies?: object };
    return manifest.name === 'quire' || Object.hasOwn(manifest.dependencies ?? {}, 'quire') || Object.hasOwn(manifest.devDependencies ?? {}, 'quire');
  } catch {
    return false;
  }
}

/**
 * The directory the default `./data` is relative to: the nearest one at or above `start` that holds
 * a Quire database or Quire's package.json (or one that installs Quire). So `cd docs && npx quire keys list`
 * opens the project's database rather than creating an empty one in `docs/`. Without such a directory,
 * `start` itself: a fresh directory is where a first database belongs.
 */
export function projectRoot(start: string): string {
  let directory = resolve(start);
  for (;;) {
    if (existsSync(join(directory, databaseFile)) || isQuirePackage(join(directory, 'package.json'))) return directory;
    const parent = dirname(directory);
    if (parent === directory) return resolve(start);
    directory = parent;
  }
}
