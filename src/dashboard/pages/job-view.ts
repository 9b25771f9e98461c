import type { ProjectRow } from '../../storage/tables/accounts.ts';
import type { TranscriptMessage } from '../../jobs/runner.ts';
import type { JobRow } from '../../storage/tables/jobs.ts';
import { jobView } from '../../jobs/view.ts';
import { age, html, time, type Html } from '../html.ts';
import { csrfField, type Viewer } from '../layout.ts';

export function statusBadge(status: JobRow['status']): Html {
  return html`<span class="badge ${status}">${status}</span>`;
}

/** The job's pull request: the URL itself on the job's page, a short link in lists. */
export function pullRequestLink(job: JobRow, form: 'short' | 'full' = 'short'): Html {
  const link = jobView(job).prLink;
  if (!link) return html`–`;
  return form === 'full' ? html`<a href="${link}">${link}</a>` : html`<a href="${link}">Pull request<span class="visually-hidden"> of job ${job.id}</span></a>`;
}

function describe(message: TranscriptMessage): Html {
  const { content } = message;
  if (typeof content.text === 'string') return html`<pre>${content.text}</pre>`;
  if (message.role === 'tool') {
    const input = typeof content.input === 'string' ? content.input : JSON.stringify(content.input);
    const result = typeof content.result === 'string' ? content.result : JSON.stringify(content.result ?? null);
    return html`<p><code>${String(content.tool)}</code>${content.error ? ' (failed)' : ''}</p><pre>${input}</pre><details><summary>Result</summary><pre>${result}</pre></details>`;
  }
  const { type, ...rest } = content;
  const details = Object.entries(rest).map(([name, value]) => html` · ${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`);
  return html`<p>${String(type ?? 'event')}${details}</p>`;
}

function transcript(messages: TranscriptMessage[]): Html {
  const items = messages.map(
    (message) =>
      html`<li class="${message.role}"><span class="role">${message.role === 'user' ? 'prompt' : message.role}</span> · ${time(message.createdAt)}${describe(message)}</li>`,
  );
  return html`<ol class="transcript" aria-label="Transcript">${items}</ol>`;
}

function followUpForm(viewer: Viewer, project: ProjectRow, job: JobRow): Html {
  if (job.status === 'active') return html`<p class="hint">You can send a follow-up once the job has completed or failed. This page updates by itself.</p>`;
  if (job.status === 'archived') return html`<p class="hint">The job is archived and takes no more messages; create a new job instead.</p>`;
  return html`<form method="post" action="/dashboard/projects/${project.id}/jobs/${job.id}/message" class="stack">${csrfField(viewer)}
<label for="follow-up">Follow-up</label>
<textarea id="follow-up" name="prompt" required maxlength="20000" aria-describedby="follow-up-hint"></textarea>
<p class="hint" id="follow-up-hint">The agent continues on the same branch and pull request.</p>
<button type="submit" class="primary">Send follow-up</button></form>`;
}

/** The part of a job's page that changes while the job runs; the page's script re-fetches it. */
export function jobLive(viewer: Viewer, project: ProjectRow, job: JobRow, messages: TranscriptMessage[]): Html {
  return html`<dl class="job">
<dt>Status</dt><dd><span role="status">${statusBadge(job.status)}</span>${job.error ? html` ${job.error}` : ''}</dd>
<dt>Model</dt><dd>${job.model}</dd>
<dt>Source</dt><dd>${job.repository}${job.ref ? ` @ ${job.ref}` : ''}</dd>
<dt>Created</dt><dd>${time(job.created_at)} (${age(job.created_at)})</dd>
<dt>Pull request</dt><dd>${pullRequestLink(job, 'full')}</dd>
</dl>
<h2>Transcript</h2>${transcript(messages)}
${followUpForm(viewer, project, job)}`;
}
