import type { FastifyInstance } from 'fastify';
import { findProject } from '../../accounts/projects.ts';
import { resolveAccess } from '../../code-hosts/access.ts';
import { readLocalChange, type LocalChange } from '../../code-hosts/local-diff.ts';
import { localRepositoryPath } from '../../code-hosts/local.ts';
import { CodeHostError } from '../../code-hosts/types.ts';
import type { AppContext } from '../../http/context.ts';
import { ApiError } from '../../http/errors.ts';
import { viewerOf } from '../auth.ts';
import { diffLines } from '../diff.ts';
import { html, type Html } from '../html.ts';
import { layout, projectTabs, sendPage } from '../layout.ts';
import { markdownHtml } from '../markdown.ts';
import type { ProjectRow } from '../../storage/tables/accounts.ts';
import type { JobRow } from '../../storage/tables/jobs.ts';
import { displayRepository } from '../../lib/display-repository.ts';

function changeBody(project: ProjectRow, job: JobRow, change: LocalChange): Html {
  const commits = change.commits.map((commit) => html`<li><code>${commit.id}</code> ${commit.subject} <span class="hint">(${commit.author})</span></li>`);
  const description = change.description;
  return html`${projectTabs(project, 'jobs')}<p><a href="/dashboard/projects/${project.id}/jobs/${job.id}">Back to the job</a></p>
<p>${project.name}: changes of the agent job on branch <code>${change.branch}</code> against <code>${change.base}</code> in <code>${displayRepository(job.repository)}</code>. The repository is local, so this page stands in for a pull request: merge the branch with git.</p>
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
 * The real path of the local repository the job ran against, while the job's organization may still
 * use it (its grant is checked again, as at every run); null for any other repository. The job's own
 * repository, not its project's: the project may have moved to another one since.
 */
async function grantedRepository(context: AppContext, job: JobRow): Promise<string | null> {
  // Decided before resolveAccess, which would ask a code host about any other repository.
  if (!isLocal(job.repository)) return null;
  try {
    return (await resolveAccess(context.storage.db, context.config, job.org_id, job.repository)).repository;
  } catch (error) {
    if (error instanceof CodeHostError) return null;
    throw error;
  }
}

function isLocal(repository: string): boolean {
  try {
    return localRepositoryPath(repository) !== null;
  } catch {
    // A file:// URL of another host: no repository of this machine.
    return false;
  }
}

/**
 * The "pull request" of a job on a local repository (its `prLink`): the job branch's commits and diff.
 * Signed-in pages only, for the job's own organization while it may still use the repository; any
 * other job, one of another organization included, is the same "not found", so the page reveals
 * nothing of what others have.
 */
export function changePages(scope: FastifyInstance, context: AppContext): void {
  scope.get<{ Params: { jobId: string } }>('/changes/:jobId', async (request, reply) => {
    const { jobId } = request.params;
    const missing = new ApiError('not_found', `Change ${jobId} was not found in your organization.`);
    const job = await context.storage.db.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirst();
    const viewer = viewerOf(request);
    const project = job ? await findProject(context.storage.db, job.project_id) : undefined;
    if (!job || !project || job.org_id !== viewer.orgId || project.org_id !== viewer.orgId) throw missing;
    const repository = await grantedRepository(context, job);
    if (!repository) throw missing;
    const change = await readLocalChange(repository, job.id, job.branch, job.ref);
    if (!change) throw missing;
    return sendPage(reply, layout({ title: `Change of ${project.name}`, viewer, section: 'projects', body: changeBody(project, job, change) }));
  });
}
