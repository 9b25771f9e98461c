import { describe, expect, it } from 'vitest';
import { splitCommandLine } from '../../../src/docs/mcp/command-line.ts';
import { CommandError } from '../../../src/docs/mcp/errors.ts';

describe('splitCommandLine', () => {
  it.each([
    ['ls', ['ls']],
    ['  cat  a.md\tb.md ', ['cat', 'a.md', 'b.md']],
    ["rg 'a|b (c)*' guides", ['rg', 'a|b (c)*', 'guides']],
    ['rg "say \\"hi\\" \\\\ \\n$"', ['rg', 'say "hi" \\ \\n$']],
    ['cat my\\ page.md', ['cat', 'my page.md']],
    ["cat 'it'\\''s.md'", ['cat', "it's.md"]],
    ['rg ""', ['rg', '']],
    ["rg '$(id)'", ['rg', '$(id)']],
  ])('%s', (line, words) => {
    expect(splitCommandLine(line)).toEqual(words);
  });

  it.each(['ls ${HOME}', 'cat "$HOME"', 'cat "a', 'cat a\\', 'ls >x', 'ls & ls', 'cat ?.md', 'cat [ab].md'])('refuses %s', (line) => {
    expect(() => splitCommandLine(line)).toThrow(CommandError);
  });
});
