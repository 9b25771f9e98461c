import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/config.ts';
import { docsStatus } from '../../src/docs/index/build/status.ts';
import { getPage, listPages } from '../../src/docs/index/pages.ts';
import { readDocsState } from '../../src/docs/index/state.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, grantAccess, testConfig } from '../support/app.ts';
import { gitSource, type SourceAccess } from '../../src/docs/index/build/source.ts';
import { buildContext, buildThroughQueue, docsRepository, pushDocsChange, type RepositoryChange } from '../support/docs-repositories.ts';
import { git } from '../support/git-repositories.ts';
import { testDatabases } from '../support/storage.ts';

const mintlify = {
  'docs.json': JSON.stringify({
    name: 'Acme',
    navigation: {
      tabs: [
        { tab: 'Guides', groups: [{ group: 'Start', pages: ['index', 'quickstart'] }] },
        { tab: 'API', groups: [{ group: 'Reference', pages: ['api/users'] }] },
      ],
    },
  }),
  'index.mdx':
    '---\ntitle: Acme\ndescription: Widgets, sorted.\n---\n\nimport { Card } from "/snippets/card.mdx";\n\nWelcome.\n\n## Install\n\n<Card>Run the installer.</Card>\n',
  'quickstart.mdx': '# Quickstart\n\nStart here.\n\n## First widget\n\nMake one.\n\n### Options\n\nSome.\n',
  'api/users.mdx': '---\nhidden: true\n---\n# Users\n\nThe users API.\n',
};

const docusaurus = {
  'docusaurus.config.js': "module.exports = { title: 'Acme CLI', url: 'https://docs.acme.test' };\n",
  'sidebars.js': "module.exports = { docs: ['intro', { type: 'category', label: 'Guides', items: ['guides/setup'] }] };\n",
  'docs/intro.md': '---\nslug: /\n---\n# Intro\n\nHello.\n',
  'docs/guides/setup.md': '# Setup\n\n## Requirements\n\nNode.\n',
};

const mkdocs = {
  'mkdocs.yml': 'site_name: Acme\nnav:\n  - Home: index.md\n  - Guides:\n      - Setup: guides/setup.md\n',
  'docs/index.md': '# Home\n\nWelcome home.\n',
  'docs/guides/setup.md': '# Setup\n\n## Install\n\nRun it.\n',
};

const plain = {
  'handbook/index.md': '# Handbook\n\nAll of it.\n',
  'handbook/cli/run.md': '---\nnoindex: true\n---\n# Run\n\n## Flags\n\nMany.\n',
  'README.md': '# Not docs\n',
};

const pageLines = async (storage: Storage, projectId: string) =>
  (await listPages(storage, projectId, { limit: 250, offset: 0 })).pages.map(
    (page) => `${page.path} ${page.route} [${page.group}]${page.hidden ? ' (hidden)' : ''}`,
  );

const generations = async (storage: Storage, projectId: string) => {
  const rows = await storage.db
    .selectFrom('docs_pages')
    .select(['path', 'first_generation'])
    .where('project_id', '=', projectId)
    .where('retired_generation', 'is', null)
    .execute();
  return Object.fromEntries(rows.map((row) => [row.path, row.first_generation]));
};

