import { describe, expect, it } from 'vitest';
import { globMatcher } from '../../src/workspace/glob.ts';

const paths = [
  'README.md',
  'mkdocs.yml',
  'docs/index.md',
  'docs/intro.mdx',
  'docs/guides/setup.md',
  'docs/guides/deep/advanced.md',
  'docs/api (v2)/auth.md',
  'docs/a+b.md',
  'docs/x.md',
  'docs/y.md',
  'docs/[draft].md',
  'docs/$money^.md',
  'docs/é.md',
];

const matching = (pattern: string) => paths.filter(globMatcher(pattern));

describe('globs', () => {
  it.each([
    [
      '*.md',
      [
        'README.md',
        'docs/index.md',
        'docs/guides/setup.md',
        'docs/guides/deep/advanced.md',
        'docs/api (v2)/auth.md',
        'docs/a+b.md',
        'docs/x.md',
        'docs/y.md',
        'docs/[draft].md',
        'docs/$money^.md',
        'docs/é.md',
      ],
    ],
    ['docs/*.md', ['docs/index.md', 'docs/a+b.md', 'docs/x.md', 'docs/y.md', 'docs/[draft].md', 'docs/$money^.md', 'docs/é.md']],
    [
      'docs/**/*.md',
      [
        'docs/index.md',
        'docs/guides/setup.md',
        'docs/guides/deep/advanced.md',
        'docs/api (v2)/auth.md',
        'docs/a+b.md',
        'docs/x.md',
        'docs/y.md',
        'docs/[draft].md',
        'docs/$money^.md',
        'docs/é.md',
      ],
    ],
    ['**/guides/**', ['docs/guides/setup.md', 'docs/guides/deep/advanced.md']],
    ['docs/guides/**', ['docs/guides/setup.md', 'docs/guides/deep/advanced.md']],
    [
      '**/*.{md,yml}',
      [
        'README.md',
        'mkdocs.yml',
        'docs/index.md',
        'docs/guides/setup.md',
        'docs/guides/deep/advanced.md',
        'docs/api (v2)/auth.md',
        'docs/a+b.md',
        'docs/x.md',
        'docs/y.md',
        'docs/[draft].md',
        'docs/$money^.md',
        'docs/é.md',
      ],
    ],
    ['docs/{index,guides/{setup,deep/*}}.md', ['docs/index.md', 'docs/guides/setup.md', 'docs/guides/deep/advanced.md']],
    ['*.md{x', ['docs/intro.mdx']],
    ['docs/[xy].md', ['docs/x.md', 'docs/y.md']],
    ['docs/[!xy].md', ['docs/é.md']],
    ['docs/[^xy].md', ['docs/é.md']],
    ['docs/[a-x].md', ['docs/x.md']],
    ['?.md', ['docs/x.md', 'docs/y.md', 'docs/é.md']],
    ['docs/a+b.md', ['docs/a+b.md']],
    ['docs/api (v2)/*', ['docs/api (v2)/auth.md']],
    ['$money^.md', ['docs/$money^.md']],
    ['[[]draft].md', ['docs/[draft].md']],
    ['[draft.md', []],
    ['docs/[].md', []],
    ['docs', []],
    ['in*', ['docs/index.md', 'docs/intro.mdx']],
  ])('%s', (pattern, expected) => {
    expect(matching(pattern)).toEqual(expected);
  });

  it('explains a glob that cannot be compiled', () => {
    expect(() => globMatcher('docs/[z-a].md')).toThrow(/^"docs\/\[z-a\]\.md" is not a valid glob \(invalid character class range: `z-a`\); use \*, \?/);
  });

  it('matches a folder name pattern against the last segment only', () => {
    expect(globMatcher('guides')('docs/guides')).toBe(true);
    expect(globMatcher('guides')('docs/guides/setup.md')).toBe(false);
  });
});
