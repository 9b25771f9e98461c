import { describe, expect, it } from 'vitest';
import { problemsOf } from './change.ts';

const mkdocs = {
  'mkdocs.yml': 'site_name: Acme\nnav:\n  - index.md\n  - guides/setup.md\n  - guides/index.md\n',
  'docs/index.md': '# Home\n',
  'docs/guides/index.md': '# Guides\n',
  'docs/guides/setup.md': '# Setup\n',
  'docs/img/logo.png': 'PNG',
};

describe('docs checks: links and images', () => {
  it('resolves relative, extensionless, index and site-absolute links and images; external links are not fetched', async () => {
    const page = [
      '# Setup',
      '[home](../index.md) [home again](../) [guides](./) [guides](.) [index](/guides/) [setup](setup) [setup](setup.md#install)',
      '[site-absolute](/guides/setup) [built url](setup.html) [query](setup.md?x=1) [anchor](#setup)',
      '![logo](../img/logo.png) ![absolute logo](/img/logo.png)',
      '[web](https://example.test/missing) [mail](mailto:a@b.test) [cdn](//cdn.example.test/x) [phone](tel:123)',
      '[reference][ref]',
      '',
      '[ref]: ../index.md',
    ].join('\n');
    expect(await problemsOf(mkdocs, { 'docs/guides/setup.md': page })).toEqual([]);
  });

  it('reports a dead link, a missing image and a link out of the repository, with their lines', async () => {
    const page = '# Setup\n\nSee [upgrade](upgrade.md).\n\n![diagram](../img/diagram.png)\n\n[escape](../../../../etc/passwd)\n';
    expect(await problemsOf(mkdocs, { 'docs/guides/setup.md': page })).toEqual([
      'docs/guides/setup.md:3 links to `upgrade.md`, which does not exist (no file at `docs/guides/upgrade.md` or with .md/.mdx or an index page).',
      'docs/guides/setup.md:5 shows the image `../img/diagram.png`, which does not exist (no file at `docs/img/diagram.png`).',
      'docs/guides/setup.md:7 links to `../../../../etc/passwd`, which points outside the repository.',
    ]);
  });

  it('checks href and src of MDX components, and site-absolute Mintlify links', async () => {
    const mintlify = {
      'docs.json': '{"navigation": {"groups": [{"group": "A", "pages": ["index", "guides/setup"]}]}}',
      'index.mdx': '# A\n',
      'guides/setup.mdx': '# Setup\n',
      'images/hero.png': 'PNG',
    };
    const page =
      '# Setup\n\n<Card title="Home" href="/index" />\n\n<Card title="Gone" href="/guides/gone" />\n\n<img src="/images/hero.png" />\n\n<Frame>\n  <img src="/images/missing.png" />\n</Frame>\n';
    expect(await problemsOf(mintlify, { 'guides/setup.mdx': page })).toEqual([
      'guides/setup.mdx:5 links to `/guides/gone`, which does not exist (no file at `guides/gone` or with .md/.mdx or an index page).',
      'guides/setup.mdx:10 shows the image `/images/missing.png`, which does not exist (no file at `images/missing.png`).',
    ]);
  });

  it('resolves Docusaurus links by doc id under /docs, and images from static/', async () => {
    const docusaurus = {
      'docusaurus.config.js': 'module.exports = {};\n',
      'docs/intro.md': '# Intro\n',
      'docs/guides/01-setup.md': '---\nid: install\n---\n# Setup\n',
      'static/img/a.png': 'PNG',
    };
    const page = '# Intro\n\n[setup](/docs/guides/install) [setup](guides/install) [file](guides/01-setup.md) ![a](/img/a.png)\n\n[gone](/docs/guides/setup)\n';
    expect(await problemsOf(docusaurus, { 'docs/intro.md': page })).toEqual([
      expect.stringMatching(/^docs\/intro\.md:5 links to `\/docs\/guides\/setup`, which does not exist/),
    ]);
  });

  it('does not blame the change for a link the page already had broken', async () => {
    const base = { ...mkdocs, 'docs/index.md': '# Home\n\n[old](old.md)\n' };
    expect(await problemsOf(base, { 'docs/index.md': '# Home, edited\n\n[old](old.md)\n' })).toEqual([]);
    expect(await problemsOf(base, { 'docs/index.md': '# Home\n\n[old](old.md) [new](new.md)\n' })).toEqual([
      expect.stringMatching(/^docs\/index\.md:3 links to `new\.md`/),
    ]);
  });

  it('reports links in untouched pages to a page the change moved, and accepts them once fixed', async () => {
    const base = { ...mkdocs, 'docs/index.md': '# Home\n\nStart with [setup](guides/setup.md).\n' };
    const moved = { 'docs/guides/setup.md': null, 'docs/guides/install.md': '# Setup\n', 'mkdocs.yml': mkdocs['mkdocs.yml'].replace('setup.md', 'install.md') };
    expect(await problemsOf(base, moved)).toEqual([
      'docs/index.md:3 links to `guides/setup.md`, a page this change deleted or moved; point the link at the new location.',
    ]);
    expect(await problemsOf(base, { ...moved, 'docs/index.md': '# Home\n\nStart with [setup](guides/install.md).\n' })).toEqual([]);
  });
});
