import type { FastifyInstance } from 'fastify';
import { findProject } from '../../accounts/projects.ts';
import { readLocalChange, type LocalChange } from '../../code-hosts/local-diff.ts';
import { localRepositoryPath } from '../../code-hosts/local.ts';
import type { AppContext } from '../../http/context.ts';
import { ApiError } from '../../http/errors.ts';
import { viewerOf } from '../auth.ts';
import { diffLines } from '../diff.ts';
import { html, type Html } from '../html.ts';
import { layout, projectTabs, sendPage } from '../layout.ts';
import { markdownHtml } from '../markdown.ts';
import type { ProjectRow } from '../../storage/tables/accounts.ts';

function changeBody(project: ProjectRow, jobId: string, change: LocalChange): Html {
  const commits = change.commits.map((commit) => html`<li><code>${commit.id}</code> ${commit.subject} <span class="hint">(${commit.author})</span></li>`);
  const description = change.description;
  return html`${projectTabs(project, 'jobs')}<p><a href="/dashboard/projects/${project.id}/jobs/${jobId}">Back to the job</a></p>
<p>${project.name}: changes of the agent job on branch <code>${change.branch}</code> against <code>${change.base}</code>. The repository is local, so this page stands in for a pull request: merge the branch with git.</p>
${
  description
    ? html`<h2>${description.draft ? html`<span class="badge draft">Draft</span> ` : ''}${description.title}</h2>
<div class="description">${markdownHtml(description.body)}</div>`
    : ''
}
<h2>Commits</h2>
${commits.length > 0 ? html`<ul>${commits}</ul>` : html`<p>No commits yet.</p>`}
<h2>Files</h2>
<pre>${change.stat || 'No files changed.'}</pre>
<h2>Diff</h2>
<pre class="diff">${diffLines(change.diff)}</pre>
${change.truncated ? html`<p><strong>The diff is cut here because it is too long to show; inspect the branch with git for the rest.</strong></p>` : ''}`;
}

/**
 * The "pull request" of a job on a local repository (its `prLink`): the job branch's commits and diff.
 * Signed-in pages only, for the job's own organization; any other job, one of another organization
 * included, is the same "not found", so the page reveals nothing of what others have.
 */
export function changePages(scope: FastifyInstance, context: AppContext): void {
  scope.get<{ Params: { jobId: string } }>('/changes/:jobId', async (request, reply) => {
    const { jobId } = request.params;
    const missing = new ApiError('not_found', `Change ${jobId} was not found in your organization.`);
    const job = await context.storage.db.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirst();
    const project = job ? await findProject(context.storage.db, job.project_id) : undefined;
    if (!job || !project || project.org_id !== viewerOf(request).orgId) throw missing;
    const repository = project.repository ? localRepositoryPath(project.repository) : null;
    if (!repository) throw missing;
    const change = await readLocalChange(repository, job.id, job.branch, job.ref);
    if (!change) throw missing;
    return sendPage(
      reply,
      layout({ title: `Change of ${project.name}`, viewer: viewerOf(request), section: 'projects', body: changeBody(project, job.id, change) }),
    );
  });
}
