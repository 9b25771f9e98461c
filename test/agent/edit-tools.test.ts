import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentTools, type AgentTools } from '../../src/agent/tools/index.ts';
import { createWorkspaceFiles } from '../../src/workspace/files.ts';
import { testConfig } from '../support/app.ts';
import { call, writeTree } from './tool-harness.ts';

describe('agent file tools', () => {
  let dir: string;
  let tools: AgentTools;
  const content = (path: string) => readFileSync(join(dir, path), 'utf8');

  beforeEach(() => {
    dir = writeTree({
      'docs/guide.md': '# Guide\n\nStep one.\nStep two.\nStep one.\n',
      'docs/price.md': 'Price: 5\n',
      'docs/long.md': Array.from({ length: 5000 }, (_, index) => `line ${index + 1}`).join('\n'),
      'docs/wide.md': 'x'.repeat(200_000),
    });
    tools = agentTools(createWorkspaceFiles(dir), testConfig());
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('edits only files read in this run', async () => {
    const refused = await call(tools, 'edit_file', { path: 'docs/guide.md', old_string: 'Step two.', new_string: 'Step 2.' });
    expect(refused).toMatch(/^Error: read "docs\/guide.md" with read_file before editing/);
    expect(content('docs/guide.md')).toContain('Step two.');
    await call(tools, 'read_file', { path: './docs/guide.md' });
    expect(await call(tools, 'edit_file', { path: 'docs/guide.md', old_string: 'Step two.', new_string: 'Step 2.' })).toBe(
      'Edited docs/guide.md: replaced 1 occurrence.',
    );
    expect(content('docs/guide.md')).toBe('# Guide\n\nStep one.\nStep 2.\nStep one.\n');
    expect(agentTools(createWorkspaceFiles(dir), testConfig()).edit_file).not.toBe(tools.edit_file);
    expect(
      await call(agentTools(createWorkspaceFiles(dir), testConfig()), 'edit_file', { path: 'docs/guide.md', old_string: 'Step 2.', new_string: 'x' }),
    ).toMatch(/^Error: read/);
  });

  it('needs a unique match unless replace_all is set', async () => {
    await call(tools, 'read_file', { path: 'docs/guide.md' });
    const ambiguous = await call(tools, 'edit_file', { path: 'docs/guide.md', old_string: 'Step one.', new_string: 'First.' });
    expect(ambiguous).toBe(
      'Error: old_string occurs 2 times in "docs/guide.md". Include more surrounding text so it matches once, or set replace_all to true.',
    );
    expect(content('docs/guide.md')).toContain('Step one.\nStep two.\nStep one.');
    expect(await call(tools, 'edit_file', { path: 'docs/guide.md', old_string: 'Step one.', new_string: 'First.', replace_all: true })).toBe(
      'Edited docs/guide.md: replaced 2 occurrences.',
    );
    expect(content('docs/guide.md')).toBe('# Guide\n\nFirst.\nStep two.\nFirst.\n');
  });

  it('explains a missing match, an empty old_string and a no-op edit', async () => {
    await call(tools, 'read_file', { path: 'docs/guide.md' });
    expect(await call(tools, 'edit_file', { path: 'docs/guide.md', old_string: 'Step three.', new_string: 'x' })).toMatch(/^Error: old_string was not found/);
    expect(await call(tools, 'edit_file', { path: 'docs/guide.md', old_string: '', new_string: 'x' })).toMatch(/^Error: old_string is empty/);
    expect(await call(tools, 'edit_file', { path: 'docs/guide.md', old_string: 'Step two.', new_string: 'Step two.' })).toMatch(
      /^Error: old_string and new_string are the same/,
    );
    expect(content('docs/guide.md')).toBe('# Guide\n\nStep one.\nStep two.\nStep one.\n');
  });

  it('inserts the replacement literally, without $ patterns', async () => {
    await call(tools, 'read_file', { path: 'docs/price.md' });
    await call(tools, 'edit_file', { path: 'docs/price.md', old_string: '5', new_string: "$& costs $$5, $1 $` $'" });
    expect(content('docs/price.md')).toBe("Price: $& costs $$5, $1 $` $'\n");
    await call(tools, 'edit_file', { path: 'docs/price.md', old_string: '$', new_string: '$&$&', replace_all: true });
    expect(content('docs/price.md')).toBe("Price: $&$&& costs $&$&$&$&5, $&$&1 $&$&` $&$&'\n");
  });

  it('reads line ranges and says when a result was cut', async () => {
    const first = await call(tools, 'read_file', { path: 'docs/long.md' });
    expect(first).toMatch(/^docs\/long.md \(lines 1-2000 of 5000\):\nline 1\n/);
    expect(first).toMatch(/line 2000\n\[more: call read_file with offset 2001 for the rest\]$/);
    const range = await call(tools, 'read_file', { path: 'docs/long.md', offset: 4999, limit: 10 });
    expect(range).toBe('docs/long.md (lines 4999-5000 of 5000):\nline 4999\nline 5000');
    expect(await call(tools, 'read_file', { path: 'docs/long.md', offset: 6000 })).toMatch(/^Error: "docs\/long.md" has 5000 lines/);
    const wide = await call(tools, 'read_file', { path: 'docs/wide.md' });
    expect(wide.length).toBeLessThan(61_000);
    expect(wide).toMatch(/\[cut at 60000 characters; read fewer lines with offset and limit\]$/);
  });

  it('writes, moves and deletes files, and a moved file stays editable', async () => {
    expect(await call(tools, 'write_file', { path: 'docs/new/page.md', content: '# New\n' })).toBe('Created docs/new/page.md (2 lines).');
    expect(await call(tools, 'write_file', { path: 'docs/new/page.md', content: '# Newer\n' })).toBe('Replaced docs/new/page.md (2 lines).');
    expect(await call(tools, 'move_file', { from: 'docs/new/page.md', to: 'docs/moved/page.md' })).toBe('Moved docs/new/page.md to docs/moved/page.md.');
    expect(await call(tools, 'edit_file', { path: 'docs/moved/page.md', old_string: 'Newer', new_string: 'Moved' })).toBe(
      'Edited docs/moved/page.md: replaced 1 occurrence.',
    );
    expect(content('docs/moved/page.md')).toBe('# Moved\n');
    expect(await call(tools, 'move_file', { from: 'docs/price.md', to: 'docs/guide.md' })).toMatch(/^Error: "docs\/guide.md" already exists/);
    expect(await call(tools, 'delete_file', { path: 'docs/moved/page.md' })).toBe('Deleted docs/moved/page.md.');
    expect(await call(tools, 'read_file', { path: 'docs/moved/page.md' })).toMatch(/^Error: .*does not exist/);
    expect(await call(tools, 'delete_file', { path: 'docs/nothing.md' })).toMatch(/^Error: /);
  });

  it('lists with a glob, searches with a regular expression, and rejects an invalid one', async () => {
    expect(await call(tools, 'list_files', { pattern: '**/g*.md' })).toBe('docs/guide.md (39 bytes)');
    expect(await call(tools, 'list_files', { pattern: '*.yml' })).toBe('No paths match "*.yml".');
    expect(await call(tools, 'search', { pattern: 'Step (one|two)', path: 'docs' })).toBe(
      'docs/guide.md:3: Step one.\ndocs/guide.md:4: Step two.\ndocs/guide.md:5: Step one.',
    );
    expect(await call(tools, 'search', { pattern: '([' })).toMatch(/^Error: "\(\[" is not a valid regular expression/);
  });
});
