import type { Generated } from 'kysely';

/** Each project's docs index: which build generation readers see, and the build in progress. */
export interface DocsStateRow {
  project_id: string;
  /** The generation readers see; 0 before the first build completes. */
  generation: number;
  /** The commit the visible generation was built from. */
  built_commit: string | null;
  /** Epoch ms when the visible generation was switched to. */
  built_at: number | null;
  /** `building`, `ready` or `failed` (see docs/index/types.ts). */
  status: string;
  /** Why the last build failed; null after a successful one. */
  error: string | null;
  /** Pages and sections of the visible generation. */
  pages: number;
  sections: number;
  /** The generation being written; null when no build is in progress. */
  building_generation: number | null;
  /** The highest generation ever begun: the next build takes the one after it. */
  started_generation: number;
  building_commit: string | null;
  building_started_at: number | null;
}

/** One version of a page: visible while first_generation <= G < retired_generation (null: not retired). */
export interface DocsPageRow {
  id: Generated<number>;
  project_id: string;
  first_generation: number;
  retired_generation: number | null;
  /** File path in the repository. */
  path: string;
  route: string;
  title: string;
  description: string | null;
  /** JSON array of strings. */
  keywords: string;
  group_name: string;
  /** Navigation order. */
  position: number;
  /** 1 when left out of llms.txt (still searchable). */
  hidden: number;
  markdown: string;
  /** The builder's hash of what the page was built from, so an unchanged file is not read again. */
  source_hash: string;
}

/** A section of a page version, with the same generations as its page. */
export interface DocsSectionRow {
  id: Generated<number>;
  page_id: number;
  project_id: string;
  first_generation: number;
  retired_generation: number | null;
  /** Order within the page. */
  ordinal: number;
  anchor: string;
  heading: string;
  level: number;
  markdown: string;
  text: string;
}

/** `docs_search`, the full-text index, differs by engine and is written by docs/index/fulltext-*.ts. */
export interface DocsTables {
  docs_state: DocsStateRow;
  docs_pages: DocsPageRow;
  docs_sections: DocsSectionRow;
}
