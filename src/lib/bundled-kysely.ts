import { existsSync, readFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * Kysely ships as 255 ES modules. Node resolves, reads and links each of them, which was about 200 ms of
 * every process start here: most of a short CLI verb such as `quire orgs list`. `npm install` bundles them
 * into one file (scripts/bundle-kysely.ts, run as postinstall), and `useBundledKysely` makes `import 'kysely'`
 * load that file for the rest of the process, when it was built from the Kysely that is installed. Without
 * it (a failed build, an install with `--ignore-scripts`), Kysely loads as installed: slower to start, the
 * same in every other way.
 */

/** The installed Kysely and where its bundle is kept: `node_modules/.cache/quire/kysely-<version>.mjs`. */
export function kyselyBundle(): { entry: string; version: string; path: string } {
  const entry = fileURLToPath(import.meta.resolve('kysely'));
  // Kysely's exports map gives dist/index.js; its package.json is two folders up, inside node_modules.
  const packageDirectory = dirname(dirname(entry));
  const { version } = JSON.parse(readFileSync(join(packageDirectory, 'package.json'), 'utf8')) as { version: string };
  return { entry, version, path: join(dirname(packageDirectory), '.cache', 'quire', `kysely-${version}.mjs`) };
}

/** Resolves `kysely` to its bundle from now on in this thread, if the bundle of the installed version is there; says whether. */
export function useBundledKysely(): boolean {
  let path: string;
  try {
    path = kyselyBundle().path;
  } catch {
    return false;
  }
  if (!existsSync(path)) return false;
  const url = pathToFileURL(path).href;
  registerHooks({
    resolve: (specifier, context, nextResolve) => (specifier === 'kysely' ? { url, format: 'module', shortCircuit: true } : nextResolve(specifier, context)),
  });
  return true;
}
