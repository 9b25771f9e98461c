import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { abandonBuild } from '../../src/docs/index/abandon.ts';
import { beginBuild } from '../../src/docs/index/begin.ts';
import { finishBuild } from '../../src/docs/index/finish.ts';
import { getPage, listPages } from '../../src/docs/index/pages.ts';
import { listPagePaths } from '../../src/docs/index/paths.ts';
import { removePages } from '../../src/docs/index/remove.ts';
import { readDocsState } from '../../src/docs/index/state.ts';
import { BuildSupersededError, type PageToWrite } from '../../src/docs/index/types.ts';
import { writePages } from '../../src/docs/index/write.ts';
import { searchDocs } from '../../src/docs/search/search.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { testDatabases } from '../support/storage.ts';

function page(path: string, title: string, body: string, extra: Partial<PageToWrite> = {}): PageToWrite {
  const route = `/${path.replace(/\.mdx?$/, '')}`;
  return {
    path,
    route,
    title,
    description: null,
    keywords: [],
    group: 'Pages',
    position: 0,
    hidden: false,
    markdown: `# ${title}\n\n${body}`,
    sections: [{ anchor: '', heading: title, level: 1, markdown: body, text: body }],
    sourceHash: `${title}:${body}`,
    ...extra,
  };
}

/** Pages about other things, so that the words the tests look for are rare, as in real docs. */
const filler = Array.from({ length: 12 }, (_, index) =>
  page(`filler/${index}.md`, `Topic ${index}`, `Unrelated paragraph number ${index} about billing, invoices, teams and roles.`, { position: 100 + index }),
);

async function build(storage: Storage, projectId: string, pages: PageToWrite[], commit = 'c1') {
  const started = await beginBuild(storage, projectId, commit);
  await writePages(storage, started, pages);
  await finishBuild(storage, started);
  return started;
}

