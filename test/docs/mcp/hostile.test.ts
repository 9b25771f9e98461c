import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, connect, pages, startServer, type Recorded } from './support.ts';

let app: FastifyInstance;
let url: URL;
let recorded: Recorded;
let client: Client;

beforeAll(async () => {
  const longLine = `${'a'.repeat(50_000)}b`;
  const bigPage = `${'x'.repeat(999)}\n`.repeat(120);
  ({ app, url, recorded } = await startServer({ ...pages, 'long.md': `# Long\n${longLine}\n`, 'big.md': bigPage }));
  client = await connect(url);
});
afterAll(async () => {
  await client.close();
  await app.close();
});

const run = (command: string) => call(client, 'query_docs_filesystem_acme', { command });

describe('the filesystem tool refuses what is not one of its commands', () => {
  it.each([
    ['cat ../../etc/passwd', 'leaves the docs root'],
    ['cat /etc/passwd', 'No such page: /etc/passwd'],
    ['cat guides/../../etc/passwd', 'leaves the docs root'],
    ['cat a; ls', 'command separators (;)'],
    ['cat index.mdx | head', 'pipes (|)'],
    ['cat index.mdx > out.md', 'redirections (>)'],
    ['ls && ls', 'chaining'],
    ['$(id)', 'variables and command substitution'],
    ['cat "$(id)"', 'command substitution'],
    ['cat `id`', 'command substitution'],
    ['cat *.md', 'globs (*)'],
    ["cat 'index.mdx", 'unclosed'],
    ['cat index.mdx\0', 'NUL'],
    ['cat guides', 'is a folder'],
    ['head -n x index.mdx', 'whole number'],
  ])('%s', async (command, message) => {
    const answer = await run(command);
    expect(answer.isError).toBe(true);
    expect(answer.text).toContain(message);
  });

  it.each([
    ['rm -rf /', 'Unknown command: rm'],
    ['ls -la', 'ls does not take -la'],
    ['rg -x foo', 'rg does not take -x'],
    ['tree -L', 'whole number'],
    ['', 'The command is empty'],
  ])('%s lists the commands', async (command, message) => {
    const answer = await run(command);
    expect(answer.isError).toBe(true);
    expect(answer.text).toContain(message);
    expect(answer.text).toContain('head [-n N] path');
  });

  it('refuses a 100 KB command', async () => {
    const answer = await run(`cat ${'a'.repeat(100_000)}`);
    expect(answer).toMatchObject({ isError: true });
    expect(answer.text).toContain('more than the 4096 accepted');
  });

  it('names the problem in an invalid pattern', async () => {
    const answer = await run("rg '(unclosed'");
    expect(answer.isError).toBe(true);
    expect(answer.text).toMatch(/not a valid pattern \(missing closing \)/);
  });

  it('matches a backtracking pattern on a long line in linear time', async () => {
    const started = performance.now();
    const answer = await run("rg -l '(a+)+$' long.md");
    expect(answer).toEqual({ text: 'No matches for "(a+)+$" in long.md.\n', isError: false });
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('never read a file for a refused command, and never counted one', async () => {
    expect(recorded.reads).toEqual([]);
    expect(recorded.fileReads.filter((path) => path !== 'long.md')).toEqual([]);
  });
});

describe('output over 100,000 bytes', () => {
  it('is cut at a line end with a note, and only the pages shown count as read', async () => {
    const answer = await run('cat big.md api/errors.md');
    expect(answer.isError).toBe(false);
    expect(Buffer.byteLength(answer.text)).toBeLessThanOrEqual(100_000);
    expect(answer.text).toMatch(/\n\n\[Output cut at [\d,]+ of more than 120,016 bytes \(the limit is 100,000\)\. Narrow it: .*head -n N path/);
    expect(
      answer.text
        .split('\n')
        .filter((line) => line.startsWith('x'))
        .every((line) => line.length === 999),
    ).toBe(true);
    expect(answer.text).not.toContain('# Errors');
    expect(recorded.reads.at(-1)?.paths).toEqual(['big.md']);
    // Past the limit, the pages after are not read at all.
    expect(recorded.fileReads.at(-1)).toBe('big.md');
  });

  it('reads a page named many times once, and no page once the output is past the limit', async () => {
    const before = recorded.fileReads.length;
    const answer = await run(`cat index.mdx ${'big.md '.repeat(400)}api/errors.md`);
    expect(answer.isError).toBe(false);
    expect(Buffer.byteLength(answer.text)).toBeLessThanOrEqual(100_000);
    expect(recorded.fileReads.slice(before)).toEqual(['index.mdx', 'big.md']);
  });
});

describe('patterns', () => {
  it('refuses a pattern that compiles to a large program, at once', async () => {
    const started = performance.now();
    const answer = await run(`rg '${'\\pL{1000}'.repeat(400)}'`);
    expect(answer.isError).toBe(true);
    expect(answer.text).toMatch(/is too large a pattern \(\d+ instructions compiled, at most 250\)/);
    expect(performance.now() - started).toBeLessThan(2000);
    const small = await run("rg -l '\\pL{100}' long.md");
    expect(small).toEqual({ text: 'long.md\n', isError: false });
  });
});
