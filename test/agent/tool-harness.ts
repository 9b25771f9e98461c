import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { agentTools, type AgentTools } from '../../src/agent/tools/index.ts';
import { createWorkspaceFiles } from '../../src/workspace/files.ts';
import { testConfig } from '../support/app.ts';

export type ToolName = keyof AgentTools;

/** Calls one tool the way the loop does and returns what the model would read. */
export async function call(tools: AgentTools, name: ToolName, input: Record<string, unknown>): Promise<string> {
  const execute = tools[name].execute as unknown as (input: unknown, options: { toolCallId: string; messages: []; context: object }) => Promise<string>;
  return execute(input, { toolCallId: 'call_test', messages: [], context: {} });
}

/** Writes `files` (path → content) under a new temporary folder and returns it. */
export function writeTree(files: Record<string, string | Buffer>, prefix = 'quire-tools-'): string {
  const root = mkdtempSync(join(tmpdir(), prefix));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

export interface HostileRepository {
  dir: string;
  /** A folder beside the repository that links point into; nothing may be written there. */
  outside: string;
  tools: AgentTools;
}

/**
 * A docs repository with hostile content: links to /etc, to the parent folder, into .git and to a
 * folder outside, as a cloned repository could contain them.
 */
export function hostileRepository(): HostileRepository {
  const outside = writeTree({ 'secret.txt': 'outside secret\n' }, 'quire-outside-');
  const dir = writeTree({
    'mkdocs.yml': 'site_name: Acme\nnav:\n  - Home: index.md\n',
    'docs/index.md': '# Acme\n\nWelcome to Acme.\n',
    'docs/guide.md': '# Guide\n\nStep one.\nStep two.\nStep one.\n',
    'docs/logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00, 0x0d, 0x0a]),
    '.git/config': '[core]\n\trepositoryformatversion = 0\n',
  });
  symlinkSync('/etc', join(dir, 'etc-link'));
  symlinkSync('/etc/passwd', join(dir, 'docs/passwd.md'));
  symlinkSync('..', join(dir, 'up'));
  symlinkSync('.git', join(dir, 'git-link'));
  symlinkSync('../.git/config', join(dir, 'docs/config.md'));
  symlinkSync(outside, join(dir, 'outside-link'));
  symlinkSync('index.md', join(dir, 'docs/home.md'));
  return { dir, outside, tools: agentTools(createWorkspaceFiles(dir), testConfig()) };
}
