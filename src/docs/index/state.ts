import type { Storage } from '../../storage/dialect.ts';
import type { DocsState, DocsStatus } from './types.ts';

/** The project's docs index as `GET /v1/docs/{projectId}` reports it; `none` before any build. */
export async function readDocsState(storage: Storage, projectId: string): Promise<DocsState> {
  const row = await storage.db.selectFrom('docs_state').selectAll().where('project_id', '=', projectId).executeTakeFirst();
  if (!row) return { status: 'none', generation: 0, commit: null, builtAt: null, pages: 0, sections: 0, error: null };
  return {
    status: row.status as DocsStatus,
    generation: row.generation,
    commit: row.built_commit,
    builtAt: row.built_at,
    pages: row.pages,
    sections: row.sections,
    error: row.error,
  };
}
