import type { PageFrontMatter } from './site.ts';
import { withoutExtension } from './text.ts';

type Route = (relativePath: string, frontMatter: PageFrontMatter) => string;

/** `cli/index` → `cli`, `index` → '', `a/b` stays: an index page stands for its folder. */
export function folderOfIndex(path: string): string {
  if (path === 'index') return '';
  return path.endsWith('/index') ? path.slice(0, -'/index'.length) : path;
}

/** Joins a route prefix (`/docs` or '') and a path inside it (no leading slash) into a route starting with `/`. */
export function joinRoute(prefix: string, path: string): string {
  if (path === '') return prefix === '' ? '/' : prefix;
  return `${prefix}/${path}`;
}

/** Mintlify and plain folders: the path without extension under `prefix`, an `index` page standing for its folder. */
export function cleanRoute(prefix: string): Route {
  return (relativePath) => joinRoute(prefix, folderOfIndex(withoutExtension(relativePath)));
}

/**
 * MkDocs: with `use_directory_urls` (the default) every page is a folder (`a/b.md` → `/a/b/`,
 * `a/index.md` → `/a/`); without it, the built file (`/a/b.html`, `/a/index.html`).
 */
export function mkdocsRoute(directoryUrls: boolean): Route {
  return (relativePath) => {
    const path = withoutExtension(relativePath);
    if (!directoryUrls) return `/${path}.html`;
    const folder = folderOfIndex(path);
    return folder === '' ? '/' : `/${folder}/`;
  };
}
