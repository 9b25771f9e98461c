import type { FileEntry } from '../../../lib/readable-files.ts';
import { readFrontMatter } from '../../../sites/front-matter.ts';
import type { PageFrontMatter, SiteFiles } from '../../../sites/site.ts';
import type { CommitTree } from '../../../workspace/commit-tree.ts';

/** A page's text as a build reads it, or why it was not read. */
export type PageText = { text: string; problem: string | null } | { text: null; problem: string };

/** What a build reads from a commit's tree: the files as `sites/` wants them, and pages within the build's bounds. */
export interface BuildFiles extends SiteFiles {
  readPage(path: string): Promise<PageText>;
}

/** Front matters kept, by blob id; each is a few hundred bytes, so this holds a large site's pages several times over. */
const keptFrontMatters = 100_000;

/**
 * Front matter by blob id: a blob id names exactly one text, so an entry is never stale. The next
 * build of the same site reads only the pages whose blobs changed to learn their routes and whether
 * they are hidden, instead of every page. Kept per process, oldest dropped first.
 */
const frontMatters = new Map<string, PageFrontMatter>();

function keepFrontMatter(id: string, frontMatter: PageFrontMatter): void {
  frontMatters.delete(id);
  frontMatters.set(id, frontMatter);
  if (frontMatters.size > keptFrontMatters) frontMatters.delete(frontMatters.keys().next().value!);
}

/**
 * `SiteFiles` over a commit's tree, listed once. Pages are read within `maxPageBytes` (checked from
 * the listing, before reading); text that is not UTF-8 reaches the index with replacement
 * characters, and the page is noted so its author can fix it. Front matter is read once per blob.
 */
export function buildFiles(tree: Pick<CommitTree, 'files' | 'blobId'>, maxPageBytes: number): BuildFiles {
  const { files } = tree;
  let listing: Promise<Map<string, FileEntry>> | undefined;
  const entries = () =>
    (listing ??= files.list().then((listed) => new Map(listed.filter((entry) => entry.type === 'file').map((entry) => [entry.path, entry]))));
  // One set for every caller: finding and reading a site asks for the listing several times.
  let paths: Promise<ReadonlySet<string>> | undefined;
  const read = (path: string) => files.read(path).catch(() => null);
  return {
    listFiles: () => (paths ??= entries().then((listed) => new Set(listed.keys()))),
    read,
    async frontMatter(path) {
      const id = tree.blobId(path);
      const known = id === null ? undefined : frontMatters.get(id);
      if (known) return known;
      const frontMatter = readFrontMatter((await read(path)) ?? '');
      if (id !== null) keepFrontMatter(id, frontMatter);
      return frontMatter;
    },
    async readPage(path) {
      const size = (await entries()).get(path)?.size ?? 0;
      if (size > maxPageBytes)
        return {
          text: null,
          problem: `The page has ${size} bytes, more than the ${maxPageBytes} a docs build reads (QUIRE_DOCS_MAX_PAGE_BYTES); it is not indexed.`,
        };
      try {
        const text = await files.read(path);
        // Node decodes bytes that are not UTF-8 as U+FFFD, which a page written as text does not hold.
        const problem = text.includes('\uFFFD')
          ? 'The page is not valid UTF-8; it is indexed with replacement characters (�) where its bytes could not be read.'
          : null;
        return { text, problem };
      } catch (error) {
        return { text: null, problem: `${(error as Error).message} It is not indexed.` };
      }
    },
  };
}
