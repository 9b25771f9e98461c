import type { Config } from '../../config/config.ts';
import type { WorkspaceFiles } from '../../workspace/types.ts';

/** The settings that bound what the agent writes (see limits.ts). */
export type WriteLimits = Pick<Config, 'agentMaxFileBytes' | 'agentMaxChangeBytes'>;

/** What the tools of one run share: the confined files, which files the model has read, what it wrote. */
export interface ToolContext {
  files: WorkspaceFiles;
  /** Paths (normalized by `pathKey`) read or written in this run: `edit_file` only edits files the model has seen. */
  seen: Set<string>;
  limits: WriteLimits;
  /** Bytes of each file (normalized path) as last written in this run, for the running change total. */
  written: Map<string, number>;
}

export function toolContext(files: WorkspaceFiles, limits: WriteLimits): ToolContext {
  return { files, seen: new Set(), limits, written: new Map() };
}
