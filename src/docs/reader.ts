import type { EventEmitter } from 'node:events';
import type { QuireEvents } from '../http/context.ts';
import type { Storage } from '../storage/dialect.ts';
import { assistantDesk, type AssistantDesk } from './assistant/desk.ts';
import { docsStatus, requestBuild, type DocsStatusView } from './index/build/status.ts';
import { listPages, type PageSummary } from './index/pages.ts';
import { searchDocs, type SearchHit, type SearchOptions } from './search/search.ts';

/**
 * What other features (the dashboard) may know of a project's docs, handed to them through the
 * process context so they need not import docs/: its index, its pages, its search, and a way to ask
 * for a build.
 */
export interface DocsReader {
  state(projectId: string): Promise<DocsStatusView>;
  pages(projectId: string, page: { limit: number; offset: number }): Promise<{ pages: PageSummary[]; hasMore: boolean }>;
  search(projectId: string, query: string, options?: SearchOptions): Promise<SearchHit[]>;
  requestBuild(projectId: string): Promise<void>;
  /** The assistant's playground and its stored conversations (assistant/desk.ts). */
  assistant: AssistantDesk;
}

/** The reader of `storage`'s docs; a build request is queued in the database and wakes this process's builder through `events`. */
export function createDocsReader(storage: Storage, events: EventEmitter<QuireEvents>): DocsReader {
  return {
    state: (projectId) => docsStatus(storage, projectId),
    pages: (projectId, page) => listPages(storage, projectId, page),
    search: (projectId, query, options) => searchDocs(storage, projectId, query, options),
    requestBuild: (projectId) => requestBuild(storage, events, projectId),
    assistant: assistantDesk(storage),
  };
}

declare module '../http/context.ts' {
  interface AppContext {
    /** This process's reader of the docs index (see docs/reader.ts). */
    docs: DocsReader;
  }
}
