import { rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { agentTools } from '../../src/agent/tools/index.ts';
import { createWorkspaceFiles } from '../../src/workspace/files.ts';
import { testConfig } from '../support/app.ts';
import { call, writeTree } from './tool-harness.ts';

/** Glob and search patterns come from the model, which a repository's content can steer. */
describe('patterns from the model run in linear time', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const toolsOver = (files: Record<string, string>) => {
    dir = writeTree(files);
    return agentTools(createWorkspaceFiles(dir), testConfig());
  };

  it('answers a glob built to backtrack, while timers and HTTP requests keep being served', async () => {
    const tools = toolsOver({ [`docs/${'a'.repeat(120)}.md`]: '# Trap\n', 'docs/index.md': '# Home\n' });
    const pattern = `${'*a'.repeat(13)}*b`;
    const server = createServer((_request, response) => response.end('alive'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 1);
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const [listing, health] = await Promise.all([call(tools, 'list_files', { pattern }), fetch(url).then((response) => response.text())]);
      expect(listing).toBe(`No paths match "${pattern}".`);
      expect(health).toBe('alive');
      // Repeating the call until the ticker has fired shows the event loop turns between and during the calls.
      while (ticks < 5) expect(await call(tools, 'list_files', { pattern })).toBe(listing);
      expect(await call(tools, 'list_files', { pattern: `${'*a'.repeat(13)}*.md` })).toBe(`docs/${'a'.repeat(120)}.md (7 bytes)`);
    } finally {
      clearInterval(ticker);
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('refuses a glob too long to be a path pattern', async () => {
    const tools = toolsOver({ 'docs/index.md': '# Home\n' });
    expect(await call(tools, 'list_files', { pattern: '*a'.repeat(600) })).toMatch(/^Error: The glob has 1200 characters, more than the 500 .*shorter pattern/);
  });

  it.each(['(a+)+$', '^(a|a)*b', '(a|aa)*c', '([a-z]+)*!$'])('finishes a search for %s over long lines without a timeout', async (pattern) => {
    const tools = toolsOver({ 'docs/trap.md': `${'a'.repeat(1999)}\n${'a'.repeat(1999)}b\n`, 'docs/index.md': '# Home\n' });
    const result = await call(tools, 'search', { pattern });
    expect(result).not.toMatch(/^Error/);
    expect(result).toBe(
      pattern === '^(a|a)*b'
        ? `docs/trap.md:2: ${'a'.repeat(300)}`
        : pattern === '(a+)+$'
          ? `docs/trap.md:1: ${'a'.repeat(300)}`
          : `No matches for ${pattern}.`,
    );
  });

  it('tells the model which regular expression features a search cannot use', async () => {
    const tools = toolsOver({ 'docs/index.md': '# Home\nfoo foo\n' });
    expect(await call(tools, 'search', { pattern: '(foo) \\1' })).toMatch(
      /^Error: "\(foo\) \\1" is not a valid regular expression \(invalid escape sequence: `\\1`\)\. .*no backreferences/,
    );
    expect(await call(tools, 'search', { pattern: 'foo(?= foo)' })).toMatch(/^Error: .*lookaround/);
    expect(await call(tools, 'search', { pattern: 'foo \\w+' })).toBe('docs/index.md:2: foo foo');
    expect(await call(tools, 'search', { pattern: '(?<word>fo+) (?:\\u0066)' })).toBe('docs/index.md:2: foo foo');
    expect(await call(tools, 'search', { pattern: 'x'.repeat(1001) })).toMatch(/^Error: The search pattern has 1001 characters, more than the 1000/);
  });
});
