import type { FileEntry, ReadableFiles } from '../../../lib/readable-files.ts';
import type { SiteFiles } from '../../../sites/site.ts';

/** A page's text as a build reads it, or why it was not read. */
export type PageText = { text: string; problem: string | null } | { text: null; problem: string };

/** What a build reads from a snapshot: the files as `sites/` wants them, and pages within the build's bounds. */
export interface BuildFiles extends SiteFiles {
  readPage(path: string): Promise<PageText>;
}

/**
 * `SiteFiles` over a snapshot's confined files, listed once. Pages are read within `maxPageBytes`
 * (checked from the listing, before reading); text that is not UTF-8 reaches the index with
 * replacement characters, and the page is noted so its author can fix it.
 */
export function buildFiles(files: ReadableFiles, maxPageBytes: number): BuildFiles {
  let listing: Promise<Map<string, FileEntry>> | undefined;
  const entries = () =>
    (listing ??= files.list().then((listed) => new Map(listed.filter((entry) => entry.type === 'file').map((entry) => [entry.path, entry]))));
  return {
    listFiles: async () => new Set((await entries()).keys()),
    read: (path) => files.read(path).catch(() => null),
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
