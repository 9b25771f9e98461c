import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { confinedTo, existing, readableFiles } from './readable-files.ts';
import { WorkspacePathError, type WorkspaceFiles } from './types.ts';

/** `WorkspaceFiles` over the checkout in `dir`: the reads of `readableFiles` and the job's writes, confined alike. */
export function createWorkspaceFiles(dir: string): WorkspaceFiles {
  const confinement = confinedTo(dir);
  return {
    ...readableFiles(confinement),
    async write(path, content) {
      const file = await confinement.resolve(path);
      if ((await stat(file.absolute).catch(() => null))?.isDirectory()) {
        throw new WorkspacePathError(`"${file.relative}" is a folder; give the path of a file inside it.`);
      }
      await mkdir(dirname(file.absolute), { recursive: true });
      await writeFile(file.absolute, content, 'utf8');
    },
    async remove(path) {
      const file = await confinement.resolve(path);
      await existing(file);
      await rm(file.absolute, { recursive: true, force: true });
    },
    async move(from, to) {
      const source = await confinement.resolve(from);
      const target = await confinement.resolve(to);
      await existing(source);
      if (await stat(target.absolute).catch(() => null)) {
        throw new WorkspacePathError(`"${target.relative}" already exists; delete it first or choose another name.`);
      }
      await mkdir(dirname(target.absolute), { recursive: true });
      await rename(source.absolute, target.absolute);
    },
  };
}
