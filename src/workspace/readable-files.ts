import { readdir, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { FileEntry, ReadableFiles } from '../lib/readable-files.ts';
import { globMatcher } from './glob.ts';
import { confine, type ConfinedPath } from './paths.ts';
import { searchFilesWithTimeout } from './search.ts';
import { readTextFile } from './text.ts';
import { WorkspacePathError } from './types.ts';

/** Larger files are refused by `read`: a documentation page is never this big. */
export const maxReadBytes = 4 * 1024 * 1024;

/** Resolves paths inside one directory; the directory's real path is looked up once. */
export interface Confinement {
  root(): Promise<string>;
  resolve(path: string, options?: { allowRoot?: boolean }): Promise<ConfinedPath>;
}

export function confinedTo(dir: string): Confinement {
  let root: Promise<string> | undefined;
  const realRoot = () => (root ??= realpath(dir));
  return { root: realRoot, resolve: async (path, options) => confine(await realRoot(), path, options) };
}

export function readableFiles(confinement: Confinement): ReadableFiles {
  const list = async (path = '', pattern?: string): Promise<FileEntry[]> => {
    const start = await confinement.resolve(path, { allowRoot: true });
    const info = await existing(start);
    const entries = info.isDirectory() ? await walk(start, confinement) : [{ path: start.relative, type: 'file' as const, size: info.size }];
    const matches = pattern ? globMatcher(pattern) : () => true;
    return entries.filter((entry) => matches(entry.path)).sort((a, b) => (a.path < b.path ? -1 : 1));
  };

  return {
    list,
    async read(path) {
      const file = await confinement.resolve(path);
      const info = await existing(file);
      if (info.isDirectory()) throw new WorkspacePathError(`"${file.relative}" is a folder; use list_files to see its contents.`);
      if (info.size > maxReadBytes)
        throw new WorkspacePathError(`"${file.relative}" has ${info.size} bytes, more than the ${maxReadBytes} Quire reads as text.`);
      const content = await readTextFile(file.absolute);
      if (content === null) throw new WorkspacePathError(`"${file.relative}" is a binary file (${info.size} bytes); it cannot be read or edited as text.`);
      return content;
    },
    async search(pattern, path) {
      const files = (await list(path)).filter((entry) => entry.type === 'file');
      return searchFilesWithTimeout(await confinement.root(), files, pattern);
    },
  };
}

export async function existing(path: ConfinedPath) {
  const info = await stat(path.absolute).catch(() => null);
  if (!info) throw new WorkspacePathError(`"${path.relative}" does not exist; use list_files to see which files do.`);
  return info;
}

/**
 * Every file and folder below `start`, skipping `.git` and symbolic links that leave the workspace.
 * Only symbolic links are confined again: a child that is not a link, of a folder reached without
 * one, is inside the workspace by construction, so the walk spares the per-segment checks of
 * `confine` for each of them. The sizes of a folder's children are read at once, not one after
 * another: on a 2,000-page repository the walk took most of a search's time.
 */
async function walk(start: ConfinedPath, confinement: Confinement): Promise<FileEntry[]> {
  const root = await confinement.root();
  const entries: FileEntry[] = [];
  const pending = [start.relative];
  while (pending.length > 0) {
    const folder = pending.pop() as string;
    const absolute = folder ? join(root, folder) : start.absolute;
    const children = (await readdir(absolute, { withFileTypes: true })).filter((child) => child.name.toLowerCase() !== '.git');
    const found = await Promise.all(
      children.map(async (child) => {
        const path = folder ? `${folder}/${child.name}` : child.name;
        const target = child.isSymbolicLink() ? await confinement.resolve(path).catch(() => null) : { absolute: join(absolute, child.name) };
        const info = target ? await stat(target.absolute).catch(() => null) : null;
        return info ? { path, info, link: child.isSymbolicLink() } : null;
      }),
    );
    for (const child of found) {
      if (!child) continue;
      // Linked folders are listed but not entered, so a link cycle cannot make the walk endless.
      if (child.info.isDirectory() && !child.link) pending.push(child.path);
      entries.push({ path: child.path, type: child.info.isDirectory() ? 'directory' : 'file', size: child.info.isDirectory() ? 0 : child.info.size });
    }
  }
  return entries;
}
