import { readingTools } from '../../llm/tools/reading.ts';
import type { WorkspaceFiles } from '../../workspace/types.ts';
import { toolContext, type WriteLimits } from './context.ts';
import { writingTools } from './writing.ts';

/**
 * The tools the model gets for one run: file access confined to the workspace, never a shell.
 * Each call of this function starts a fresh record of which files were read and written; `limits`
 * (the configuration will do) caps the size of each file written and of the change.
 */
export function agentTools(files: WorkspaceFiles, limits: WriteLimits) {
  const context = toolContext(files, limits);
  const reading = readingTools(files, { onRead: (path) => context.seen.add(path), readNote: 'A file must be read before edit_file can change it.' });
  return { ...reading, ...writingTools(context) };
}

export type AgentTools = ReturnType<typeof agentTools>;
