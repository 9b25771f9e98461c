import type { ChangeToCheck } from '../../../src/agent/checks/types.ts';
import { checkChange } from '../../../src/agent/checks/index.ts';

/**
 * A change in memory: the base files and the files after the change (null deletes a file). The
 * status of each changed path is derived the way git reports it.
 */
export function changeOf(base: Record<string, string>, edits: Record<string, string | null>): ChangeToCheck {
  const after: Record<string, string> = { ...base };
  for (const [path, content] of Object.entries(edits)) {
    if (content === null) delete after[path];
    else after[path] = content;
  }
  const changes = Object.entries(edits)
    .filter(([path, content]) => content !== base[path])
    .map(([path, content]) => ({ path, status: content === null ? ('deleted' as const) : path in base ? ('modified' as const) : ('added' as const) }));
  return {
    changes,
    files: new Set(Object.keys(after)),
    read: async (path) => after[path] ?? null,
    readBase: async (path) => base[path] ?? null,
  };
}

/** The problems of a change, as `file:line message` lines. */
export async function problemsOf(base: Record<string, string>, edits: Record<string, string | null>): Promise<string[]> {
  const report = await checkChange(changeOf(base, edits), {
    maxFileBytes: 1_000_000,
    maxScannedFiles: 1000,
    pageTimeoutMs: 10_000,
    deadline: Date.now() + 30_000,
  });
  return report.problems.map((problem) => `${problem.file}:${problem.line ?? '-'} ${problem.message}`);
}
