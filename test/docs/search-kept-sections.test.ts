import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { beginBuild } from '../../src/docs/index/begin.ts';
import { finishBuild } from '../../src/docs/index/finish.ts';
import { removePages } from '../../src/docs/index/remove.ts';
import { writePages } from '../../src/docs/index/write.ts';
import type { PageToWrite } from '../../src/docs/index/types.ts';
import { searchDocs } from '../../src/docs/search/search.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { testDatabases } from '../support/storage.ts';

const page = (path: string, title: string, body: string): PageToWrite => ({
  path,
  route: `/${path.replace(/\.md$/, '')}`,
  title,
  description: null,
  keywords: [],
  group: 'docs',
  position: 1,
  hidden: false,
  markdown: `# ${title}\n\n${body}`,
  sections: [{ anchor: '', heading: title, level: 1, markdown: body, text: body }],
  sourceHash: path,
});

async function build(storage: Storage, projectId: string, write: PageToWrite[], remove: string[] = []): Promise<void> {
  const started = await beginBuild(storage, projectId, 'commit');
  if (remove.length > 0) await removePages(storage, started, remove);
  if (write.length > 0) await writePages(storage, started, write);
  await finishBuild(storage, started);
}

/**
 * What the search keeps of sections between searches (their fields and Markdown, by id) must never
 * answer for another row: SQLite gives the largest id again once its row is deleted, and that row may
 * then belong to another project.
 */
describe.each(testDatabases)('sections kept between searches on $dialect', (database) => {
  let storage: Storage;
  beforeAll(async () => {
    storage = await database.open();
  });
  afterAll(async () => {
    await storage.close();
  });

  it('never answers one project with another project’s purged section that had the same id', async () => {
    const secret = 'The zebra vault of Beta opens with code 4471.';
    await build(storage, 'prj_beta', [page('docs/vault.md', 'Beta vault', secret)]);
    // Both words are asked so that the any-word match (from kept ranks) answers; only "zebra" is in the docs.
    const before = await searchDocs(storage, 'prj_beta', 'zebra unicorn');
    expect(before.map((hit) => [hit.path, hit.markdown])).toEqual([['docs/vault.md', secret]]);
    // Beta removes the page; the next build purges its rows, the database's largest ids.
    await build(storage, 'prj_beta', [], ['docs/vault.md']);
    await build(storage, 'prj_beta', []);
    expect(await searchDocs(storage, 'prj_beta', 'zebra unicorn')).toEqual([]);
    const own = 'The zebra crossing guide of Alpha.';
    await build(storage, 'prj_alpha', [page('docs/crossing.md', 'Alpha crossing', own)]);
    const after = await searchDocs(storage, 'prj_alpha', 'zebra unicorn');
    expect(after.map((hit) => [hit.path, hit.title, hit.markdown])).toEqual([['docs/crossing.md', 'Alpha crossing', own]]);
  });
});
