import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { findProject } from '../accounts/projects.ts';
import type { AppContext } from '../server/context.ts';
import { notFound } from '../server/errors.ts';
import { readLocalChange } from './local-diff.ts';
import { renderChangePage } from './local-page.ts';
import { jobBranchPrefix, localRepositoryPath } from './local.ts';

/**
 * The "pull request" of a job on a local repository: its diff, readable in a browser. No API key is
 * needed (the link is the job's `prLink`), so the page shows only a job's own `quire/<job id>`
 * branch in its project's configured local repository, and nothing else from the disk.
 */
export const localChangeRoutes: FastifyPluginAsyncTypebox<{ context: AppContext }> = async (app, { context }) => {
  app.get('/changes/:jobId', {
    schema: {
      tags: ['Changes'],
      summary: 'Show the change of a job on a local repository',
      description: 'HTML page with the commits and diff of the job branch against its base. Only for projects whose repository is a local path.',
      params: Type.Object({ jobId: Type.String({ minLength: 1, maxLength: 100 }) }),
      security: [],
    },
    handler: async (request, reply) => {
      const { jobId } = request.params;
      const job = await context.storage.db.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirst();
      const project = job ? await findProject(context.storage.db, job.project_id) : undefined;
      const repository = project?.repository ? localRepositoryPath(project.repository) : null;
      if (!job || !project || !repository || job.branch !== `${jobBranchPrefix}${job.id}`) throw notFound(`Change ${jobId}`);
      const change = await readLocalChange(repository, job.branch, job.ref);
      if (!change) throw notFound(`Change ${jobId}`);
      return reply.type('text/html; charset=utf-8').header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'").send(renderChangePage(project.name, change));
    },
  });
};
