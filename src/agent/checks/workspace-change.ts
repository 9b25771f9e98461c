import type { Workspace } from '../../workspace/types.ts';
import type { ChangeToCheck } from './types.ts';

/**
 * The job's change as the checks see it, read through the workspace's confined file access (so a
 * symbolic link cannot lead a check outside the checkout). Reads are cached: several checks read
 * the same page. Null when the change touches no file.
 */
export async function workspaceChange(workspace: Workspace, maxFileBytes: number): Promise<ChangeToCheck | null> {
  const changes = await workspace.changedFiles();
  if (changes.length === 0) return null;
  const sizes = new Map<string, number>();
  for (const entry of await workspace.files.list()) if (entry.type === 'file') sizes.set(entry.path, entry.size);
  const cache = new Map<string, Promise<string | null>>();
  const baseCache = new Map<string, Promise<string | null>>();
  return {
    changes,
    files: new Set(sizes.keys()),
    read(path) {
      const size = sizes.get(path);
      if (size === undefined || size > maxFileBytes) return Promise.resolve(null);
      let text = cache.get(path);
      if (!text) cache.set(path, (text = workspace.files.read(path).catch(() => null)));
      return text;
    },
    readBase(path) {
      let text = baseCache.get(path);
      if (!text) baseCache.set(path, (text = workspace.readBase(path, maxFileBytes).catch(() => null)));
      return text;
    },
  };
}
