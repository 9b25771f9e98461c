import { describe, expect, it } from 'vitest';
import { analyzePage } from '../../src/sites/page.ts';
import { createPageAnalyzer } from '../../src/sites/page-analyzer.ts';

describe('page analysis', () => {
  it('reads front matter fields and falls back for the title: front matter, first # heading, file name', async () => {
    const page = await analyzePage(
      'guides/setup.md',
      '---\ntitle: Set up\ndescription: Install it.\nkeywords: [install, cli]\nhidden: true\nnoindex: true\nunlisted: true\nslug: /start\n---\n# Setup\n',
    );
    expect(page.frontMatter).toEqual({
      title: 'Set up',
      description: 'Install it.',
      keywords: ['install', 'cli'],
      hidden: true,
      noindex: true,
      draft: false,
      unlisted: true,
      slug: '/start',
      id: null,
    });
    expect(page.title).toBe('Set up');
    expect((await analyzePage('a.md', 'Intro\n\n# The *first* heading\n')).title).toBe('The first heading');
    expect((await analyzePage('guides/no-title.mdx', 'Just text.\n')).title).toBe('no-title');
  });

  it('splits at ## and ### headings with GitHub anchors, repeated headings suffixed', async () => {
    const text =
      '# Guide\n\nIntro text.\n\n## Install\n\nRun it.\n\n### Install\n\nAgain.\n\n#### Detail\n\nDeep.\n\n## Install\n\nThird.\n\n## What’s new? (v2.0)\n\nNews.\n';
    const page = await analyzePage('guide.md', text);
    expect(page.sections.map((section) => [section.anchor, section.heading, section.level, section.text])).toEqual([
      ['', 'Guide', 1, 'Intro text.'],
      ['install', 'Install', 2, 'Run it.'],
      ['install-1', 'Install', 3, 'Again.\n\nDetail\n\nDeep.'],
      ['install-2', 'Install', 2, 'Third.'],
      ['whats-new-v20', 'What’s new? (v2.0)', 2, 'News.'],
    ]);
    expect(page.sections[2].markdown).toBe('### Install\n\nAgain.\n\n#### Detail\n\nDeep.');
    expect(page.headings.map((heading) => `${heading.level} ${heading.anchor} ${heading.line}`)).toEqual([
      '1 guide 1',
      '2 install 5',
      '3 install-1 9',
      '4 detail 13',
      '2 install-2 17',
      '2 whats-new-v20 21',
    ]);
  });

  it('reduces MDX to text: imports, exports and expressions dropped, component tags dropped with their text kept, code kept', async () => {
    const text = [
      "import { Tabs } from './tabs';",
      'export const version = 2;',
      '',
      '## Use it',
      '',
      '<Note>Read **this** first.</Note>',
      '',
      '<Tabs>',
      '  <Tab title="npm">',
      '',
      '```bash',
      'npm install acme',
      '```',
      '',
      '  </Tab>',
      '</Tabs>',
      '',
      'Version {version}, see `acme --help`.',
    ].join('\n');
    const page = await analyzePage('use.mdx', text);
    expect(page.sections).toEqual([
      {
        anchor: 'use-it',
        heading: 'Use it',
        level: 2,
        markdown: text.slice(text.indexOf('## Use it')),
        text: 'Read this first.\n\nnpm install acme\n\nVersion , see acme --help.',
      },
    ]);
  });

  it('lists links and images with their lines, and reports compile problems', async () => {
    const page = await analyzePage('a.mdx', '# A\n\n[b](b.md) ![c](c.png)\n\n<Card href="/d" />\n\n<Broken>\n');
    expect(page.links).toEqual([]);
    expect(page.problems).toEqual([expect.objectContaining({ file: 'a.mdx', line: 7 })]);
    const fine = await analyzePage('a.mdx', '# A\n\n[b](b.md) ![c](c.png)\n\n<Card href="/d" />\n');
    expect(fine.links).toEqual([
      { kind: 'link', target: 'b.md', line: 3 },
      { kind: 'image', target: 'c.png', line: 3 },
      { kind: 'link', target: '/d', line: 5 },
    ]);
    expect(fine.problems).toEqual([]);
  });

  it('analyzes in a worker with the same result, and skips pages nested too deep', async () => {
    const analyzer = createPageAnalyzer({ pageTimeoutMs: 10_000, deadline: Date.now() + 30_000 });
    try {
      const text = '# A\n\n## B\n\nText.\n';
      expect(await analyzer.analyze('a.md', text)).toEqual(await analyzePage('a.md', text));
      expect(await analyzer.analyze('deep.md', `${'> '.repeat(100)}x\n`)).toBeNull();
      expect(analyzer.skipped).toEqual(['deep.md: block quotes or lists nested more than 64 deep']);
    } finally {
      await analyzer.close();
    }
  });
});
