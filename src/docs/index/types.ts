/** What the site reader hands to the index: one page of a project's docs, split into sections. */
export interface IndexedPage {
  /** File path in the repository. */
  path: string;
  /** Route on the docs site, e.g. `/guides/setup`. */
  route: string;
  title: string;
  description: string | null;
  keywords: string[];
  /** Outermost navigation group; `Pages` when none. */
  group: string;
  /** Navigation order. */
  position: number;
  /** Searchable, but left out of llms.txt. */
  hidden: boolean;
  /** The page's Markdown, front matter stripped. */
  markdown: string;
  sections: IndexedSection[];
}

export interface IndexedSection {
  /** '' for the part before the first heading. */
  anchor: string;
  /** The page title for the first part. */
  heading: string;
  /** 1 for the first part, 2 or 3. */
  level: number;
  markdown: string;
  /** Plain text, MDX reduced. */
  text: string;
}

/** A page as a build writes it. */
export interface PageToWrite extends IndexedPage {
  /**
   * The builder's hash of everything the page was built from (the file's blob id, its place in the
   * navigation); `listPagePaths` returns it so the next build can skip pages whose hash is unchanged.
   */
  sourceHash: string;
}

/** A build in progress: the project and the generation it writes. */
export interface Build {
  projectId: string;
  generation: number;
}

export type DocsStatus = 'none' | 'building' | 'ready' | 'failed';

export interface DocsState {
  status: DocsStatus;
  /** The generation readers see; 0 before the first build completes. */
  generation: number;
  commit: string | null;
  /** Epoch ms. */
  builtAt: number | null;
  pages: number;
  sections: number;
  error: string | null;
}

/** A page as readers get it. */
export interface StoredPage extends IndexedPage {
  sourceHash: string;
}

/** Raised when a build writes or finishes after another build took its place. */
export class BuildSupersededError extends Error {
  constructor(build: Build) {
    super(`The docs build of generation ${build.generation} for project ${build.projectId} is no longer the project's build in progress.`);
    this.name = 'BuildSupersededError';
  }
}
