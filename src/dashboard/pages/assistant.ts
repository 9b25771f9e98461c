import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { listKeys, parseOrigins } from '../../accounts/keys.ts';
import { createKeyOnce } from '../key-once.ts';
import { canManage } from '../../accounts/people/people.ts';
import type { AppContext } from '../../http/context.ts';
import { notFound } from '../../http/errors.ts';
import type { ApiKeyRow, ProjectRow } from '../../storage/tables/accounts.ts';
import { baseUrl, field, formOf, requireOwner, viewerOf, viewerProject } from '../auth.ts';
import { age, html, time, type Html } from '../html.ts';
import { csrfField, layout, notice, projectTabs, sendPage, type Viewer } from '../layout.ts';

type AssistantRequest = { Params: { projectId: string }; Querystring: { filter?: string; cursor?: string } };

const conversationsShown = 50;
const dayMs = 86_400_000;
const statsDays = 30;

/** The turns a stored conversation row says: the resolution, or the question asked back. */
function outcome(turn: { responseType: string; resolution: string }): Html {
  if (turn.responseType === 'clarifying_question') return html`<span class="badge pending">asked back</span>`;
  return turn.resolution === 'unanswered' ? html`<span class="badge failed">unanswered</span>` : html`<span class="badge completed">answered</span>`;
}

function sourceLinks(sources: { title: string; url: string }[]): Html {
  if (sources.length === 0) return html`–`;
  return html`<ul class="plain">${sources.map((source) => html`<li><a href="${source.url}">${source.title}</a></li>`)}</ul>`;
}

/** The playground: the question form the dashboard script turns into a streamed answer. */
function playground(viewer: Viewer, project: ProjectRow): Html {
  return html`<section aria-labelledby="playground"><h2 id="playground">Playground</h2>
<p>Ask what a reader would: the answer streams as the assistant writes it, with the pages it cites. Each question counts toward the assistant's limits and is listed below as an <code>other</code> caller.</p>
<form class="stack assistant-playground" data-ask-url="/dashboard/projects/${project.id}/assistant/ask" data-csrf="${viewer.csrf}">
<label for="playground-question">Question</label>
<textarea id="playground-question" name="question" rows="3" maxlength="20000" required></textarea>
<div class="actions"><button type="submit" class="primary">Ask</button><button type="button" class="link" data-playground-reset>New conversation</button></div>
</form>
<noscript>${notice('warning', 'The playground needs JavaScript.')}</noscript>
<div class="playground-answer" aria-live="polite" aria-busy="false" hidden>
<p class="playground-status"></p>
<div class="playground-text"></div>
<h3 class="playground-sources-title" hidden>Sources</h3>
<ul class="plain playground-sources"></ul>
</div></section>`;
}

function conversationList(project: ProjectRow, turns: Awaited<ReturnType<AppContext['docs']['assistant']['conversations']>>, unanswered: boolean): Html {
  const base = `/dashboard/projects/${project.id}/assistant`;
  const filterLink = (label: string, on: boolean) =>
    html`<li><a href="${on ? `${base}?filter=unanswered` : base}"${on === unanswered ? html` aria-current="page"` : ''}>${label}</a></li>`;
  const rows = turns.turns.map(
    (turn) => html`<tr><td>${time(turn.at)}</td><td><a href="${base}/threads/${turn.threadId}">${turn.query.slice(0, 200)}</a></td><td>${outcome(turn)}</td>
<td>${sourceLinks(turn.sources)}</td><td>${turn.caller}</td></tr>`,
  );
  const older = turns.nextCursor
    ? html`<p><a href="${base}?${new URLSearchParams({ ...(unanswered ? { filter: 'unanswered' } : {}), cursor: turns.nextCursor }).toString()}">Older conversations</a></p>`
    : '';
  const table =
    rows.length === 0
      ? html`<p>${unanswered ? 'No unanswered questions.' : 'No questions yet. Ask one in the playground, or embed the assistant below.'}</p>`
      : html`<div class="scroll"><table><thead><tr><th scope="col">Asked</th><th scope="col">Question</th><th scope="col">Outcome</th><th scope="col">Sources</th><th scope="col">Caller</th></tr></thead><tbody>${rows}</tbody></table></div>`;
  return html`<section aria-labelledby="conversations"><h2 id="conversations">Conversations</h2>
<nav class="tabs" aria-label="Which conversations"><ul>${filterLink('All', false)}${filterLink('Unanswered', true)}</ul></nav>
${table}${older}</section>`;
}

