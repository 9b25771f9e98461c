import { runGit, type GitOptions } from './git.ts';
import type { ChangedFile } from './types.ts';

/**
 * The files the staged change adds, modifies or deletes against `base` (a commit). A moved file is a
 * deletion and an addition, which is what the docs checks need: the old path is gone, the new one is new.
 */
export async function stagedChanges(git: GitOptions, base: string): Promise<ChangedFile[]> {
  // -z output: "<status>\0<path>\0" per changed path.
  const fields = (await runGit(['diff', '--cached', '--name-status', '-z', '--no-renames', base], git)).split('\0');
  const changes: ChangedFile[] = [];
  for (let index = 0; index + 1 < fields.length; index += 2) {
    const status = fields[index] === 'A' ? 'added' : fields[index] === 'D' ? 'deleted' : 'modified';
    changes.push({ path: fields[index + 1], status });
  }
  return changes;
}

/** A file's text at `base`, or null when it did not exist there or is larger than `maxBytes`. */
export async function textAtBase(git: GitOptions, base: string, path: string, maxBytes: number): Promise<string | null> {
  const object = `${base}:${path}`;
  const size = await runGit(['cat-file', '-s', object], git).then(
    (output) => Number(output.trim()),
    () => null,
  );
  if (size === null || size > maxBytes) return null;
  return runGit(['cat-file', 'blob', object], git);
}
