import type { EventEmitter } from 'node:events';
import type { QuireEvents } from '../http/context.ts';
import type { Storage } from '../storage/dialect.ts';
import { listPages, type PageSummary } from './index/pages.ts';
import { readDocsState } from './index/state.ts';
import type { DocsState } from './index/types.ts';
import { searchDocs, type SearchHit, type SearchOptions } from './search/search.ts';

/** A page the last build could not read, and why. */
export interface DocsPageError {
  path: string;
  message: string;
}

/** The index as the dashboard shows it: its state, and the pages the last build could not read. */
export interface DocsOverview extends DocsState {
  pageErrors: DocsPageError[];
}

/**
 * What other features (the dashboard) may know of a project's docs, handed to them through the
 * process context so they need not import docs/: its index, its pages, its search, and a way to ask
 * for a build.
 */
export interface DocsReader {
  state(projectId: string): Promise<DocsOverview>;
  pages(projectId: string, page: { limit: number; offset: number }): Promise<{ pages: PageSummary[]; hasMore: boolean }>;
  search(projectId: string, query: string, options?: SearchOptions): Promise<SearchHit[]>;
  requestBuild(projectId: string): Promise<void>;
}

/**
 * Asks for a build of the project's docs index. A project whose source changed is built again, so
 * the request is the source-changed event: whoever builds the index listens to it.
 */
export async function requestDocsBuild(events: EventEmitter<QuireEvents>, projectId: string): Promise<void> {
  events.emit('project-source-changed', { projectId });
}

/** The reader of `storage`'s docs; build requests go to this process's `events`. */
export function createDocsReader(storage: Storage, events: EventEmitter<QuireEvents>): DocsReader {
  return {
    // The index keeps no per-page errors of its own yet: the builds record them.
    state: async (projectId) => ({ ...(await readDocsState(storage, projectId)), pageErrors: [] }),
    pages: (projectId, page) => listPages(storage, projectId, page),
    search: (projectId, query, options) => searchDocs(storage, projectId, query, options),
    requestBuild: (projectId) => requestDocsBuild(events, projectId),
  };
}

declare module '../http/context.ts' {
  interface AppContext {
    /** This process's reader of the docs index (see docs/reader.ts). */
    docs: DocsReader;
  }
}
