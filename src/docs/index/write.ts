import type { Insertable } from 'kysely';
import type { Storage } from '../../storage/dialect.ts';
import type { DocsSectionRow } from '../../storage/tables/docs.ts';
import type { FullTextEntry } from '../search/engines/engine.ts';
import { fullTextIndexes } from '../search/engines/engines.ts';
import { lockBuild } from './lock.ts';
import { retirePaths } from './remove.ts';
import type { Build, PageToWrite } from './types.ts';

/** Rows per insert statement, well under either engine's bound parameters (about a dozen columns each). */
const rowsPerInsert = 500;

/**
 * Writes new or changed pages into `build`'s generation, in one transaction: a page already in the
 * index at the same path is replaced (its current row is retired at this generation). Pages the
 * build leaves alone stay as they are and remain visible in the new generation.
 */
export async function writePages(storage: Storage, build: Build, pages: PageToWrite[]): Promise<void> {
  const { projectId, generation } = build;
  await storage.db.transaction().execute(async (trx) => {
    await lockBuild(trx, storage, build);
    await retirePaths(
      trx,
      storage,
      build,
      pages.map((page) => page.path),
    );
    const pageIds = new Map<string, number>();
    for (let start = 0; start < pages.length; start += rowsPerInsert) {
      const rows = pages.slice(start, start + rowsPerInsert).map((page) => ({
        project_id: projectId,
        first_generation: generation,
        retired_generation: null,
        path: page.path,
        route: page.route,
        title: page.title,
        description: page.description,
        keywords: JSON.stringify(page.keywords),
        group_name: page.group,
        position: page.position,
        hidden: page.hidden ? 1 : 0,
        markdown: page.markdown,
        source_hash: page.sourceHash,
      }));
      const inserted = await trx.insertInto('docs_pages').values(rows).returning(['id', 'path']).execute();
      for (const row of inserted) pageIds.set(row.path, row.id);
    }
    const sections: Insertable<DocsSectionRow>[] = [];
    const titles = new Map<number, string>();
    for (const page of pages) {
      const pageId = pageIds.get(page.path)!;
      titles.set(pageId, page.title);
      page.sections.forEach((section, ordinal) => {
        sections.push({ page_id: pageId, project_id: projectId, first_generation: generation, retired_generation: null, ordinal, ...section });
      });
    }
    const entries: FullTextEntry[] = [];
    for (let start = 0; start < sections.length; start += rowsPerInsert) {
      const inserted = await trx
        .insertInto('docs_sections')
        .values(sections.slice(start, start + rowsPerInsert))
        .returning(['id', 'page_id', 'heading', 'text'])
        .execute();
      for (const row of inserted) {
        entries.push({ sectionId: row.id, projectId, title: titles.get(row.page_id)!, heading: row.heading, text: row.text });
      }
    }
    await fullTextIndexes[storage.profile.name].add(trx, entries);
  });
}
