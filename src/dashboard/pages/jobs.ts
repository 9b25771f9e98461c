import type { FastifyInstance } from 'fastify';
import type { ProjectRow } from '../../storage/tables/accounts.ts';
import type { JobRow, JobStatus } from '../../storage/tables/jobs.ts';
import { archiveJob, createJob, followUp, getJob, listJobs } from '../../jobs/service.ts';
import { cancelJob } from '../../jobs/cancel.ts';
import { resumeAfter, sendJobEvents } from '../../jobs/events/stream.ts';
import { listMessages } from '../../jobs/transcript.ts';
import type { AppContext } from '../../http/context.ts';
import { invalidRequest } from '../../http/errors.ts';
import { field, formOf, viewerOf, viewerProject } from '../auth.ts';
import { age, html, type Html } from '../html.ts';
import { csrfField, layout, notice, projectTabs, sendPage, type Viewer } from '../layout.ts';
import { jobLive, pullRequestLink, pullRequestState, statusBadge } from './job-view.ts';

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

const statuses: JobStatus[] = ['active', 'completed', 'failed', 'archived'];

/** Links that show only the jobs of one status; the current one is marked. */
function statusFilter(project: ProjectRow, current: JobStatus | undefined): Html {
  const base = `/dashboard/projects/${project.id}/jobs`;
  const link = (status: JobStatus | undefined, label: string) =>
    html`<li><a href="${status ? `${base}?status=${status}` : base}"${status === current ? html` aria-current="page"` : ''}>${label}</a></li>`;
  return html`<nav class="filter" aria-label="Show jobs"><ul>${link(undefined, 'All')}${statuses.map((status) => link(status, status))}</ul></nav>`;
}

/** A job in the list: why it failed, what it produced, and archiving once it is done. */
function jobRow(viewer: Viewer, project: ProjectRow, job: JobRow): Html {
  const prompt = job.prompt.length > 120 ? `${job.prompt.slice(0, 120)}…` : job.prompt;
  const reason = job.status === 'failed' && job.error ? html`<p class="hint">${job.error.length > 200 ? `${job.error.slice(0, 200)}…` : job.error}</p>` : '';
  const archive =
    job.status === 'completed' || job.status === 'failed'
      ? html`<form method="post" action="/dashboard/projects/${project.id}/jobs/${job.id}/archive">${csrfField(viewer)}<button type="submit">Archive<span class="visually-hidden"> job ${job.id}</span></button></form>`
      : '–';
  return html`<tr><td>${statusBadge(job.status)}</td><td><a href="/dashboard/projects/${project.id}/jobs/${job.id}">${prompt}</a>${reason}</td>
<td>${job.model}</td><td>${age(job.created_at)}</td><td>${pullRequestLink(job)}${pullRequestState(job)}</td><td>${archive}</td></tr>`;
}

export function jobPages(scope: FastifyInstance, context: AppContext): void {
  scope.get<{ Params: { projectId: string }; Querystring: { cursor?: string; status?: string } }>('/projects/:projectId/jobs', async (request, reply) => {
    const viewer = viewerOf(request);
    const project = await viewerProject(context, request, request.params.projectId);
    const status = statuses.includes(request.query.status as JobStatus) ? (request.query.status as JobStatus) : undefined;
    const page = await listJobs(context, project, { limit: pageSize, cursor: request.query.cursor || undefined, status });
    const rows = page.jobs.map((job) => jobRow(viewer, project, job));
    const list = rows.length
      ? html`<div class="scroll"><table><thead><tr><th scope="col">Status</th><th scope="col">Prompt</th><th scope="col">Model</th><th scope="col">Age</th><th scope="col">Result</th><th scope="col">Action</th></tr></thead><tbody>${rows}</tbody></table></div>`
      : html`<p>${status ? `No ${status} jobs.` : 'No jobs yet.'}</p>`;
    const more = page.nextCursor
      ? html`<p><a href="/dashboard/projects/${project.id}/jobs?cursor=${page.nextCursor}${status ? `&status=${status}` : ''}">Older jobs</a></p>`
      : '';
    const body = html`${projectTabs(project, 'jobs')}<h2>Create a job</h2>${createForm(context, viewer, project)}<h2>Jobs</h2>${statusFilter(project, status)}${list}${more}`;
    return sendPage(reply, layout({ title: `Jobs · ${project.name}`, viewer, section: 'projects', body }));
  });

  scope.post<JobParams>('/projects/:projectId/jobs/:jobId/archive', async (request, reply) => {
    const project = await viewerProject(context, request, request.params.projectId);
    await archiveJob(context, project, request.params.jobId);
    return reply.redirect(`/dashboard/projects/${project.id}/jobs?status=archived`, 303);
  });

  scope.post<{ Params: { projectId: string } }>('/projects/:projectId/jobs', async (request, reply) => {
    const project = await viewerProject(context, request, request.params.projectId);
    const { job } = await createJob(context, project, { prompt: promptOf(formOf(request)), origin: 'dashboard' });
    return reply.redirect(`/dashboard/projects/${project.id}/jobs/${job.id}`, 303);
  });

  scope.get<JobParams>('/projects/:projectId/jobs/:jobId', async (request, reply) => {
    const viewer = viewerOf(request);
    const project = await viewerProject(context, request, request.params.projectId);
    const job = await getJob(context, project, request.params.jobId);
    const live = jobLive(viewer, project, job, await listMessages(context.storage.db, job.id));
    const body = html`${projectTabs(project, 'jobs')}<p>Job <code>${job.id}</code></p>
<div id="live" data-live-url="/dashboard/projects/${project.id}/jobs/${job.id}/live" data-events-url="/dashboard/projects/${project.id}/jobs/${job.id}/events" data-status="${job.status}">${live}</div>`;
    return sendPage(reply, layout({ title: job.prompt.length > 80 ? `${job.prompt.slice(0, 80)}…` : job.prompt, viewer, section: 'projects', body }));
  });

  scope.get<JobParams>('/projects/:projectId/jobs/:jobId/live', async (request, reply) => {
    const project = await viewerProject(context, request, request.params.projectId);
    const job = await getJob(context, project, request.params.jobId);
    reply.header('x-job-status', job.status);
    return sendPage(reply, jobLive(viewerOf(request), project, job, await listMessages(context.storage.db, job.id)));
  });

  // The live part of the job page follows this stream (the API's, for the signed-in organization).
  scope.get<JobParams>('/projects/:projectId/jobs/:jobId/events', async (request, reply) => {
    const project = await viewerProject(context, request, request.params.projectId);
    const job = await getJob(context, project, request.params.jobId);
    sendJobEvents(context, reply, job, resumeAfter(request.headers['last-event-id']));
  });

  scope.post<JobParams>('/projects/:projectId/jobs/:jobId/cancel', async (request, reply) => {
    const project = await viewerProject(context, request, request.params.projectId);
    const job = await cancelJob(context, project, request.params.jobId, 'a dashboard user');
    return reply.redirect(`/dashboard/projects/${project.id}/jobs/${job.id}`, 303);
  });

  scope.post<JobParams>('/projects/:projectId/jobs/:jobId/message', async (request, reply) => {
    const project = await viewerProject(context, request, request.params.projectId);
    const { job } = await followUp(context, project, request.params.jobId, { prompt: promptOf(formOf(request)) });
    return reply.redirect(`/dashboard/projects/${project.id}/jobs/${job.id}`, 303);
  });
}
