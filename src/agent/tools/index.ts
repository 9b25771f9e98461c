import type { WorkspaceFiles } from '../../workspace/types.ts';
import { toolContext } from './context.ts';
import { readingTools } from './reading.ts';
import { writingTools } from './writing.ts';

/**
 * The tools the model gets for one run: file access confined to the workspace, never a shell.
 * Each call of this function starts a fresh record of which files were read.
 */
export function agentTools(files: WorkspaceFiles) {
  const context = toolContext(files);
  return { ...readingTools(context), ...writingTools(context) };
}

export type AgentTools = ReturnType<typeof agentTools>;
