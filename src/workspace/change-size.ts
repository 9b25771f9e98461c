import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { runGit, type GitOptions } from './git.ts';

/** git's mode of a submodule entry: a commit of another repository, not a file of this one. */
const submoduleMode = '160000';

/**
 * Bytes of the files the staged change adds or modifies against `base` (a commit), read from the
 * checkout in `git.cwd`, which `git add --all` has just made equal to the index. Content that `base`
 * had at a path the change removed or modified does not count again, so moving a file costs nothing.
 */
export async function stagedChangeBytes(git: GitOptions, base: string): Promise<number> {
  // -z output: ":<old mode> <new mode> <old id> <new id> <status>\0<path>\0" per changed path.
  const fields = (await runGit(['diff', '--cached', '--raw', '-z', '--no-renames', '--no-abbrev', base], git)).split('\0');
  const entries: { newMode: string; oldId: string; newId: string; status: string; path: string }[] = [];
  for (let index = 0; index + 1 < fields.length; index += 2) {
    const [, newMode, oldId, newId, status] = fields[index].slice(1).split(' ');
    entries.push({ newMode, oldId, newId, status, path: fields[index + 1] });
  }
  const earlier = new Set(entries.map((entry) => entry.oldId));
  let total = 0;
  for (const entry of entries) {
    if (entry.status === 'D' || entry.newMode === submoduleMode || earlier.has(entry.newId)) continue;
    // lstat: a symbolic link is stored as its target's path, and that is what it costs.
    total += (await lstat(join(git.cwd, entry.path))).size;
  }
  return total;
}
