import { describe, expect, it } from 'vitest';
import { ignoreMatcher } from '../../src/sites/ignore-patterns.ts';

/** The paths of `paths` that `lines` leave out. */
const ignored = (lines: string, paths: string[]) => paths.filter(ignoreMatcher(lines.split('\n')));

describe('ignoreMatcher (gitignore patterns, as MkDocs exclude_docs reads them)', () => {
  it('matches names at any level, anchors patterns with a slash, and matches folders with a trailing slash', () => {
    const paths = ['api.json', 'a/api.json', 'requirements.txt', 'a/requirements.txt', 'drafts/x.md', 'a/drafts/y.md', 'drafts.md', 'a/b/c.md'];
    expect(ignored('api.json', paths)).toEqual(['api.json', 'a/api.json']);
    expect(ignored('/requirements.txt', paths)).toEqual(['requirements.txt']);
    expect(ignored('drafts/', paths)).toEqual(['drafts/x.md', 'a/drafts/y.md']);
    expect(ignored('/drafts/', paths)).toEqual(['drafts/x.md']);
    expect(ignored('drafts', paths)).toEqual(['drafts/x.md', 'a/drafts/y.md']);
    expect(ignored('a/b', paths)).toEqual(['a/b/c.md']);
  });

  it('reads *, ?, classes, ** and escapes; # starts a comment only at the start of a line', () => {
    const paths = ['a.md', 'b.md', 'ab.md', 'x/a.md', 'x/y/z.md', 'x/z.md', '#tag.md', '!bang.md', 'notes.md'];
    expect(ignored('*.md', paths)).toEqual(paths);
    expect(ignored('?.md', paths)).toEqual(['a.md', 'b.md', 'x/a.md', 'x/y/z.md', 'x/z.md']);
    expect(ignored('[ab].md', paths)).toEqual(['a.md', 'b.md', 'x/a.md']);
    expect(ignored('[!ab].md', paths)).toEqual(['x/y/z.md', 'x/z.md']);
    expect(ignored('x/**/z.md', paths)).toEqual(['x/y/z.md', 'x/z.md']);
    expect(ignored('**/z.md', paths)).toEqual(['x/y/z.md', 'x/z.md']);
    expect(ignored('x/**', paths)).toEqual(['x/a.md', 'x/y/z.md', 'x/z.md']);
    expect(ignored('# a comment\n\\#tag.md\n\\!bang.md', paths)).toEqual(['#tag.md', '!bang.md']);
    // MkDocs hands each line to pathspec as it is: what follows a pattern is part of it.
    expect(ignored('notes.md   # not a comment', paths)).toEqual([]);
    expect(ignored('notes.md   ', paths)).toEqual(['notes.md']);
  });

  it('decides by the last pattern that matches, as pathspec’s GitIgnoreSpec: a file’s own match outranks a negated folder', () => {
    const paths = ['.hidden.md', '.assets/a.md', 'foo/example.py', 'bar/example.py', 'drafts/keep.md', 'drafts/other.md'];
    expect(ignored('.*\n!.assets', paths)).toEqual(['.hidden.md']);
    expect(ignored('*.py\n!/foo/example.py', paths)).toEqual(['bar/example.py']);
    expect(ignored('drafts/\n!drafts/keep.md', paths)).toEqual(['drafts/other.md']);
    expect(ignored('*.md\n!drafts/', paths)).toEqual(['.hidden.md', '.assets/a.md', 'drafts/keep.md', 'drafts/other.md']);
  });

  it('reads up to 200 patterns (comments and blank lines aside) and refuses a longer list', () => {
    const patterns = Array.from({ length: 201 }, (_, index) => `drafts/page-${index}.md`);
    const notes = Array.from({ length: 500 }, () => '# a note\n');
    expect(ignored([...notes, ...patterns.slice(0, 200)].join('\n'), ['drafts/page-199.md', 'drafts/page-200.md'])).toEqual(['drafts/page-199.md']);
    expect(() => ignoreMatcher(patterns, 'mkdocs.yml’s exclude_docs')).toThrow(/^mkdocs.yml’s exclude_docs has more than 200 patterns/);
  });

  it('runs in linear time on patterns that would make a backtracking engine run for hours, and skips what it cannot read', () => {
    const started = Date.now();
    expect(ignored(`${'*a'.repeat(30)}b`, [`${'a'.repeat(3000)}.md`])).toEqual([]);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(ignored('[z-a].md\nkeep.md', ['a.md', 'keep.md'])).toEqual(['keep.md']);
  });
});
