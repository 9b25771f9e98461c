import type { SiteNavigation } from './navigation.ts';

/** The site kinds Quire knows, one profile each (`profiles.ts`). */
export type SiteKind = 'mintlify' | 'docusaurus' | 'mkdocs' | 'plain';

/**
 * Read access to a repository's files, all `sites/` needs: a job's checkout, a change the checks look
 * at, or a read-only snapshot of a repository at a commit.
 */
export interface SiteFiles {
  /** Every file (paths relative to the root, `/`-separated). */
  listFiles(): Promise<ReadonlySet<string>>;
  /** A file's text, or null when it is missing, binary or too large to read. */
  read(path: string): Promise<string | null>;
  /**
   * A page's front matter, when the reader can tell it without reading the page (a docs build knows
   * the front matter of pages whose text it has read before); without it, the page is read.
   */
  frontMatter?(path: string): Promise<PageFrontMatter>;
}

/** One thing wrong with a file, where a reviewer (and the model) can find it. */
export interface Problem {
  /** Path relative to the repository root. */
  file: string;
  /** 1-based line, when the problem has one. */
  line?: number;
  message: string;
}

/** The front matter fields Quire reads; null (or false) when a page does not set them. */
export interface PageFrontMatter {
  title: string | null;
  description: string | null;
  keywords: string[];
  hidden: boolean;
  noindex: boolean;
  /** Docusaurus: left out of a production build (where the profile reads it, `SiteProfile.draftFrontMatter`). */
  draft: boolean;
  /** Docusaurus: built and served by its URL, but left out of sidebars, search and the sitemap: read as `hidden`. */
  unlisted: boolean;
  /** The page's URL path as Docusaurus reads it (absolute from the docs route, or relative to the page's folder). */
  slug: string | null;
  /** A Docusaurus doc id, replacing the last part of the path. */
  id: string | null;
}

/** A documentation site in the repository, as its profile found it. */
export interface Site {
  profile: SiteProfile;
  /** Folder of the site's configuration ('' is the repository root). */
  root: string;
  /** The configuration file (`docs.json`, `mkdocs.yml`, `docusaurus.config.js`), or null (plain folders, sidebars alone). */
  configFile: string | null;
  /** The file that holds the navigation (`docs.json`, `mkdocs.yml`, `sidebars.js`), or null when there is none. */
  navigationFile: string | null;
  /** Folder of the pages: the root (Mintlify, plain), `docs_dir` (MkDocs), `docs/` (Docusaurus). */
  contentRoot: string;
  /** Folders a site-absolute link (`/images/a.png`) may point into, besides the pages. */
  assetRoots: string[];
  /** URL path the pages are served under (`/docs` for Docusaurus), stripped from site-absolute links. */
  routePrefix: string;
  /** The route of a page, from its path relative to `contentRoot` and its front matter (`/`, `/cli`, `/docs/intro`, `/a/b/`). */
  route(relativePath: string, frontMatter: PageFrontMatter): string;
  /**
   * Whether the framework leaves a file (relative to `contentRoot`) out of the built site, whatever its
   * navigation says: MkDocs `exclude_docs` and `draft_docs` with their defaults, Mintlify `.mintignore`.
   * Files and folders named with a leading `.` are left out in every kind besides (`isDotPath`).
   */
  excluded(relativePath: string): boolean;
}

/** Everything that differs between site kinds, as data and per-kind functions: nothing outside a profile asks which kind a site is. */
export interface SiteProfile {
  kind: SiteKind;
  /** The name readers know the kind by (`MkDocs`). */
  name: string;
  /** Files that make a folder a site of this kind, in order of preference. */
  configFiles: string[];
  /** Found only when no other kind is (a plain folder of pages). */
  fallback: boolean;
  /** Whether the checks report on this kind's navigation (a plain folder has none to get wrong). */
  navigationChecked: boolean;
  /** Folders under the pages whose files are included in others, never pages of their own (Mintlify `snippets/`). */
  partialFolders: string[];
  /** Whether front matter `draft: true` keeps a page out of the built site (Docusaurus; a plain folder, as most generators do). */
  draftFrontMatter: boolean;
  /** How the agent keeps this kind's navigation consistent, one line of its system prompt; null when there is nothing to keep. */
  promptHint: string | null;
  /** The site rooted at `root` when `files` hold this kind's configuration there, else null. */
  find(root: string, files: ReadonlySet<string>, read: SiteFiles['read']): Promise<Site | null>;
  /** The navigation, from the navigation file's text (null when there is none); null when that file does not parse. */
  readNavigation(text: string | null, site: Site, files: ReadonlySet<string>): SiteNavigation | null;
  /** The site's name and description, from its configuration's text, when it has them. */
  describe(configText: string): { name: string | null; description: string | null };
  /** Doc ids of the site's pages, when the kind names pages by id (Docusaurus), read until `deadline`. */
  pageIds?(site: Site, files: Iterable<string>, read: SiteFiles['read'], deadline: number): Promise<Map<string, string>>;
}