describe.each(testDatabases)('docs index and search on $dialect', (database) => {
  let storage: Storage;
  beforeAll(async () => {
    storage = await database.open();
  });
  afterAll(async () => {
    await storage.close();
  });

  const titles = async (projectId: string) => (await listPages(storage, projectId, { limit: 250, offset: 0 })).pages.map((listed) => listed.title);

  it('switches a build atomically: readers see the old generation until it finishes', async () => {
    await build(storage, 'prj_atomic', [page('a.md', 'Alpha', 'first version'), ...filler]);
    const next = await beginBuild(storage, 'prj_atomic', 'c2');
    await writePages(storage, next, [page('a.md', 'Alpha renamed', 'second version'), page('b.md', 'Beta', 'new page')]);
    expect(await titles('prj_atomic')).toContain('Alpha');
    expect(await titles('prj_atomic')).not.toContain('Beta');
    expect(await searchDocs(storage, 'prj_atomic', 'second')).toEqual([]);
    expect((await readDocsState(storage, 'prj_atomic')).status).toBe('building');
    await finishBuild(storage, next);
    expect(await titles('prj_atomic')).toEqual(expect.arrayContaining(['Alpha renamed', 'Beta']));
    expect(await titles('prj_atomic')).not.toContain('Alpha');
    expect((await searchDocs(storage, 'prj_atomic', 'second version'))[0]?.path).toBe('a.md');
    const state = await readDocsState(storage, 'prj_atomic');
    expect(state).toMatchObject({ status: 'ready', commit: 'c2', pages: 14, sections: 14, error: null });
  });

  it('changes only what an incremental build writes or removes', async () => {
    await build(storage, 'prj_incremental', [
      page('keep.md', 'Keep', 'stays'),
      page('change.md', 'Change', 'old text'),
      page('gone.md', 'Gone', 'removed soon'),
    ]);
    const before = await listPagePaths(storage, 'prj_incremental');
    const next = await beginBuild(storage, 'prj_incremental', 'c2');
    await writePages(storage, next, [page('change.md', 'Change', 'new text'), page('added.md', 'Added', 'brand new')]);
    await removePages(storage, next, ['gone.md']);
    await finishBuild(storage, next);
    const after = await listPagePaths(storage, 'prj_incremental');
    expect([...after.keys()].sort()).toEqual(['added.md', 'change.md', 'keep.md']);
    expect(after.get('keep.md')).toBe(before.get('keep.md'));
    expect(after.get('change.md')).toBe('Change:new text');
    expect((await getPage(storage, 'prj_incremental', '/keep'))?.markdown).toBe('# Keep\n\nstays');
    expect((await getPage(storage, 'prj_incremental', 'change.md'))?.sections[0]?.text).toBe('new text');
    expect(await getPage(storage, 'prj_incremental', 'gone.md')).toBeNull();
    expect(await searchDocs(storage, 'prj_incremental', 'removed')).toEqual([]);
    expect((await searchDocs(storage, 'prj_incremental', 'stays')).map((hit) => hit.path)).toEqual(['keep.md']);
  });

  it('counts pages and sections at the switch from what the build left, when it wrote a page twice and took out one it wrote', async () => {
    const twoSections = (path: string, title: string, body: string) => ({
      ...page(path, title, body),
      sections: [
        { anchor: '', heading: title, level: 1, markdown: body, text: body },
        { anchor: 'more', heading: 'More', level: 2, markdown: `more ${body}`, text: `more ${body}` },
      ],
    });
    await build(storage, 'prj_counts', [page('keep.md', 'Keep', 'stays'), twoSections('twice.md', 'Twice', 'first'), page('gone.md', 'Gone', 'old')]);
    expect(await readDocsState(storage, 'prj_counts')).toMatchObject({ pages: 3, sections: 4 });
    const next = await beginBuild(storage, 'prj_counts', 'c2');
    // A page written again in the same build (a resumed or repeated write), a page written then taken out
    // again, and an earlier page removed: only the rows the build leaves behind count.
    await writePages(storage, next, [twoSections('twice.md', 'Twice', 'second'), twoSections('brief.md', 'Brief', 'short lived')]);
    await writePages(storage, next, [page('twice.md', 'Twice', 'third')]);
    await removePages(storage, next, ['brief.md', 'gone.md']);
    await finishBuild(storage, next);
    const listed = await listPages(storage, 'prj_counts', { limit: 250, offset: 0 });
    const sections = await Promise.all(listed.pages.map(async (listedPage) => (await getPage(storage, 'prj_counts', listedPage.path))!.sections.length));
    expect(listed.pages.map((listedPage) => listedPage.path).sort()).toEqual(['keep.md', 'twice.md']);
    expect(await readDocsState(storage, 'prj_counts')).toMatchObject({
      pages: listed.pages.length,
      sections: sections.reduce((sum, count) => sum + count, 0),
    });
    expect(await readDocsState(storage, 'prj_counts')).toMatchObject({ pages: 2, sections: 2 });
  });

  it('restores the previous generation when a build is abandoned, and rolls back one left unfinished', async () => {
    await build(storage, 'prj_abandon', [page('a.md', 'Alpha', 'original'), page('b.md', 'Beta', 'kept')]);
    const failed = await beginBuild(storage, 'prj_abandon', 'c2');
    await writePages(storage, failed, [page('a.md', 'Alpha', 'broken')]);
    await removePages(storage, failed, ['b.md']);
    await abandonBuild(storage, failed, 'docs.json is not valid JSON');
    expect(await readDocsState(storage, 'prj_abandon')).toMatchObject({ status: 'failed', error: 'docs.json is not valid JSON', commit: 'c1', pages: 2 });
    expect(await listPagePaths(storage, 'prj_abandon')).toEqual(
      new Map([
        ['a.md', 'Alpha:original'],
        ['b.md', 'Beta:kept'],
      ]),
    );

    const crashed = await beginBuild(storage, 'prj_abandon', 'c3');
    await writePages(storage, crashed, [page('a.md', 'Alpha', 'half written')]);
    await removePages(storage, crashed, ['b.md']);
    const resumed = await beginBuild(storage, 'prj_abandon', 'c3');
    await expect(writePages(storage, crashed, [page('c.md', 'Late', 'late')])).rejects.toBeInstanceOf(BuildSupersededError);
    await expect(finishBuild(storage, crashed)).rejects.toBeInstanceOf(BuildSupersededError);
    await writePages(storage, resumed, [page('c.md', 'Gamma', 'third')]);
    await finishBuild(storage, resumed);
    expect(await listPagePaths(storage, 'prj_abandon')).toEqual(
      new Map([
        ['a.md', 'Alpha:original'],
        ['b.md', 'Beta:kept'],
        ['c.md', 'Gamma:third'],
      ]),
    );
    expect(await searchDocs(storage, 'prj_abandon', 'half written')).toEqual([]);
  });

  it('ranks title above body, phrase above scattered words, finds prefixes and breaks ties by navigation order', async () => {
    await build(storage, 'prj_rank', [
      page('body.md', 'Overview', 'Here we talk about webhooks at length.', { position: 1 }),
      page('title.md', 'Webhooks', 'How deliveries are signed.', { position: 2 }),
      page('scattered.md', 'Scattered', 'The token is secret; rotating it is a question of access.', { position: 3 }),
      page('phrase.md', 'Phrase', 'Rotate the access token every month.', { position: 4 }),
      page('config.md', 'Configuration', 'Settings of the server.', { position: 5 }),
      page('second.md', 'Twin', 'Identical twin paragraph about quotas.', { position: 7 }),
      page('first.md', 'Twin', 'Identical twin paragraph about quotas.', { position: 6 }),
      ...filler,
    ]);
    const paths = async (query: string) => (await searchDocs(storage, 'prj_rank', query)).map((hit) => hit.path);
    expect((await paths('webhooks')).slice(0, 2)).toEqual(['title.md', 'body.md']);
    expect((await paths('access token')).slice(0, 2)).toEqual(['phrase.md', 'scattered.md']);
    expect(await paths('conf')).toContain('config.md');
    expect(await paths('quotas')).toEqual(['first.md', 'second.md']);
    const hits = await searchDocs(storage, 'prj_rank', 'webhooks');
    expect(hits[0]).toMatchObject({
      route: '/title',
      title: 'Webhooks',
      group: 'Pages',
      anchor: '',
      heading: 'Webhooks',
      markdown: 'How deliveries are signed.',
    });
    expect(hits[0]!.score).toBe(1);
    for (const hit of hits) expect(hit.score).toBeGreaterThan(0);
    // A section holding more of the words, in the page named by one of them, comes first.
    expect((await paths('webhooks signed deliveries'))[0]).toBe('title.md');
  });

  it('ranks the page named after the query above a section that only mentions its words more often', async () => {
    const section = (anchor: string, heading: string, text: string) => ({ anchor, heading, level: 2, markdown: text, text });
    await build(storage, 'prj_titled', [
      page('reference.md', 'Command reference', '', {
        position: 1,
        sections: [
          section('', 'Command reference', 'Every command.'),
          section('fill', 'Fill', 'Backfill a schedule: the backfill command fills past schedule runs; backfill each schedule once.'),
        ],
      }),
      page('schedules.md', 'Schedules', 'A schedule starts workflows at set times; a backfill runs the times that passed, once.', { position: 2 }),
      ...filler,
    ]);
    const hits = await searchDocs(storage, 'prj_titled', 'schedule backfill');
    expect(hits.map((hit) => [hit.path, hit.anchor])).toEqual([
      ['schedules.md', ''],
      ['reference.md', 'fill'],
    ]);
  });

  it('answers a repeated search from the generation readers see, never from an earlier one', async () => {
    await build(storage, 'prj_repeat', [page('a.md', 'Quota', 'quotas limit requests'), ...filler]);
    const first = await searchDocs(storage, 'prj_repeat', 'quotas');
    expect(first.map((hit) => hit.path)).toEqual(['a.md']);
    // An answer handed out is the caller's: changing it changes no later answer.
    first[0]!.markdown = 'changed by the caller';
    expect((await searchDocs(storage, 'prj_repeat', '  QUOTAS '))[0]!.markdown).toBe('quotas limit requests');
    // A build in progress changes nothing readers see; its switch changes the answer to the same query.
    const next = await beginBuild(storage, 'prj_repeat', 'c2');
    await removePages(storage, next, ['a.md']);
    await writePages(storage, next, [page('b.md', 'Limits', 'quotas per organization')]);
    expect((await searchDocs(storage, 'prj_repeat', 'quotas')).map((hit) => hit.path)).toEqual(['a.md']);
    await finishBuild(storage, next);
    expect((await searchDocs(storage, 'prj_repeat', 'quotas')).map((hit) => hit.path)).toEqual(['b.md']);
    // Options are part of the question: a narrower one is not answered with the wider one's hits.
    expect(await searchDocs(storage, 'prj_repeat', 'quotas', { groups: ['Other'] })).toEqual([]);
    expect(await searchDocs(storage, 'prj_repeat', 'quotas', { scoreThreshold: 1.01 })).toEqual([]);
    // An abandoned build leaves the answer as it was.
    const abandoned = await beginBuild(storage, 'prj_repeat', 'c3');
    await removePages(storage, abandoned, ['b.md']);
    await abandonBuild(storage, abandoned, 'failed');
    expect((await searchDocs(storage, 'prj_repeat', 'quotas')).map((hit) => hit.path)).toEqual(['b.md']);
  });

  it('answers hostile queries without error', async () => {
    await build(storage, 'prj_hostile', [page('a.md', 'Near', 'near or and not'), ...filler]);
    const hostile = [
      '"',
      '*',
      'NEAR(',
      'a OR',
      'near OR',
      '"unbalanced',
      'title:near',
      '(near',
      '-near',
      '^near',
      'near*',
      '\uD800near\uDC00',
      '\uDFFF',
      '',
      '   ',
      '!?'.repeat(500),
    ];
    for (const query of hostile) {
      await expect(searchDocs(storage, 'prj_hostile', query)).resolves.toBeInstanceOf(Array);
    }
    expect(await searchDocs(storage, 'prj_hostile', '!?'.repeat(500))).toEqual([]);
    expect((await searchDocs(storage, 'prj_hostile', 'NEAR(')).map((hit) => hit.path)).toEqual(['a.md']);
  });

  it("never returns another project's pages, and filters by group and score", async () => {
    await build(storage, 'prj_tenant_a', [
      page('a.md', 'Deploying', 'deploy to production', { group: 'Guides' }),
      page('b.md', 'Rollback', 'deploy rollback steps', { group: 'Reference', position: 1 }),
      ...filler,
    ]);
    await build(storage, 'prj_tenant_b', [page('secret.md', 'Deploying secrets', 'deploy to production'), ...filler]);
    const hits = await searchDocs(storage, 'prj_tenant_a', 'deploy');
    expect(hits.map((hit) => hit.path).sort()).toEqual(['a.md', 'b.md']);
    expect((await searchDocs(storage, 'prj_tenant_a', 'deploy', { groups: ['Reference'] })).map((hit) => hit.path)).toEqual(['b.md']);
    expect(await searchDocs(storage, 'prj_tenant_a', 'deploy', { groups: [] })).toEqual([]);
    // "rollback" is in one section only: with two words, that section scores above 0.5, the other at most 0.5.
    const both = await searchDocs(storage, 'prj_tenant_a', 'deploy rollback');
    expect(both.map((hit) => hit.path)).toEqual(['b.md', 'a.md']);
    expect(both[1]!.score).toBeLessThanOrEqual(0.5);
    expect((await searchDocs(storage, 'prj_tenant_a', 'deploy rollback', { scoreThreshold: 0.6 })).map((hit) => hit.path)).toEqual(['b.md']);
    expect(await searchDocs(storage, 'prj_tenant_a', 'deploy', { limit: 1 })).toHaveLength(1);
  });

  it('matches a last word that many sections hold whole as that word on SQLite, and a rarer one also as a prefix', async () => {
    // More sections hold "work" whole than the search ranks (generation.ts's wholeWordSections).
    const whole = Array.from({ length: 120 }, (_, index) =>
      page(`work/${index}.md`, `Guide ${index}`, `How the work of part ${index} is shared.`, { position: 10 + index }),
    );
    await build(storage, 'prj_whole', [page('workflows.md', 'Workflows', 'What runs in order.', { position: 1 }), ...whole, ...filler]);
    const paths = async (query: string) => (await searchDocs(storage, 'prj_whole', query)).map((hit) => hit.path);
    expect(await paths('work')).toHaveLength(10);
    // Only where counting is cheap (FullTextIndex's countsCheaply): PostgreSQL matches it as a prefix still.
    if (database.dialect === 'sqlite') expect(await paths('work')).not.toContain('workflows.md');
    expect(await paths('workf')).toEqual(['workflows.md']);
  });

  it('ranks the sections of the rare word first when the other words are in thousands of sections', async () => {
    // More sections hold "temporal" and "workflow" than the any-word match ranks (search.ts).
    const common = Array.from({ length: 1600 }, (_, index) =>
      page(`common/${index}.md`, `Guide ${index}`, `A temporal workflow, part ${index}.`, { position: 10 + index }),
    );
    const rare = ['one', 'two', 'three'].map((name, index) =>
      page(`rare/${name}.md`, `Retries ${name}`, `The zanzibar backoff of a workflow.`, { position: 2000 + index }),
    );
    await build(storage, 'prj_rare', [...common, ...rare]);
    const paths = async (query: string, limit: number) => (await searchDocs(storage, 'prj_rare', query, { limit })).map((hit) => hit.path);
    expect(await paths('temporal workflow zanzibar', 3)).toEqual(['rare/one.md', 'rare/two.md', 'rare/three.md']);
    // Fewer sections than asked for hold it: the common words fill the answer after them.
    const filled = await paths('temporal workflow zanzibar', 10);
    expect(filled.slice(0, 3)).toEqual(['rare/one.md', 'rare/two.md', 'rare/three.md']);
    expect(filled.slice(3)).toHaveLength(7);
    expect(filled.slice(3).every((path) => path.startsWith('common/'))).toBe(true);
  });
});
