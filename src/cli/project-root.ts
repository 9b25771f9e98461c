import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { sqlitePath } from '../storage/open.ts';

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
 * The directory a relative data directory (`dataDir`, `./data` unless QUIRE_DATA_DIR says otherwise)
 * is relative to: the nearest one at or above `start` that holds a Quire database there, or Quire's
 * package.json (or one that installs Quire). So `cd docs && npx quire keys list` opens the project's database rather than creating an
 * empty one in `docs/`. Without such a directory, `start` itself: a fresh directory is where a first
 * database belongs.
 */
export function projectRoot(start: string, dataDir: string): string {
  let directory = resolve(start);
  for (;;) {
    if (existsSync(sqlitePath(join(directory, dataDir))) || isQuirePackage(join(directory, 'package.json'))) return directory;
    const parent = dirname(directory);
    if (parent === directory) return resolve(start);
    directory = parent;
  }
}
