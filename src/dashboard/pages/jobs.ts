import type { FastifyInstance } from 'fastify';
import type { ProjectRow } from '../../storage/tables/accounts.ts';
import { createJob, followUp, getJob, listJobs } from '../../jobs/service.ts';
import { listMessages } from '../../jobs/transcript.ts';
import type { AppContext } from '../../http/context.ts';
import { invalidRequest } from '../../http/errors.ts';
import { field, formOf, viewerOf, viewerProject } from '../auth.ts';
import { age, html, type Html } from '../html.ts';
import { csrfField, layout, notice, projectTabs, sendPage, type Viewer } from '../layout.ts';
import { jobLive, pullRequestLink, statusBadge } from './job-view.ts';

type JobParams = { Params: { projectId: string; jobId: string } };
const pageSize = 25;

function promptOf(form: URLSearchParams): string {
  const prompt = field(form, 'prompt');
  if (prompt === '' || prompt.length > 20_000) throw invalidRequest('Write a prompt of 1 to 20,000 characters.');
  return prompt;
}

function createForm(context: AppContext, viewer: Viewer, project: ProjectRow): Html {
  const problem = context.agent.checkProject(project);
  if (problem) return notice('warning', html`${problem} <a href="/dashboard/projects/${project.id}">Edit the project settings</a>.`);
  return html`<form method="post" action="/dashboard/projects/${project.id}/jobs" class="stack">${csrfField(viewer)}
<label for="prompt">Prompt</label>
<textarea id="prompt" name="prompt" required maxlength="20000" aria-describedby="prompt-hint"></textarea>
<p class="hint" id="prompt-hint">What the agent should change in the documentation. It opens a pull request when it changes files.</p>
<button type="submit" class="primary">Create job</button></form>`;
}

export function jobPages(scope: FastifyInstance, context: AppContext): void {
  scope.get<{ Params: { projectId: string }; Querystring: { cursor?: string } }>('/projects/:projectId/jobs', async (request, reply) => {
    const viewer = viewerOf(request);
    const project = await viewerProject(context, request, request.params.projectId);
    const page = await listJobs(context, project, { limit: pageSize, cursor: request.query.cursor || undefined });
    const rows = page.jobs.map(
      (
        job,
      ) => html`<tr><td>${statusBadge(job.status)}</td><td><a href="/dashboard/projects/${project.id}/jobs/${job.id}">${job.prompt.length > 120 ? `${job.prompt.slice(0, 120)}…` : job.prompt}</a></td>
<td>${job.model}</td><td>${age(job.created_at)}</td><td>${pullRequestLink(job)}</td></tr>`,
    );
    const list = rows.length
      ? html`<div class="scroll"><table><thead><tr><th scope="col">Status</th><th scope="col">Prompt</th><th scope="col">Model</th><th scope="col">Age</th><th scope="col">Pull request</th></tr></thead><tbody>${rows}</tbody></table></div>`
      : html`<p>No jobs yet.</p>`;
    const more = page.nextCursor ? html`<p><a href="/dashboard/projects/${project.id}/jobs?cursor=${page.nextCursor}">Older jobs</a></p>` : '';
    const body = html`${projectTabs(project, 'jobs')}<h2>Create a job</h2>${createForm(context, viewer, project)}<h2>Jobs</h2>${list}${more}`;
    return sendPage(reply, layout({ title: `Jobs · ${project.name}`, viewer, section: 'projects', body }));
  });

  scope.post<{ Params: { projectId: string } }>('/projects/:projectId/jobs', async (request, reply) => {
    const project = await viewerProject(context, request, request.params.projectId);
    const { job } = await createJob(context, project, { prompt: promptOf(formOf(request)) });
    return reply.redirect(`/dashboard/projects/${project.id}/jobs/${job.id}`, 303);
  });

  scope.get<JobParams>('/projects/:projectId/jobs/:jobId', async (request, reply) => {
    const viewer = viewerOf(request);
    const project = await viewerProject(context, request, request.params.projectId);
    const job = await getJob(context, project, request.params.jobId);
    const live = jobLive(viewer, project, job, await listMessages(context.storage.db, job.id));
    const body = html`${projectTabs(project, 'jobs')}<p>Job <code>${job.id}</code></p>
<div id="live" data-live-url="/dashboard/projects/${project.id}/jobs/${job.id}/live" data-status="${job.status}">${live}</div>`;
    return sendPage(reply, layout({ title: job.prompt.length > 80 ? `${job.prompt.slice(0, 80)}…` : job.prompt, viewer, section: 'projects', body }));
  });

  scope.get<JobParams>('/projects/:projectId/jobs/:jobId/live', async (request, reply) => {
    const project = await viewerProject(context, request, request.params.projectId);
    const job = await getJob(context, project, request.params.jobId);
    reply.header('x-job-status', job.status);
    return sendPage(reply, jobLive(viewerOf(request), project, job, await listMessages(context.storage.db, job.id)));
  });

  scope.post<JobParams>('/projects/:projectId/jobs/:jobId/message', async (request, reply) => {
    const project = await viewerProject(context, request, request.params.projectId);
    const { job } = await followUp(context, project, request.params.jobId, { prompt: promptOf(formOf(request)) });
    return reply.redirect(`/dashboard/projects/${project.id}/jobs/${job.id}`, 303);
  });
}
