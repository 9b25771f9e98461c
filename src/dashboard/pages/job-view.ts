import type { ProjectRow } from '../../storage/tables/accounts.ts';
import type { JobProblem, TranscriptMessage } from '../../jobs/runner.ts';
import type { JobRow } from '../../storage/tables/jobs.ts';
import { jobView } from '../../jobs/view.ts';
import { displayRepository } from '../../lib/display-repository.ts';
import { diffLines } from '../diff.ts';
import { age, html, time, type Html } from '../html.ts';
import { csrfField, type Viewer } from '../layout.ts';

export function statusBadge(status: JobRow['status']): Html {
  return html`<span class="badge ${status}">${status}</span>`;
}

/** A local repository's "pull request" is the dashboard's change page: it is called a change. */
export function isLocalChange(link: string): boolean {
  return new URL(link, 'http://quire.invalid').pathname.startsWith('/dashboard/changes/');
}

/** The job's pull request (or change): the URL itself on the job's page, a short link in lists. */
export function pullRequestLink(job: JobRow, form: 'short' | 'full' = 'short'): Html {
  const link = jobView(job).prLink;
  if (!link) return html`–`;
  if (form === 'full') return html`<a href="${link}">${link}</a>`;
  return html`<a href="${link}">${isLocalChange(link) ? 'Change' : 'Pull request'}<span class="visually-hidden"> of job ${job.id}</span></a>`;
}

/** What a job's pull request is left as: a draft badge, and how many problems the checks still report. */
export function pullRequestState(job: JobRow): Html {
  const view = jobView(job);
  if (!view.prLink) return html``;
  const count = job.problem_count ?? 0;
  return html`${view.draft ? html` <span class="badge draft">draft</span>` : ''}${
    count > 0 ? html` <span class="problems">${count} ${count === 1 ? 'problem remains' : 'problems remain'}</span>` : ''
  }`;
}

/** Problems of the docs checks as a list: the page (and line), then what is wrong. Fields are read defensively: transcript JSON. */
export function problemList(problems: readonly unknown[], more = 0): Html {
  const item = (value: unknown) => {
    const problem = (typeof value === 'object' && value !== null ? value : {}) as Partial<Record<keyof JobProblem, unknown>>;
    const line = typeof problem.line === 'number' ? `:${problem.line}` : '';
    return html`<li><code>${String(problem.file ?? '')}${line}</code> ${String(problem.message ?? '')}</li>`;
  };
  return html`<ul class="problems">${problems.map(item)}${more > 0 ? html`<li>… and ${more} more</li>` : ''}</ul>`;
}

const asText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value ?? null, null, 2));
const oneLine = (value: unknown, max = 90) => {
  const flat = asText(value).replaceAll('\n', ' ');
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
};

/** Agent text as paragraphs (blank lines separate them), kept as the model wrote it otherwise. */
function prose(text: string): Html {
  return html`${text
    .split('\n\n')
    .filter((paragraph) => paragraph.trim() !== '')
    .map((paragraph) => html`<p>${paragraph}</p>`)}`;
}

/** What one transcript entry reads as: prompts and agent replies as prose, tool calls as one line, events as small lines. */
function entry(message: TranscriptMessage): Html {
  const { content } = message;
  if (message.role === 'user')
    return html`<li class="prompt"><span class="who">Prompt</span> · ${time(message.createdAt)}${prose(String(content.text ?? ''))}</li>`;
  if (message.role === 'assistant') return html`<li class="agent"><span class="who">Agent</span>${prose(String(content.text ?? ''))}</li>`;
  if (message.role === 'tool') {
    const failed = content.error !== undefined;
    return html`<li class="tool${failed ? ' failed' : ''}"><details><summary><code>${String(content.tool)}</code> ${oneLine(content.input)}${failed ? ' (failed)' : ''}</summary>
<p class="hint">Input</p><pre>${asText(content.input)}</pre><p class="hint">Result</p><pre>${asText(content.result ?? content.error)}</pre></details></li>`;
  }
  const { type, ...rest } = content;
  if (type === 'checks') return checksEntry(message);
  if (type === 'change-pushed') {
    const files = Array.isArray(rest.files) ? rest.files.length : 0;
    return html`<li class="event">${time(message.createdAt)} pushed a change to ${files} file${files === 1 ? '' : 's'}</li>`;
  }
  const details = Object.entries(rest)
    .filter(([, value]) => value !== null && value !== undefined)
    .map(([name, value]) => html` · ${name}: ${oneLine(value, 300)}`);
  return html`<li class="event">${time(message.createdAt)} ${String(type ?? 'event')}${details}</li>`;
}