function callerStats(counts: { web: number; api: number; other: number; total: number }): Html {
  const row = (label: string, count: number) => html`<tr><th scope="row">${label}</th><td class="number">${count}</td></tr>`;
  return html`<section aria-labelledby="callers"><h2 id="callers">Callers, last ${statsDays} days</h2>
<div class="scroll"><table class="caller-stats"><tbody>${row('Web (the embedded assistant)', counts.web)}${row('API', counts.api)}${row('Other (integrations, this playground)', counts.other)}${row('Total', counts.total)}</tbody></table></div></section>`;
}

/** The widget's script tag; with a key's secret when one was just created, else a placeholder naming where to find one. */
function widgetSnippet(viewer: Viewer, base: string, project: ProjectRow, keys: ApiKeyRow[], created: string | undefined): Html {
  const snippet = (key: string) => `<script defer src="${base}/assistant.js" data-project="${project.id}" data-key="${key}"></script>`;
  const shown = created
    ? html`${notice('success', html`An assistant key for this project was generated. <strong>Copy the snippet now: the key is shown only this once.</strong> Quire stores only a hash of it.`)}
<div class="copyable"><pre><code>${snippet(created)}</code></pre><button type="button" data-copy="${snippet(created)}" aria-label="Copy the assistant snippet">Copy</button></div>`
    : html`<div class="copyable"><pre><code>${snippet('YOUR_ASSISTANT_KEY')}</code></pre><button type="button" data-copy="${snippet('YOUR_ASSISTANT_KEY')}" aria-label="Copy the assistant snippet">Copy</button></div>`;
  const existing =
    keys.length === 0
      ? html`<p>This project has no assistant key yet.</p>`
      : html`<p>This project's assistant keys: ${keys.map((key, index) => html`${index ? ', ' : ''}<code>${key.prefix}…</code> (${key.name}${key.allowed_origins ? `, from ${key.allowed_origins.split(',').join(', ')}` : ''})`)}. Their secrets were shown once, when they were made; put one in place of <code>YOUR_ASSISTANT_KEY</code>, or generate another.</p>`;
  const generate = canManage(viewer.role)
    ? html`<form method="post" action="/dashboard/projects/${project.id}/assistant/key" class="stack">${csrfField(viewer)}<input type="hidden" name="form" value="${randomBytes(16).toString('hex')}">
<label for="assistant-origins">Allowed origins (optional)</label><input id="assistant-origins" name="origins" maxlength="2000" placeholder="https://docs.example.com" aria-describedby="assistant-origins-hint">
<p class="hint" id="assistant-origins-hint">The sites whose pages may use the key, separated by commas; empty allows any site. Keys are listed and revoked on the API keys page.</p>
<button type="submit">Generate an assistant key for this project</button></form>`
    : html`<p>An owner of the organization can generate an assistant key here or on the API keys page.</p>`;
  return html`<section aria-labelledby="widget"><h2 id="widget">Embed the assistant</h2>
<p>Add this to the pages of your docs site: a button opens the assistant, which answers from these docs and links the pages it used.</p>
${shown}${existing}${generate}</section>`;
}

async function assistantPage(
  context: AppContext,
  viewer: Viewer,
  base: string,
  project: ProjectRow,
  query: { unanswered: boolean; cursor?: string },
  created?: string,
  problem?: string,
): Promise<Html> {
  const now = Date.now();
  const desk = context.docs.assistant;
  const [turns, counts, keys] = await Promise.all([
    desk.conversations(project.id, { unanswered: query.unanswered, limit: conversationsShown, cursor: query.cursor }),
    desk.callers(project.id, now - statsDays * dayMs, now + 1),
    listKeys(context.storage.db, viewer.orgId),
  ]);
  const projectKeys = keys.filter((key) => key.kind === 'assistant' && key.revoked_at === null && key.project_ids === project.id);
  const body = html`${projectTabs(project, 'assistant')}${problem ? notice('error', problem) : ''}
${playground(viewer, project)}
${conversationList(project, turns, query.unanswered)}
${callerStats(counts)}
${widgetSnippet(viewer, base, project, projectKeys, created)}`;
  return layout({ title: `Assistant · ${project.name}`, viewer, section: 'projects', body });
}

