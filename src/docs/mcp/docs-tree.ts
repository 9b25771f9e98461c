import { CommandError } from './errors.ts';
import type { DocsFile } from './source.ts';

/**
 * The read-only tree the filesystem tool shows: the pages' file paths, with folders implied by
 * them. Every path a command names is resolved here against that list only, so no command can
 * reach anything but a page, whatever the path says.
 */

export interface TreeEntry {
  name: string;
  /** Path from the root, without a leading `/` ('' for the root). */
  path: string;
  isFolder: boolean;
}

/**
 * Normalises a path given to a command: a leading `/` is the tree's root, `.` and empty segments are
 * dropped, `..` goes up but never above the root.
 */
export function normalizePath(input: string): string {
  if (input.includes('\0')) throw new CommandError('Paths cannot contain NUL characters.');
  const segments: string[] = [];
  for (const segment of input.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment !== '..') segments.push(segment);
    else if (segments.pop() === undefined)
      throw new CommandError(`"${input}" leaves the docs root with ".."; paths stay inside the docs tree, whose root is /.`);
  }
  return segments.join('/');
}

/**
 * The pages as a tree, indexed once: each folder's entries, sorted, so `ls`, `tree` and `rg` over a folder cost
 * what they list. Scanning every page for each folder made one `tree` of a 20,000-page site hold the event loop
 * for most of a second.
 */
export class DocsTree {
  readonly #files: Map<string, DocsFile>;
  /** Each folder's entries ('' the root), folders first, then files, each by name. */
  readonly #folders = new Map<string, TreeEntry[]>();

  constructor(files: DocsFile[]) {
    this.#files = new Map(files.map((file) => [normalizePath(file.path), file]));
    const entries = new Map<string, Map<string, TreeEntry>>([['', new Map()]]);
    for (const filePath of this.#files.keys()) {
      const segments = filePath.split('/');
      for (let depth = 0; depth < segments.length; depth++) {
        const folder = segments.slice(0, depth).join('/');
        const path = segments.slice(0, depth + 1).join('/');
        let children = entries.get(folder);
        if (!children) entries.set(folder, (children = new Map()));
        if (!children.has(segments[depth])) children.set(segments[depth], { name: segments[depth], path, isFolder: depth < segments.length - 1 });
      }
    }
    for (const [folder, children] of entries) {
      this.#folders.set(
        folder,
        [...children.values()].sort((a, b) => Number(b.isFolder) - Number(a.isFolder) || a.name.localeCompare(b.name, 'en')),
      );
    }
  }

  file(path: string): DocsFile | undefined {
    return this.#files.get(path);
  }

  isFolder(path: string): boolean {
    return this.#folders.has(path);
  }

  /** The file at `input`, or an error that says why not. */
  requireFile(input: string): { path: string; file: DocsFile } {
    const path = normalizePath(input);
    const file = this.#files.get(path);
    if (file) return { path, file };
    if (this.isFolder(path)) throw new CommandError(`${input} is a folder; list it with ls or tree, or give a page's path.`);
    throw new CommandError(`No such page: ${input}. List the pages with ls or tree, or search with rg.`);
  }

  /** The folder or file at `input` (default: the root), or an error that says it does not exist. */
  requireEntry(input = '/'): TreeEntry {
    const path = normalizePath(input);
    const name = path.split('/').at(-1) ?? '';
    if (this.#files.has(path)) return { name, path, isFolder: false };
    if (this.isFolder(path)) return { name, path, isFolder: true };
    throw new CommandError(`No such file or folder: ${input}. List what exists with ls or tree.`);
  }

  /** A folder's entries: folders first, then files, each by name. */
  children(folder: string): TreeEntry[] {
    return this.#folders.get(folder) ?? [];
  }

  /** The pages at or under `entry`, in tree order. */
  filesUnder(entry: TreeEntry): { path: string; file: DocsFile }[] {
    if (!entry.isFolder) return [{ path: entry.path, file: this.#files.get(entry.path) as DocsFile }];
    return this.children(entry.path).flatMap((child) => this.filesUnder(child));
  }
}

/** One tree per list of pages: a source that hands the same list again (a build's pages, kept) is indexed once. */
const trees = new WeakMap<DocsFile[], DocsTree>();

export function treeOf(files: DocsFile[]): DocsTree {
  let tree = trees.get(files);
  if (!tree) trees.set(files, (tree = new DocsTree(files)));
  return tree;
}
