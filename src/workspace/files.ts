import { mkdir, readdir, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { globMatcher } from './glob.ts';
import { confine, type ConfinedPath } from './paths.ts';
import { searchFilesWithTimeout } from './search.ts';
import { readTextFile } from './text.ts';
import { WorkspacePathError, type FileEntry, type WorkspaceFiles } from './types.ts';

/** Larger files are refused by `read`: a documentation page is never this big. */
export const maxReadBytes = 4 * 1024 * 1024;

/** `WorkspaceFiles` over the checkout in `dir`; see `confine` for which paths are refused. */
export function createWorkspaceFiles(dir: string): WorkspaceFiles {
  let root: Promise<string> | undefined;
  const resolvePath = async (path: string, options?: { allowRoot?: boolean }) => confine(await (root ??= realpath(dir)), path, options);

  const list = async (path = '', pattern?: string): Promise<FileEntry[]> => {
    const start = await resolvePath(path, { allowRoot: true });
    const info = await existing(start);
    const entries = info.isDirectory() ? await walk(start, resolvePath) : [{ path: start.relative, type: 'file' as const, size: info.size }];
    const matches = pattern ? globMatcher(pattern) : () => true;
    return entries.filter((entry) => matches(entry.path)).sort((a, b) => (a.path < b.path ? -1 : 1));
  };

  return {
    list,
    async read(path) {
      const file = await resolvePath(path);
      const info = await existing(file);
      if (info.isDirectory()) throw new WorkspacePathError(`"${file.relative}" is a folder; use list_files to see its contents.`);
      if (info.size > maxReadBytes)
        throw new WorkspacePathError(`"${file.relative}" has ${info.size} bytes, more than the ${maxReadBytes} Quire reads as text.`);
      const content = await readTextFile(file.absolute);
      if (content === null) throw new WorkspacePathError(`"${file.relative}" is a binary file (${info.size} bytes); it cannot be read or edited as text.`);
      return content;
    },
    async write(path, content) {
      const file = await resolvePath(path);
      if ((await stat(file.absolute).catch(() => null))?.isDirectory()) {
        throw new WorkspacePathError(`"${file.relative}" is a folder; give the path of a file inside it.`);
      }
      await mkdir(dirname(file.absolute), { recursive: true });
      await writeFile(file.absolute, content, 'utf8');
    },
    async remove(path) {
      const file = await resolvePath(path);
      await existing(file);
      await rm(file.absolute, { recursive: true, force: true });
    },
    async move(from, to) {
      const source = await resolvePath(from);
      const target = await resolvePath(to);
      await existing(source);
      if (await stat(target.absolute).catch(() => null)) {
        throw new WorkspacePathError(`"${target.relative}" already exists; delete it first or choose another name.`);
      }
      await mkdir(dirname(target.absolute), { recursive: true });
      await rename(source.absolute, target.absolute);
    },
    async search(pattern, path) {
      const files = (await list(path)).filter((entry) => entry.type === 'file');
      return searchFilesWithTimeout(await (root ??= realpath(dir)), files, pattern);
    },
  };
}

async function existing(path: ConfinedPath) {
  const info = await stat(path.absolute).catch(() => null);
  if (!info) throw new WorkspacePathError(`"${path.relative}" does not exist; use list_files to see which files do.`);
  return info;
}

/** Every file and folder below `start`, skipping `.git` and symbolic links that leave the workspace. */
async function walk(start: ConfinedPath, resolvePath: (path: string) => Promise<ConfinedPath>): Promise<FileEntry[]> {
  const entries: FileEntry[] = [];
  const pending = [start.relative];
  while (pending.length > 0) {
    const folder = pending.pop() as string;
    const absolute = folder ? (await resolvePath(folder)).absolute : start.absolute;
    for (const child of await readdir(absolute, { withFileTypes: true })) {
      if (child.name.toLowerCase() === '.git') continue;
      const path = folder ? `${folder}/${child.name}` : child.name;
      const target = await resolvePath(path).catch(() => null);
      if (!target) continue;
      const info = await stat(target.absolute).catch(() => null);
      if (!info) continue;
      // Linked folders are listed but not entered, so a link cycle cannot make the walk endless.
      if (info.isDirectory() && !child.isSymbolicLink()) pending.push(path);
      entries.push({ path, type: info.isDirectory() ? 'directory' : 'file', size: info.isDirectory() ? 0 : info.size });
    }
  }
  return entries;
}
