import { mapConcurrently } from '../../../lib/concurrently.ts';
import type { SitePage } from '../../../sites/read-site.ts';
import type { CommitChanges } from '../../../workspace/changes.ts';
import type { PageError } from '../queue/complete.ts';
import { sourceHash, splitHash, textDigestOf } from './page-content.ts';
import type { BuildFiles } from './site-files.ts';

/** Pages read at once. */
const readsAtOnce = 32;

/** What a build does with each page of the site. */
export interface BuildPlan {
  /** New or changed text: parsed and written. */
  parse: { page: SitePage; text: string }[];
  /** Unchanged text in a new place in the navigation: the stored content is written again there. */
  move: { page: SitePage; textDigest: string }[];
  /** Stored paths the new generation does not hold. */
  remove: string[];
  /** Pages kept without reading them: their errors are the last build's. */
  unread: Set<string>;
  errors: PageError[];
}

/**
 * Decides, page by page, what the build must do. A page whose file did not change since the last
 * built commit is not read: its stored hash says whether its place moved. A changed or new file is
 * read, and parsed only when its text differs from the stored one (a full build after a rewritten
 * history reuses every page it can). Pages the index holds that the site no longer lists are removed.
 */
export async function planBuild(pages: SitePage[], stored: Map<string, string>, changes: CommitChanges, files: BuildFiles): Promise<BuildPlan> {
  const changed = changes.everything ? null : new Set(changes.files.map((file) => file.path));
  const plan: BuildPlan = { parse: [], move: [], remove: [], errors: [], unread: new Set() };
  const kept = new Set<string>();
  const toRead: SitePage[] = [];
  for (const page of pages) {
    const before = splitHash(stored.get(page.path));
    if (!(before && changed && !changed.has(page.path))) {
      toRead.push(page);
      continue;
    }
    kept.add(page.path);
    plan.unread.add(page.path);
    if (sourceHash(before.text, page) !== stored.get(page.path)) plan.move.push({ page, textDigest: before.text });
  }
  const reads = await mapConcurrently(toRead, readsAtOnce, (page) => files.readPage(page.path));
  for (const [index, page] of toRead.entries()) {
    const read = reads[index];
    if (read.problem !== null) plan.errors.push({ path: page.path, message: read.problem });
    if (read.text === null) continue;
    kept.add(page.path);
    const before = splitHash(stored.get(page.path));
    const textDigest = textDigestOf(read.text);
    if (before?.text !== textDigest) plan.parse.push({ page, text: read.text });
    else if (sourceHash(textDigest, page) !== stored.get(page.path)) plan.move.push({ page, textDigest });
  }
  plan.remove = [...stored.keys()].filter((path) => !kept.has(path));
  return plan;
}