describe.each(testDatabases)('docs index builds from a repository on $dialect', (database) => {
  let storage: Storage;
  let dataDir: string;
  let repositories: string;
  let config: Config;
  let counter = 0;

  beforeAll(async () => {
    storage = await database.open();
    dataDir = mkdtempSync(join(tmpdir(), 'quire-builds-data-'));
    repositories = mkdtempSync(join(tmpdir(), 'quire-builds-repos-'));
    config = testConfig({ dataDir, docsMaxPageBytes: 4096 });
  });
  afterAll(async () => {
    await storage.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(repositories, { recursive: true, force: true });
  });

  /** A project on a new repository holding `change`, its organization allowed the repositories folder. */
  async function project(change: RepositoryChange, docsPath: string | null = null) {
    const path = join(repositories, `repo-${counter++}.git`);
    const commit = docsRepository(path, change);
    const tenant = await createTenant(storage, { project: { repository: path, ref: 'main', docsPath } });
    await grantAccess(storage, config, tenant.orgId, { localDirectories: [repositories] });
    return { id: tenant.project.id, path, commit };
  }
  const build = (projectId: string) => buildThroughQueue(buildContext(storage, config), projectId);

  it('Mintlify: pages with routes, tab and group names, hidden pages, sections and front matter', async () => {
    const { id, commit } = await project({ write: mintlify });
    expect(await build(id)).toMatchObject({ ok: true, result: { commit, pageErrors: [] } });
    expect(await pageLines(storage, id)).toEqual([
      'index.mdx / [Guides / Start]',
      'quickstart.mdx /quickstart [Guides / Start]',
      'api/users.mdx /api/users [API / Reference] (hidden)',
    ]);
    const home = await getPage(storage, id, '/');
    expect(home).toMatchObject({ title: 'Acme', description: 'Widgets, sorted.' });
    expect(home!.markdown.startsWith('import')).toBe(true);
    expect(home!.sections.map((section) => [section.anchor, section.text.trim()])).toEqual([
      ['', 'Welcome.'],
      ['install', 'Run the installer.'],
    ]);
    expect((await getPage(storage, id, '/quickstart'))!.sections.map((section) => section.anchor)).toEqual(['', 'first-widget', 'options']);
    expect(await readDocsState(storage, id)).toMatchObject({ status: 'ready', commit, pages: 3, sections: 6 });
  });

  it('Docusaurus, MkDocs and a plain folder: each kind’s routes and groups', async () => {
    const kinds = [
      [docusaurus, null, ['docs/intro.md /docs [Pages]', 'docs/guides/setup.md /docs/guides/setup [Guides]']],
      [mkdocs, null, ['docs/index.md / [Pages]', 'docs/guides/setup.md /guides/setup/ [Guides]']],
      [plain, 'handbook', ['handbook/cli/run.md /cli/run [cli] (hidden)', 'handbook/index.md / [Pages]']],
    ] as const;
    for (const [files, docsPath, expected] of kinds) {
      const { id } = await project({ write: files }, docsPath);
      expect(await build(id)).toMatchObject({ ok: true });
      expect(await pageLines(storage, id)).toEqual(expected);
    }
  });

  it('builds incrementally: a changed page is the only one written, a removed one disappears, nothing changed is a no-op', async () => {
    const { id, path } = await project({ write: mintlify });
    await build(id);
    const first = await generations(storage, id);
    pushDocsChange(path, { write: { 'quickstart.mdx': '# Quickstart\n\nStart here, faster.\n' } });
    await build(id);
    const second = await generations(storage, id);
    expect(second['quickstart.mdx']).toBeGreaterThan(first['quickstart.mdx']);
    expect(second['index.mdx']).toBe(first['index.mdx']);
    expect(second['api/users.mdx']).toBe(first['api/users.mdx']);
    expect((await getPage(storage, id, '/quickstart'))!.markdown).toContain('faster');

    const navigation = JSON.parse(mintlify['docs.json']) as { navigation: { tabs: { groups: { pages: string[] }[] }[] } };
    navigation.navigation.tabs[0].groups[0].pages = ['index'];
    const commit = pushDocsChange(path, { write: { 'docs.json': JSON.stringify(navigation) }, remove: ['quickstart.mdx'] });
    await build(id);
    expect(await pageLines(storage, id)).toEqual(['index.mdx / [Guides / Start]', 'api/users.mdx /api/users [API / Reference] (hidden)']);
    const third = await generations(storage, id);
    expect(third['index.mdx']).toBe(first['index.mdx']);
    // Moved up in the navigation: written again from its stored content, not parsed.
    expect(third['api/users.mdx']).toBeGreaterThan(first['api/users.mdx']);

    const before = await readDocsState(storage, id);
    expect(await build(id)).toEqual({ ok: true, result: { commit, docsPath: '', pageErrors: null } });
    expect(await readDocsState(storage, id)).toEqual(before);
  });

  it('an incremental build reads only the changed blobs and picks up a change, a deletion, a rename and new front matter', async () => {
    const pages = Object.fromEntries(
      Array.from({ length: 12 }, (_, index) => [
        `guide/page-${String(index).padStart(2, '0')}.md`,
        `# Page ${index}\n\nText ${index} on ${database.dialect}.\n`,
      ]),
    );
    const { id, path } = await project({ write: pages });
    const reads: string[] = [];
    const counting: SourceAccess = {
      ...gitSource,
      async openTree(options) {
        const tree = await gitSource.openTree(options);
        const read = tree.files.read;
        tree.files.read = (file) => {
          reads.push(file);
          return read(file);
        };
        return tree;
      },
    };
    const countedBuild = () => buildThroughQueue({ ...buildContext(storage, config), source: counting }, id);
    await countedBuild();
    expect(reads.filter((file) => file.startsWith('guide/')).length).toBeGreaterThanOrEqual(12);
    const first = await generations(storage, id);

    reads.length = 0;
    pushDocsChange(path, {
      // Texts no other test wrote: front matter is kept per process by blob id, and the other database's run shares it.
      write: {
        'guide/page-01.md': `# Page one\n\nRewritten on ${database.dialect}.\n`,
        'guide/page-03.md': `---\nhidden: true\n---\n# Page 3\n\nText 3 on ${database.dialect}.\n`,
      },
      remove: ['guide/page-02.md'],
    });
    await countedBuild();
    expect(reads.sort()).toEqual(['guide/page-01.md', 'guide/page-01.md', 'guide/page-03.md', 'guide/page-03.md']);
    const second = await generations(storage, id);
    expect(second['guide/page-00.md']).toBe(first['guide/page-00.md']);
    expect(second['guide/page-01.md']).toBeGreaterThan(first['guide/page-01.md']);
    expect(second['guide/page-02.md']).toBeUndefined();
    expect((await getPage(storage, id, '/guide/page-01'))!.title).toBe('Page one');
    expect(await pageLines(storage, id)).toContain('guide/page-03.md /guide/page-03 [guide] (hidden)');

    reads.length = 0;
    const work = mkdtempSync(join(tmpdir(), 'quire-builds-rename-'));
    try {
      git(work, 'clone', '--quiet', '--branch', 'main', path, '.');
      git(work, 'mv', 'guide/page-04.md', 'guide/renamed.md');
      git(work, 'commit', '--quiet', '--message', 'Rename');
      git(work, 'push', '--quiet', 'origin', 'main');
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
    await countedBuild();
    // The renamed page's text is read once to be indexed at its new path; its front matter is known by its blob.
    expect(reads).toEqual(['guide/renamed.md']);
    const lines = await pageLines(storage, id);
    expect(lines).toContain('guide/renamed.md /guide/renamed [guide]');
    expect(lines.some((line) => line.startsWith('guide/page-04.md'))).toBe(false);
    expect(await getPage(storage, id, '/guide/renamed')).toMatchObject({ title: 'Page 4' });
    expect(lines).toHaveLength(11);
  });

  it('a navigation that does not parse fails the build and keeps the last good generation answering', async () => {
    const { id, path, commit } = await project({ write: mintlify });
    await build(id);
    pushDocsChange(path, { write: { 'docs.json': '{"navigation": [', 'index.mdx': '# Changed\n' } });
    const outcome = await build(id);
    expect(outcome).toMatchObject({ ok: false, error: expect.stringContaining('docs.json could not be read as Mintlify navigation') });
    const status = await docsStatus(storage, id);
    expect(status).toMatchObject({ status: 'failed', commit, pages: 3, error: expect.stringContaining('docs.json') });
    expect((await getPage(storage, id, '/'))!.title).toBe('Acme');
  });

  it('a missing ref or repository fails with an error that says so', async () => {
    const { id, path } = await project({ write: mkdocs });
    await storage.db.updateTable('projects').set({ ref: 'no-such-branch' }).where('id', '=', id).execute();
    expect(await build(id)).toMatchObject({ ok: false, error: expect.stringContaining('"no-such-branch" does not exist') });
    expect(await docsStatus(storage, id)).toMatchObject({ status: 'failed', commit: null, pages: 0 });
    rmSync(path, { recursive: true, force: true });
  });

  it('a link out of the repository, a huge page and invalid UTF-8 are page errors; the rest is indexed', async () => {
    const { id } = await project(
      {
        write: {
          'docs/index.md': '# Home\n\nFine.\n',
          'docs/huge.md': `# Huge\n\n${'word '.repeat(2000)}\n`,
          'docs/latin.md': Buffer.concat([Buffer.from('# Caf'), Buffer.from([0xe9]), Buffer.from('\n\nBad bytes.\n')]),
          'docs/broken.mdx': '# Broken\n\n<Card>\n\nNever closed.\n',
          'docs/nested.md': `# Nested\n\n${'> '.repeat(70)}deep\n`,
        },
        links: { 'docs/escape.md': '/etc/hostname', 'docs/inside.md': 'index.md' },
      },
      'docs',
    );
    const outcome = await build(id);
    expect(outcome.ok).toBe(true);
    const errors = (await docsStatus(storage, id)).pageErrors;
    expect(errors.map((error) => error.path).sort()).toEqual(['docs/broken.mdx', 'docs/escape.md', 'docs/huge.md', 'docs/latin.md', 'docs/nested.md']);
    expect(errors.find((error) => error.path === 'docs/nested.md')!.message).toBe(
      'The page was indexed as plain text: block quotes or lists nested more than 64 deep.',
    );
    expect(errors.find((error) => error.path === 'docs/huge.md')!.message).toContain('QUIRE_DOCS_MAX_PAGE_BYTES');
    expect(errors.find((error) => error.path === 'docs/latin.md')!.message).toContain('not valid UTF-8');
    expect((await pageLines(storage, id)).map((line) => line.split(' ')[0]).sort()).toEqual([
      'docs/broken.mdx',
      'docs/index.md',
      'docs/inside.md',
      'docs/latin.md',
      'docs/nested.md',
    ]);
    expect((await getPage(storage, id, 'docs/latin.md'))!.title).toBe('Caf\uFFFD');
    expect(await getPage(storage, id, 'docs/nested.md')).toMatchObject({ title: 'nested', sections: [{ anchor: '', heading: 'nested' }] });
  });

  it('reads another docs path at the same commit in full, and indexes at most QUIRE_DOCS_MAX_PAGES pages', async () => {
    const { id } = await project({ write: { ...plain, 'other/a.md': '# A\n', 'other/b.md': '# B\n', 'other/c.md': '# C\n' } }, 'handbook');
    await build(id);
    await storage.db.updateTable('projects').set({ docs_path: 'other' }).where('id', '=', id).execute();
    const limited = buildContext(storage, { ...config, docsMaxPages: 2 });
    expect(await buildThroughQueue(limited, id)).toMatchObject({ ok: true });
    expect(await pageLines(storage, id)).toEqual(['other/a.md /a [Pages]', 'other/b.md /b [Pages]']);
    expect((await docsStatus(storage, id)).pageErrors).toEqual([
      { path: 'other/c.md', message: expect.stringContaining('the first 2 (QUIRE_DOCS_MAX_PAGES)') },
    ]);
  });
});
