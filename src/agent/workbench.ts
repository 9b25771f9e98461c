import type { Kysely } from 'kysely';
import type { ZodObject } from 'zod';
import { resolveAccess, type RepositoryAccess } from '../code-hosts/access.ts';
import type { Config } from '../config/config.ts';
import type { Database } from '../storage/schema.ts';
import type { JobRow } from '../storage/tables/jobs.ts';
import { openWorkspace } from '../workspace/workspace.ts';
import type { Workspace, WorkspaceOptions } from '../workspace/types.ts';
import { createRedactor } from './redact.ts';
import { agentTools, type AgentTools } from './tools/index.ts';
import { openWorkbenchSession, type WorkbenchSession } from './workbench-session.ts';

declare module '../http/context.ts' {
  interface AppContext {
    /** The agent's workspace, tools, checks and publishing for an agent that is not Quire's own (the admin MCP server). */
    workbench: Workbench;
  }
}

/** How the workbench reaches git and the code host; tests and the benchmark pass their own. */
export interface WorkbenchDependencies {
  openWorkspace(options: WorkspaceOptions): Promise<Workspace>;
  accessFor(job: JobRow): Promise<RepositoryAccess>;
}

/** One of the agent's file tools as a client sees it: its name, what it does and its input. */
export interface ToolSpec {
  name: keyof AgentTools;
  description: string;
  /** The zod object the tool was defined with (agent/tools/), so a client validates inputs exactly as the tool does. */
  inputSchema: ZodObject;
}

/**
 * What an agent outside Quire gets of Quire's agent: the same tools (their descriptions and inputs),
 * and sessions on a job's branch with the same sandbox, checks and pull requests (see workbench-session.ts).
 */
export interface Workbench {
  tools: ToolSpec[];
  open(job: JobRow, options: { newBranch: boolean; signal?: AbortSignal }): Promise<WorkbenchSession>;
}

export type { WorkbenchSession } from './workbench-session.ts';

export function createWorkbench(config: Config, db: Kysely<Database>, dependencies: Partial<WorkbenchDependencies> = {}): Workbench {
  const resolved: WorkbenchDependencies = {
    openWorkspace,
    accessFor: (job) => resolveAccess(db, config, job.org_id, job.repository),
    ...dependencies,
  };
  return {
    tools: toolSpecs(config),
    async open(job, { newBranch, signal }) {
      const { host, repository } = await resolved.accessFor(job);
      const credentials = await host.gitCredentials(repository);
      const workspace = await resolved.openWorkspace({
        repository,
        ref: job.ref,
        branch: job.branch,
        jobId: job.id,
        newBranch,
        root: config.dataDir,
        credentials,
        signal,
      });
      return openWorkbenchSession({ config, job, workspace, host, repository, redact: createRedactor(config, credentials ? [credentials.password] : []) });
    },
  };
}

/**
 * The tools' names, descriptions and input schemas, read from the tools themselves so a client sees
 * exactly what Quire's agent sees. These instances only describe: a session makes its own, whose
 * files are its workspace's.
 */
function toolSpecs(config: Config): ToolSpec[] {
  const unused = () => Promise.reject(new Error('tool descriptions only'));
  const described = agentTools({ list: unused, read: unused, search: unused, write: unused, remove: unused, move: unused }, config);
  return (Object.keys(described) as (keyof AgentTools)[]).map((name) => ({
    name,
    description: typeof described[name].description === 'string' ? described[name].description : '',
    inputSchema: described[name].inputSchema as unknown as ZodObject,
  }));
}
