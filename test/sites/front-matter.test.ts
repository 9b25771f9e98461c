import { describe, expect, it } from 'vitest';
import { readFrontMatter } from '../../src/sites/front-matter.ts';

describe('front matter', () => {
  it('reads the same front matter again as it was, whatever a caller did with an earlier answer', () => {
    const page = '---\ntitle: Setup\nkeywords: [install, setup]\nhidden: true\n---\n# Setup\n';
    const first = readFrontMatter(page);
    expect(first).toMatchObject({ title: 'Setup', keywords: ['install', 'setup'], hidden: true, noindex: false, slug: null });
    first.keywords.push('changed');
    first.title = 'changed';
    // Another page with the same front matter, and the same page again.
    expect(readFrontMatter(`${page}More text.\n`)).toMatchObject({ title: 'Setup', keywords: ['install', 'setup'], hidden: true });
    expect(readFrontMatter(page).keywords).toEqual(['install', 'setup']);
  });

  it('tells different front matter apart, and a page without any has none', () => {
    expect(readFrontMatter('---\ntitle: One\n---\n').title).toBe('One');
    expect(readFrontMatter('---\ntitle: Two\n---\n').title).toBe('Two');
    expect(readFrontMatter('---\ntitle: [unclosed\n---\n').title).toBeNull();
    expect(readFrontMatter('# No front matter\n')).toMatchObject({ title: null, keywords: [], hidden: false });
  });
});
