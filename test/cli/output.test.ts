import { describe, expect, it } from 'vitest';
import { table } from '../../src/cli/output.ts';

describe('CLI listings', () => {
  it('show a control character a key holder stored (a terminal escape, a line break) as U+FFFD, never as itself', () => {
    const listed = table([{ id: 'prj_1', name: 'Docs\u001b]0;pwned\u0007\u001b[2J\nforged row' }], ['id', 'name']);
    expect(listed).toBe('id     name\nprj_1  Docs\uFFFD]0;pwned\uFFFD\uFFFD[2J\uFFFDforged row');
    expect(listed).not.toMatch(/\p{Cc}(?<!\n)/u);
    expect(listed.split('\n')).toHaveLength(2);
  });
});
