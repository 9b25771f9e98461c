import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { projectView } from '../accounts/projects.ts';
import { requireKey, visibleProject } from '../accounts/request-auth.ts';
import type { AppContext } from '../http/context.ts';
import { invalidRequest } from '../http/errors.ts';
import { errorResponses, ProjectParams } from '../http/schemas.ts';
import type { ProjectRow } from '../storage/tables/accounts.ts';
import { readinessChecks } from './readiness.ts';
import { ProjectReadinessResponse, ProjectSettingsResponse, UpdateProjectBody } from './schemas.ts';
import { saveProjectSettings } from './settings.ts';

const errors = errorResponses(['invalid_request', 'unauthorized', 'forbidden', 'not_found', 'payload_too_large', 'rate_limited']);
const tags = ['Projects'];

/** A project's settings as the API shows them: what a key may read and write, no organization or secrets. */
function settingsView(project: ProjectRow) {
  const { orgId: _orgId, updatedAt: _updatedAt, ...view } = projectView(project);
  return { ...view, mcpName: view.mcpName ?? '' };
}

/** A project's settings over the admin API, so what the CLI and the dashboard set can be automated. */
export const projectRoutes: FastifyPluginAsyncTypebox<{ context: AppContext }> = async (app, { context }) => {
  const dependencies = { db: context.storage.db, config: context.config, events: context.events };
  const projectOf = (request: FastifyRequest) => visibleProject(context, request, (request.params as { projectId: string }).projectId);

  app.get('/v1/projects/:projectId', {
    onRequest: requireKey(context, 'read'),
    schema: {
      tags,
      summary: 'Get a project’s settings',
      params: ProjectParams,
      response: { 200: ProjectSettingsResponse, ...errors },
    },
    handler: async (request) => settingsView(await projectOf(request)),
  });

  app.get('/v1/projects/:projectId/readiness', {
    onRequest: requireKey(context, 'read'),
    schema: {
      tags,
      summary: 'Whether a project can run agent jobs',
      description:
        'The dashboard’s "ready for jobs" checklist: the repository, the model, the model provider’s settings, whether the model answers a one-token request (made by the server, bounded by 10 s, its result reused for 30 s) with the time it took, and the code host’s access. Each failing check says what to do.',
      params: ProjectParams,
      response: { 200: ProjectReadinessResponse, ...errors },
    },
    handler: async (request) => {
      const checks = await readinessChecks(context, await projectOf(request));
      return {
        ready: checks.every((check) => check.ok !== null),
        checks: checks.map((check) => ({ name: check.name, label: check.label, ok: check.ok !== null, detail: check.ok ?? check.fix, ms: check.ms })),
      };
    },
  });

  app.patch('/v1/projects/:projectId', {
    onRequest: requireKey(context, 'write'),
    // Before the body is validated: another organization's project is 404 whatever the body says.
    preValidation: async (request) => void (await projectOf(request)),
    schema: {
      tags,
      summary: 'Change a project’s settings',
      description:
        'Changes the settings given, by the rules of the CLI and the dashboard: a repository the organization cannot reach, an invalid value or an MCP name another project of the organization has is 400 and changes nothing. Unknown fields are 400.',
      params: ProjectParams,
      body: UpdateProjectBody,
      response: { 200: ProjectSettingsResponse, ...errors },
    },
    handler: async (request) => {
      const result = await saveProjectSettings(dependencies, await projectOf(request), request.body);
      if (!result.ok) throw invalidRequest(result.problem.message, [{ path: `/${result.problem.field}`, message: result.problem.message }]);
      return settingsView(result.project);
    },
  });
};
