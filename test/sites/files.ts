import type { SiteFiles } from '../../src/sites/site.ts';

/** A repository in memory, as `sites/` reads one. */
export function filesOf(files: Record<string, string>): SiteFiles {
  return { listFiles: async () => new Set(Object.keys(files)), read: async (path) => files[path] ?? null };
}
