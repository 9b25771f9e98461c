import { isPage, inside } from '../../../sites/text.ts';
import type { CommitTree } from '../../../workspace/commit-tree.ts';
import type { PageError } from '../queue/complete.ts';

/**
 * Pages under the docs path that are symbolic links the tree refuses to read (they lead out of
 * the repository): listings leave them out silently, so the build names them here.
 */
export async function refusedLinks(snapshot: Pick<CommitTree, 'files' | 'symbolicLinks'>, docsPath: string): Promise<PageError[]> {
  const errors: PageError[] = [];
  for (const path of await snapshot.symbolicLinks()) {
    if (!isPage(path) || inside(docsPath, path) === null) continue;
    await snapshot.files.read(path).then(
      () => undefined,
      (error: Error) => errors.push({ path, message: `${error.message} It is not indexed.` }),
    );
  }
  return errors;
}
