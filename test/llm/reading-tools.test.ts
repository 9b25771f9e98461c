import { describe, expect, it } from 'vitest';
import { FileAccessError, type FileEntry, type ReadableFiles } from '../../src/lib/readable-files.ts';
import { listLimit } from '../../src/llm/caps.ts';
import { readingTools } from '../../src/llm/tools/reading.ts';

type Tools = ReturnType<typeof readingTools>;

async function call(tools: Tools, name: keyof Tools, input: Record<string, unknown>): Promise<string> {
  const execute = tools[name].execute as unknown as (input: unknown, options: { toolCallId: string; messages: []; context: object }) => Promise<string>;
  return execute(input, { toolCallId: 'call_test', messages: [], context: {} });
}

/** Files held in memory: the reading tools need nothing but `ReadableFiles`. */
function memoryFiles(files: Record<string, string>): ReadableFiles {
  const entries = (): FileEntry[] => Object.entries(files).map(([path, content]) => ({ path, type: 'file', size: content.length }));
  return {
    list: async () => entries(),
    read: async (path) => {
      if (path.includes('..')) throw new FileAccessError(`"${path}" uses ".." to leave its folder.`);
      const content = files[path.replace(/^\.\//, '')];
      if (content === undefined) throw new FileAccessError(`"${path}" does not exist.`);
      return content;
    },
    search: async (pattern) =>
      Object.entries(files).flatMap(([path, content]) =>
        content
          .split('\n')
          .map((text, index) => ({ path, line: index + 1, text }))
          .filter((match) => match.text.includes(pattern)),
      ),
  };
}

describe('the reading tools over any ReadableFiles', () => {
  it('tells the read callback each file read, its path normalized, and nothing for refused or binary files', async () => {
    const read: string[] = [];
    const tools = readingTools(memoryFiles({ 'docs/index.md': '# Welcome\n', 'logo.png': 'PNG\u0000data' }), { onRead: (path) => read.push(path) });
    expect(await call(tools, 'read_file', { path: './docs/index.md' })).toBe('./docs/index.md (2 lines):\n# Welcome\n');
    expect(await call(tools, 'read_file', { path: '../secret' })).toBe('Error: "../secret" uses ".." to leave its folder.');
    expect(await call(tools, 'read_file', { path: 'docs/missing.md' })).toBe('Error: "docs/missing.md" does not exist.');
    expect(await call(tools, 'read_file', { path: 'logo.png' })).toMatch(/^Error: "logo.png" is a binary file/);
    expect(read).toEqual(['docs/index.md']);
  });

  it('searches and lists, cutting long listings with a hint to narrow them', async () => {
    const many = Object.fromEntries(Array.from({ length: listLimit + 5 }, (_, index) => [`docs/page-${index}.md`, `page ${index}\n`]));
    const tools = readingTools(memoryFiles({ ...many, 'docs/guide.md': 'Run acme install.\n' }));
    expect(await call(tools, 'search', { pattern: 'acme install' })).toBe('docs/guide.md:1: Run acme install.');
    const listing = await call(tools, 'list_files', {});
    expect(listing.split('\n')).toHaveLength(listLimit + 1);
    expect(listing).toMatch(/\[cut: 6 more entries; list a subfolder or give a pattern\]$/);
  });

  it('adds the caller’s note to read_file’s description', () => {
    const tools = readingTools(memoryFiles({}), { readNote: 'Read before you edit.' });
    expect(tools.read_file.description).toMatch(/\(1-based, default 1\)\. Read before you edit\.$/);
    expect(readingTools(memoryFiles({})).read_file.description).toMatch(/\(1-based, default 1\)\.$/);
  });
});
