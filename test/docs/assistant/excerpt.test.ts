import { describe, expect, it } from 'vitest';
import { sectionExcerpt } from '../../../src/docs/assistant/tools.ts';

describe('a section as the assistant’s search gives it to the model', () => {
  it('gives a short section whole', () => {
    const markdown = 'A Workflow Execution is durable.\n\nIt replays after a crash.';
    expect(sectionExcerpt(markdown, 'workflows.mdx', 100)).toBe(markdown);
  });

  it('cuts a long one at a paragraph’s end and says which page holds the rest', () => {
    const first = 'First paragraph. '.repeat(4).trim();
    const second = 'Second paragraph. '.repeat(4).trim();
    const markdown = `${first}\n\n${second}\n\n${'Third. '.repeat(20)}`;
    const excerpt = sectionExcerpt(markdown, 'guides/replay.mdx', first.length + second.length + 10);
    expect(excerpt.startsWith(`${first}\n\n${second}\n\n[`)).toBe(true);
    expect(excerpt).toContain(`${markdown.length - first.length - second.length - 2} more characters`);
    expect(excerpt).toContain('read_page "guides/replay.mdx"');
    expect(excerpt).not.toContain('Third.');
  });

  it('closes a code block it cut open, with the fence it opened with', () => {
    const markdown = `Run this:\n\n~~~go\n${'fmt.Println("replay")\n'.repeat(40)}~~~\n\nDone.`;
    const excerpt = sectionExcerpt(markdown, 'go.mdx', 200);
    const body = excerpt.slice(0, excerpt.lastIndexOf('\n\n['));
    expect(body.endsWith('\n~~~')).toBe(true);
    expect(body.split('\n').filter((line) => line.startsWith('~~~')).length).toBe(2);
    expect(body.length).toBeLessThanOrEqual(204);
  });

  it('cuts at the limit when the text has no line end to cut at', () => {
    const excerpt = sectionExcerpt('x'.repeat(500), 'long.mdx', 100);
    expect(excerpt.startsWith(`${'x'.repeat(100)}\n\n[400 more characters`)).toBe(true);
  });
});