/** Problems of one check shown in the transcript; the rest are counted. */
const shownCheckProblems = 20;
const strings = (value: unknown) => (Array.isArray(value) ? value.map((item) => String(item)) : []);

/** A check of the change (agent/repair.ts): passed or the problems found, what was checked and what was skipped. */
function checksEntry(message: TranscriptMessage): Html {
  const { content } = message;
  const problems = Array.isArray(content.problems) ? content.problems : [];
  const round = typeof content.round === 'number' ? content.round : 0;
  const when = round === 0 ? 'checked the change' : `checked the change again after repair round ${round}`;
  const checked = strings(content.checked);
  const skipped = strings(content.skipped);
  const result = problems.length === 0 ? 'everything passed' : `${problems.length} ${problems.length === 1 ? 'problem' : 'problems'} found`;
  return html`<li class="event checks${problems.length ? ' failed' : ''}">${time(message.createdAt)} ${when}: ${result}${
    problems.length ? problemList(problems.slice(0, shownCheckProblems), problems.length - shownCheckProblems) : ''
  }${checked.length ? html`<p>Checked: ${checked.join('; ')}.</p>` : ''}${skipped.length ? html`<p>Not checked: ${skipped.join('; ')}.</p>` : ''}</li>`;
}

function transcript(messages: TranscriptMessage[]): Html {
  return html`<ol class="transcript" aria-label="Transcript">${messages.map(entry)}</ol>`;
}

interface ChangeFile {
  path: string;
  added: number | null;
  removed: number | null;
}

/** The newest pushed change of the job (recorded after each push): files with +/- counts and the unified diff. */
function change(messages: TranscriptMessage[]): Html {
  const pushed = messages.findLast((message) => message.role === 'event' && message.content.type === 'change-pushed');
  if (!pushed) return html`<h2>Change</h2><p>Nothing pushed yet.</p>`;
  const files = (Array.isArray(pushed.content.files) ? pushed.content.files : []) as ChangeFile[];
  const count = (value: number | null, sign: string) => (value === null ? 'binary' : `${sign}${value}`);
  const rows = files.map(
    (file) =>
      html`<li><code>${file.path}</code> <span class="added">${count(file.added, '+')}</span> <span class="removed">${count(file.removed, '−')}</span></li>`,
  );
  const diff = String(pushed.content.diff ?? '');
  return html`<h2>Change</h2><p>${files.length} file${files.length === 1 ? '' : 's'} changed, as pushed ${time(pushed.createdAt)}.</p>
<ul class="files">${rows}</ul>
<details open><summary>Unified diff</summary><pre class="diff">${diffLines(diff)}</pre></details>
${pushed.content.truncated ? html`<p><strong>The diff is cut here because it is too long to show; the pull request has all of it.</strong></p>` : ''}`;
}

/** What the checks still report for the pushed change, when the job's pull request has problems. */
function problemsOf(job: JobRow): Html {
  const view = jobView(job);
  if (!view.prLink || view.problems.length === 0) return html``;
  return html`<dt>Problems</dt><dd><p class="hint">The docs checks still report these after the repair rounds; send a follow-up to fix them.</p>${problemList(view.problems, (job.problem_count ?? 0) - view.problems.length)}</dd>`;
}

function cancelForm(viewer: Viewer, project: ProjectRow, job: JobRow): Html {
  if (job.status !== 'active') return html``;
  return html`<form method="post" action="/dashboard/projects/${project.id}/jobs/${job.id}/cancel" class="actions">${csrfField(viewer)}
<button type="submit" class="danger">Cancel job</button><span class="hint">Stops the agent; nothing is pushed after the cancel.</span></form>`;
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
<dt>Source</dt><dd>${displayRepository(job.repository)}${job.ref ? ` @ ${job.ref}` : ''}</dd>
<dt>Created</dt><dd>${time(job.created_at)} (${age(job.created_at)})</dd>
<dt>Branch</dt><dd><code>${job.branch}</code>${job.draft ? ' (draft pull request)' : ''}</dd>
<dt>${job.pr_link && isLocalChange(job.pr_link) ? 'Change' : 'Pull request'}</dt><dd>${pullRequestLink(job, 'full')}${pullRequestState(job)}</dd>
${problemsOf(job)}</dl>
${cancelForm(viewer, project, job)}
${change(messages)}
<h2>Transcript</h2>${transcript(messages)}
${followUpForm(viewer, project, job)}`;
}
