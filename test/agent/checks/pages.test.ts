import { describe, expect, it } from 'vitest';
import { checkChange } from '../../../src/agent/checks/index.ts';
import { changeOf, problemsOf } from './change.ts';

const site = { 'mkdocs.yml': 'site_name: A\nnav:\n  - Home: index.md\n  - Guide: guide.md\n', 'docs/index.md': '# Home\n', 'docs/guide.md': '# Guide\n' };

describe('docs checks: pages and configuration files', () => {
  it('reports an MDX component that is never closed, with its line', async () => {
    const problems = await problemsOf({ 'intro.mdx': '# Intro\n' }, { 'intro.mdx': '# Intro\n\n<Note>\n\nRemember this.\n' });
    expect(problems).toEqual([expect.stringMatching(/^intro\.mdx:3 does not compile as MDX: Expected a closing tag for `<Note>`/)]);
  });

  it('reports a broken MDX expression and accepts valid components and imports', async () => {
    expect(await problemsOf({}, { 'a.mdx': 'import { Tabs } from "./tabs";\n\n<Tabs items={["a", "b"]}>\n\nText\n\n</Tabs>\n' })).toEqual([]);
    expect(await problemsOf({}, { 'b.mdx': '# B\n\nValue: {1 +}\n' })).toEqual([
      expect.stringMatching(/^b\.mdx:3 does not compile as MDX: Could not parse expression/),
    ]);
  });

  it('compiles .md as Markdown, where braces and unclosed HTML are text', async () => {
    expect(await problemsOf({}, { 'notes.md': '# Notes\n\nUse {braces} and <b>bold.\n' })).toEqual([]);
  });

  it('reports invalid YAML front matter at its line, and a front matter that is not a mapping', async () => {
    const problems = await problemsOf({}, { 'a.md': '---\ntitle: Setup\ndescription: Install: first\n---\n# A\n', 'b.mdx': '---\n- one\n---\n# B\n' });
    expect(problems).toEqual([
      expect.stringMatching(/^a\.md:3 front matter is not valid YAML/),
      'b.mdx:2 front matter must be a YAML mapping of keys to values (such as `title: …`).',
    ]);
  });

  it('keeps page lines right after front matter', async () => {
    expect(await problemsOf({}, { 'a.mdx': '---\ntitle: A\n---\n\n<Card>\n' })).toEqual([expect.stringMatching(/^a\.mdx:5 /)]);
  });

  it('reports JSON and YAML files that do not parse, and accepts MkDocs tags', async () => {
    const problems = await problemsOf(site, {
      'docs.json': '{\n  "name": "A",\n  "navigation": [\n}\n',
      'config/settings.yaml': 'a: 1\na: 2\n',
      'mkdocs.yml': `${site['mkdocs.yml']}markdown_extensions:\n  - pymdownx.emoji:\n      emoji_index: !!python/name:material.extensions.emoji.twemoji\nextra:\n  key: !ENV API_KEY\n`,
    });
    expect(problems).toEqual([
      expect.stringMatching(/^docs\.json:4 is not valid JSON/),
      expect.stringMatching(/^config\/settings\.yaml:2 is not valid YAML: Map keys must be unique/),
    ]);
  });

  it('does not blame the change for a file the base already broke', async () => {
    const base = { 'broken.mdx': '# B\n\n<Card>\n', 'data.json': '{ "a": 1, }' };
    expect(await problemsOf(base, { 'broken.mdx': '# B, edited\n\n<Card>\n', 'data.json': '{ "a": 2, }' })).toEqual([]);
  });

  it('lists files over the size limit and files past the deadline as not checked, never as passed', async () => {
    const change = changeOf({}, { 'big.md': '# Big\n', 'small.md': '# Small\n' });
    const report = await checkChange(
      { ...change, read: async (path) => (path === 'big.md' ? null : change.read(path)) },
      { maxFileBytes: 10, maxScannedFiles: 10, pageTimeoutMs: 10_000, deadline: Date.now() + 10_000 },
    );
    expect(report.skipped).toEqual(['big.md: larger than 10 bytes, or not text']);
    const late = await checkChange(change, { maxFileBytes: 1000, maxScannedFiles: 10, pageTimeoutMs: 10_000, deadline: Date.now() - 1 });
    expect(late.skipped).toEqual(['big.md and later files: the checks ran out of time']);
    expect(late.problems).toEqual([]);
  });

  it('stops at once when the job is stopped, parsing nothing more', async () => {
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    const report = await checkChange(changeOf({}, { 'a.mdx': '<Card>\n', 'b.json': '{' }), {
      maxFileBytes: 1000,
      maxScannedFiles: 10,
      pageTimeoutMs: 10_000,
      deadline: Date.now() + 10_000,
      signal: controller.signal,
    });
    expect(report.problems).toEqual([]);
  });

  it('skips hostile pages instead of parsing them for long: deep nesting, a page that parses too slowly', async () => {
    const nested = `${'> '.repeat(5_000)}quote\n`;
    const slow = `${'- '.repeat(60)}x\n`.repeat(2) + `${'['.repeat(20_000)}x${']('.repeat(5_000)}\n${'<a>'.repeat(2_000)}\n`;
    const report = await checkChange(changeOf({}, { 'nested.md': nested, 'slow.mdx': slow, 'deep.json': '['.repeat(50_000), 'deep.yml': '['.repeat(50_000) }), {
      maxFileBytes: 1_000_000,
      maxScannedFiles: 10,
      pageTimeoutMs: 1,
      deadline: Date.now() + 30_000,
    });
    expect(report.skipped).toEqual(['nested.md: block quotes or lists nested more than 64 deep', 'slow.mdx: took longer than 1 s to parse']);
    expect(report.problems.map((problem) => problem.file)).toEqual(['deep.json', 'deep.yml']);
  });
});