/**
 * A project's Assistant tab: a playground streaming answers as readers get them, the stored
 * conversations (all or unanswered) with each thread, the callers, and the widget's snippet with an
 * assistant key. The assistant is reached through `context.docs.assistant` only.
 */
export function assistantPages(scope: FastifyInstance, context: AppContext): void {
  scope.get<AssistantRequest>('/projects/:projectId/assistant', async (request, reply) => {
    const project = await viewerProject(context, request, request.params.projectId);
    const query = { unanswered: request.query.filter === 'unanswered', cursor: request.query.cursor || undefined };
    return sendPage(reply, await assistantPage(context, viewerOf(request), baseUrl(context, request).replace(/\/+$/, ''), project, query));
  });

  scope.get<{ Params: { projectId: string; threadId: string } }>('/projects/:projectId/assistant/threads/:threadId', async (request, reply) => {
    const viewer = viewerOf(request);
    const project = await viewerProject(context, request, request.params.projectId);
    const thread = await context.docs.assistant.thread(project.id, request.params.threadId);
    if (!thread) throw notFound(`Assistant thread ${request.params.threadId} of project ${project.name}`);
    const turns = thread.turns.map(
      (turn) => html`<li><p class="who">Reader · ${time(turn.at)}</p><p>${turn.query}</p></li>
<li><p class="who">Assistant · ${outcome(turn)} · ${turn.caller}</p><pre class="description">${turn.response}</pre>${turn.sources.length ? html`<p>Sources:</p>${sourceLinks(turn.sources)}` : ''}</li>`,
    );
    const body = html`${projectTabs(project, 'assistant')}
<p><a href="/dashboard/projects/${project.id}/assistant">Back to the conversations</a> · started ${age(thread.createdAt)} ago</p>
<ol class="transcript plain">${turns}</ol>`;
    return sendPage(reply, layout({ title: `Conversation · ${project.name}`, viewer, section: 'projects', body }));
  });

  // Signed-in and CSRF-checked like every dashboard post (the script sends the token as a header); the answer streams.
  scope.post<{ Params: { projectId: string } }>('/projects/:projectId/assistant/ask', async (request, reply) => {
    const viewer = viewerOf(request);
    const project = await viewerProject(context, request, request.params.projectId);
    const question = { ...(request.body as object), asker: `dashboard:${viewer.personId ?? viewer.sessionId}` };
    return context.docs.assistant.ask(context, project, question, request, reply);
  });

  scope.post<{ Params: { projectId: string } }>('/projects/:projectId/assistant/key', async (request, reply) => {
    const viewer = requireOwner(request, 'generate assistant keys');
    const project = await viewerProject(context, request, request.params.projectId);
    const base = baseUrl(context, request).replace(/\/+$/, '');
    const form = formOf(request);
    let allowedOrigins: string[];
    try {
      allowedOrigins = parseOrigins(field(form, 'origins'));
    } catch (error) {
      return sendPage(
        reply,
        await assistantPage(
          context,
          viewer,
          base,
          project,
          { unanswered: false },
          undefined,
          `${(error as Error).message} Or leave the field empty to allow any site.`,
        ),
        400,
      );
    }
    const formId = field(form, 'form');
    // A form id the page did not write guards nothing: the key is made unguarded, as before.
    const key = await createKeyOnce(context.storage.db, viewer, /^[0-9a-f]{32}$/.test(formId) ? formId : '', {
      kind: 'assistant',
      name: `${project.name} assistant`,
      projectIds: [project.id],
      allowedOrigins,
    });
    if (key === null) {
      const repeated = 'This form was already sent: its key was generated then, and shown that once. To get another key, send the form again.';
      return sendPage(reply, await assistantPage(context, viewer, base, project, { unanswered: false }, undefined, repeated), 409);
    }
    return sendPage(reply, await assistantPage(context, viewer, base, project, { unanswered: false }, key));
  });
}
