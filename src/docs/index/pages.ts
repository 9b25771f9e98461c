import type { Selectable } from 'kysely';
import type { Storage } from '../../storage/dialect.ts';
import type { DocsPageRow } from '../../storage/tables/docs.ts';
import type { StoredPage } from './types.ts';
import { currentGeneration, visibleAt } from './visible.ts';

/** A page in a listing: what navigation and `GET /v1/docs/{projectId}/pages` show. */
export type PageSummary = Pick<StoredPage, 'path' | 'route' | 'title' | 'description' | 'group' | 'position' | 'hidden' | 'keywords'>;

function summary(
  row: Omit<Selectable<DocsPageRow>, 'id' | 'markdown' | 'source_hash' | 'project_id' | 'first_generation' | 'retired_generation'>,
): PageSummary {
  return {
    path: row.path,
    route: row.route,
    title: row.title,
    description: row.description,
    group: row.group_name,
    position: row.position,
    hidden: row.hidden === 1,
    keywords: JSON.parse(row.keywords) as string[],
  };
}

/** The project's current pages in navigation order, `limit` from `offset`, and whether more follow. */
export async function listPages(
  storage: Storage,
  projectId: string,
  page: { limit: number; offset: number },
): Promise<{ pages: PageSummary[]; hasMore: boolean }> {
  const rows = await storage.db
    .selectFrom('docs_pages')
    .select(['path', 'route', 'title', 'description', 'group_name', 'position', 'hidden', 'keywords'])
    .where('project_id', '=', projectId)
    .where(visibleAt('docs_pages', currentGeneration(projectId)))
    .orderBy('position')
    .orderBy('path')
    .limit(page.limit + 1)
    .offset(page.offset)
    .execute();
  return { pages: rows.slice(0, page.limit).map(summary), hasMore: rows.length > page.limit };
}

/** The current page whose route or file path is `routeOrPath` (a route first), with its sections; null when none. */
export async function getPage(storage: Storage, projectId: string, routeOrPath: string): Promise<StoredPage | null> {
  const row = await storage.db
    .selectFrom('docs_pages')
    .selectAll()
    .where('project_id', '=', projectId)
    .where((eb) => eb.or([eb('route', '=', routeOrPath), eb('path', '=', routeOrPath)]))
    .where(visibleAt('docs_pages', currentGeneration(projectId)))
    .orderBy((eb) => eb.case().when('route', '=', routeOrPath).then(0).else(1).end())
    .executeTakeFirst();
  if (!row) return null;
  const sections = await storage.db
    .selectFrom('docs_sections')
    .select(['anchor', 'heading', 'level', 'markdown', 'text'])
    .where('page_id', '=', row.id)
    .orderBy('ordinal')
    .execute();
  return { ...summary(row), markdown: row.markdown, sourceHash: row.source_hash, sections };
}
