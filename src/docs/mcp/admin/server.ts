import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { keyCanSeeProject, keyScopes, type Scope } from '../../../accounts/keys.ts';
import { listProjects } from '../../../accounts/projects.ts';
import type { AppContext } from '../../../http/context.ts';
import type { ApiKeyRow } from '../../../storage/tables/accounts.ts';
import type { McpClientInfo } from '../source.ts';
import { docsStatus } from '../../index/build/status.ts';
import { analyticsTools, type ApiCall } from './analytics-tools.ts';
import { apiResult, refusal, structured } from './results.ts';
import { SessionTools } from './session-tools.ts';
import { displayRepository } from '../../../lib/display-repository.ts';

export interface AdminMcpOptions {
  context: AppContext;
  /** The request's admin key: every call is checked against its scopes and projects. */
  key: ApiKeyRow;
  /** Calls Quire's own API with the request's key, for operations it already answers (create_job, the analytics exports). */
  api: ApiCall;
  /** The client named in an earlier `initialize` of this connection; without it, this request's own. */
  client?: McpClientInfo;
}

export const readOnly = { readOnlyHint: true, idempotentHint: true, openWorldHint: false } as const;
const changes = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } as const;
/** Built once, not per request (see session-tools.ts). */
const createJobInput = {
  projectId: z.string().min(1).max(64).describe('The project, as list_projects gives it.'),
  prompt: z.string().min(1).max(20_000).describe('What the agent should do, e.g. "Document the new --dry-run flag of the CLI".'),
};

/**
 * The admin MCP server: a team's own agent edits a project's docs through Quire's sandbox, checks and
 * pull requests. One instance answers one HTTP request (see http.ts); sessions live in
 * `context.adminSessions`, so any request of the client reaches them.
 */
export function createAdminMcpServer(options: AdminMcpOptions): McpServer {
  const { context, key } = options;
  const server = new McpServer(
    { name: 'quire-admin', title: 'Quire: edit docs through pull requests', version: '1.0.0' },
    {
      instructions:
        'Edit a documentation repository through Quire. Call list_projects, then checkout {projectId} to open a session on a new branch ' +
        '(or checkout {projectId, branch} to continue a branch of an earlier session or job). Work with list_files, read_file, search, ' +
        'write_file, edit_file, delete_file and move_file (each takes the sessionId); call check before saving and fix what it reports; ' +
        'call save to commit, push and open or update the pull request. diff shows the change. The analytics tools (visitors, agents, ' +
        'searches, feedback, gaps) say what readers and AI agents look for and fail to find; create_job hands a task to Quire’s own agent instead.',
    },
  );
  const client = () => options.client ?? server.server.getClientVersion() ?? { name: 'an MCP client', version: '' };
  /** Why the key cannot call a tool that needs `scope`, or null when it can. */
  const lacks = (scope: Scope) =>
    keyScopes(key).includes(scope)
      ? null
      : refusal(`This API key lacks the "${scope}" scope this tool needs; use a key created with --scopes including ${scope}.`);

  server.registerTool(
    'list_projects',
    {
      title: 'List projects',
      description:
        'Lists the projects this API key may edit, with each repository, base ref and the state of its docs index. ' +
        'Next: checkout {projectId} to open an editing session on one of them.',
      inputSchema: {},
      annotations: readOnly,
    },
    async () => {
      const projects = (await listProjects(context.storage.db, key.org_id)).filter((project) => keyCanSeeProject(key, project));
      const rows = await Promise.all(
        projects.map(async (project) => ({
          id: project.id,
          name: project.name,
          repository: project.repository === null ? null : displayRepository(project.repository),
          ref: project.ref,
          docs: { status: (await docsStatus(context.storage, project.id)).status },
        })),
      );
      return structured({ projects: rows });
    },
  );

  new SessionTools({ context, key, client, lacks }).register(server);
  analyticsTools(server, options.api, lacks);

  server.registerTool(
    'create_job',
    {
      title: 'Hand a task to Quire’s agent',
      description:
        'Creates an agent job: Quire’s own agent does the task in its sandbox and opens a pull request, as POST /v2/agent/{projectId}/job does ' +
        '(same limits; it counts towards the hourly job limit). Returns the job object; its prLink is set when it completes. ' +
        'Use it to delegate; to edit yourself, use checkout instead.',
      inputSchema: createJobInput,
      annotations: changes,
    },
    async ({ projectId, prompt }) => lacks('write') ?? apiResult(await options.api('POST', `/v2/agent/${encodeURIComponent(projectId)}/job`, { prompt })),
  );
  return server;
}
