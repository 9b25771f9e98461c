import { lstat, mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { confinedTo, existing, readableFiles } from './readable-files.ts';
import { WorkspacePathError, type WorkspaceFiles } from './types.ts';

/** Per checkout, its last operation's end: the next one starts then (`oneAtATime`). */
const lastOperation = new Map<string, Promise<unknown>>();

/**
 * Runs the checkout's file operations one at a time, whatever calls them (the agent's parallel tool calls, an
 * admin MCP session's). A path is checked (`confine`: no symbolic link leading outside) and then used: with
 * operations side by side, a move could put a link in place between the two, and a write or a search that had
 * passed its check then went through it, outside the checkout (reproduced: reading the data directory's secret key,
 * writing the repository mirror's git config).
 */
function oneAtATime<T>(dir: string, operation: () => Promise<T>): Promise<T> {
  const running = (lastOperation.get(dir) ?? Promise.resolve()).then(operation, operation);
  const ended = running.then(
    () => undefined,
    () => undefined,
  );
  lastOperation.set(dir, ended);
  void ended.then(() => {
    if (lastOperation.get(dir) === ended) lastOperation.delete(dir);
  });
  return running;
}

/** Whether `absolute` is a symbolic link or a folder holding one, at any depth. */
async function holdsLink(absolute: string): Promise<boolean> {
  const info = await lstat(absolute);
  if (info.isSymbolicLink()) return true;
  if (!info.isDirectory()) return false;
  for (const child of await readdir(absolute, { withFileTypes: true })) {
    if (child.isSymbolicLink() || (child.isDirectory() && (await holdsLink(join(absolute, child.name))))) return true;
  }
  return false;
}

/** `WorkspaceFiles` over the checkout in `dir`: the reads of `readableFiles` and the job's writes, confined alike, one at a time. */
export function createWorkspaceFiles(dir: string): WorkspaceFiles {
  const confinement = confinedTo(dir);
  const readable = readableFiles(confinement);
  const serial =
    <Args extends unknown[], T>(operation: (...args: Args) => Promise<T>) =>
    (...args: Args) =>
      oneAtATime(dir, () => operation(...args));
  return {
    list: serial(readable.list),
    read: serial(readable.read),
    search: serial(readable.search),
    write: serial(async (path: string, content: string) => {
      const file = await confinement.resolve(path);
      if ((await stat(file.absolute).catch(() => null))?.isDirectory()) {
        throw new WorkspacePathError(`"${file.relative}" is a folder; give the path of a file inside it.`);
      }
      await mkdir(dirname(file.absolute), { recursive: true });
      await writeFile(file.absolute, content, 'utf8');
    }),
    remove: serial(async (path: string) => {
      const file = await confinement.resolve(path);
      await existing(file);
      await rm(file.absolute, { recursive: true, force: true });
    }),
    move: serial(async (from: string, to: string) => {
      const source = await confinement.resolve(from);
      const target = await confinement.resolve(to);
      await existing(source);
      if (await stat(target.absolute).catch(() => null)) {
        throw new WorkspacePathError(`"${target.relative}" already exists; delete it first or choose another name.`);
      }
      // A relative link's target moves with it: a link to ../../page.md two folders down points outside the checkout one folder down.
      if (await holdsLink(source.absolute)) {
        throw new WorkspacePathError(
          `"${source.relative}" is or holds a symbolic link, and Quire does not move links (where they point would change); move the files they point to, or write the content anew.`,
        );
      }
      await mkdir(dirname(target.absolute), { recursive: true });
      await rename(source.absolute, target.absolute);
    }),
  };
}
