import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../http/context.ts';
import { ApiError } from '../../http/errors.ts';
import { webhookEventTypes } from '../../jobs/webhooks/events.ts';
import { createEndpoint, deleteEndpoint, findEndpoint, listEndpoints, rotateSecret, updateEndpoint } from '../../jobs/webhooks/endpoints.ts';
import type { ProjectRow } from '../../storage/tables/accounts.ts';
import type { WebhookEndpointRow } from '../../storage/tables/webhooks.ts';
import { field, formOf, viewerOf, viewerProject } from '../auth.ts';
import { html, time, type Html } from '../html.ts';
import { csrfField, layout, notice, projectTabs, sendPage, type Viewer } from '../layout.ts';
import { endpointPage } from './webhook-deliveries.ts';

type EndpointParams = { Params: { projectId: string; webhookId: string } };

/** The secret of an endpoint just created or rotated: shown on this response only. */
export function secretPanel(endpoint: WebhookEndpointRow, secret: string): Html {
  return html`<section class="notice warning secret" aria-labelledby="new-secret">
<h2 id="new-secret">Signing secret of ${endpoint.url}</h2>
<p><strong>Copy it now: it is shown only this once.</strong> Your endpoint verifies each delivery's <code>webhook-signature</code> with it (Standard Webhooks). If you lose it, rotate it.</p>
<p><span class="copyable"><code>${secret}</code> <button type="button" data-copy="${secret}" aria-label="Copy the signing secret">Copy</button></span></p>
</section>`;
}

function endpointTable(project: ProjectRow, endpoints: WebhookEndpointRow[]): Html {
  if (endpoints.length === 0) return html`<p>No webhook endpoints yet.</p>`;
  const rows = endpoints.map(
    (endpoint) => html`<tr><td><a href="/dashboard/projects/${project.id}/webhooks/${endpoint.id}">${endpoint.url}</a></td>
<td>${(JSON.parse(endpoint.events) as string[]).join(', ')}</td><td>${endpoint.description ?? ''}</td>
<td>${endpoint.disabled_at === null ? html`<span class="badge completed">enabled</span>` : html`<span class="badge failed">disabled</span> ${endpoint.disabled_reason}`}</td>
<td>${time(endpoint.created_at)}</td></tr>`,
  );
  return html`<div class="scroll"><table><thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">Description</th><th scope="col">Status</th><th scope="col">Created</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

function createForm(viewer: Viewer, project: ProjectRow): Html {
  const boxes = webhookEventTypes.map((type) => html`<label class="check"><input type="checkbox" name="events" value="${type}" checked> ${type}</label>`);
  return html`<section aria-labelledby="add-webhook"><h2 id="add-webhook">Add an endpoint</h2>
<form method="post" action="/dashboard/projects/${project.id}/webhooks" class="stack">${csrfField(viewer)}
<label for="webhook-url">URL</label><input id="webhook-url" name="url" type="url" required maxlength="2000" placeholder="https://example.com/hooks/quire" aria-describedby="webhook-url-hint">
<p class="hint" id="webhook-url-hint">Quire POSTs each event here, signed. The host must resolve to a public address.</p>
<fieldset><legend>Events</legend>${boxes}</fieldset>
<label for="webhook-description">Description (optional)</label><input id="webhook-description" name="description" maxlength="500">
<button type="submit" class="primary">Add endpoint</button></form></section>`;
}

async function listPage(context: AppContext, viewer: Viewer, project: ProjectRow, top: Html | string = ''): Promise<Html> {
  const endpoints = await listEndpoints(context.storage.db, project);
  const body = html`${projectTabs(project, 'webhooks')}${top}
<section aria-labelledby="endpoints"><h2 id="endpoints">Endpoints</h2>${endpointTable(project, endpoints)}</section>${createForm(viewer, project)}`;
  return layout({ title: `Webhooks · ${project.name}`, viewer, section: 'projects', body });
}

/** A refusal the person can fix (bad URL, private address), shown on the page; anything else as usual. */
function refusal(error: unknown): string {
  if (error instanceof ApiError && error.status === 400) return error.message;
  throw error;
}

export function webhookPages(scope: FastifyInstance, context: AppContext): void {
  const dependencies = { db: context.storage.db, config: context.config };

  scope.get<{ Params: { projectId: string } }>('/projects/:projectId/webhooks', async (request, reply) => {
    const project = await viewerProject(context, request, request.params.projectId);
    return sendPage(reply, await listPage(context, viewerOf(request), project));
  });

  scope.post<{ Params: { projectId: string } }>('/projects/:projectId/webhooks', async (request, reply) => {
    const viewer = viewerOf(request);
    const project = await viewerProject(context, request, request.params.projectId);
    const form = formOf(request);
    const description = field(form, 'description');
    try {
      const { endpoint, secret } = await createEndpoint(dependencies, project, {
        url: field(form, 'url'),
        events: form.getAll('events'),
        description: description || null,
      });
      return sendPage(reply, await listPage(context, viewer, project, secretPanel(endpoint, secret)));
    } catch (error) {
      return sendPage(reply, await listPage(context, viewer, project, notice('error', refusal(error))), 400);
    }
  });

  scope.get<EndpointParams & { Querystring: { redelivered?: string } }>('/projects/:projectId/webhooks/:webhookId', async (request, reply) => {
    const project = await viewerProject(context, request, request.params.projectId);
    const endpoint = await findEndpoint(context.storage.db, project, request.params.webhookId);
    return sendPage(reply, await endpointPage(context, viewerOf(request), project, endpoint, { redelivered: request.query.redelivered }));
  });

  scope.post<EndpointParams>('/projects/:projectId/webhooks/:webhookId/enable', async (request, reply) => {
    const project = await viewerProject(context, request, request.params.projectId);
    const endpoint = await updateEndpoint(dependencies, project, request.params.webhookId, { enabled: true });
    context.events.emit('webhooks-queued');
    return reply.redirect(`/dashboard/projects/${project.id}/webhooks/${endpoint.id}`, 303);
  });

  scope.post<EndpointParams>('/projects/:projectId/webhooks/:webhookId/rotate-secret', async (request, reply) => {
    const project = await viewerProject(context, request, request.params.projectId);
    const { endpoint, secret } = await rotateSecret(dependencies, project, request.params.webhookId);
    return sendPage(reply, await endpointPage(context, viewerOf(request), project, endpoint, { top: secretPanel(endpoint, secret) }));
  });

  scope.post<EndpointParams>('/projects/:projectId/webhooks/:webhookId/delete', async (request, reply) => {
    const project = await viewerProject(context, request, request.params.projectId);
    await deleteEndpoint(context.storage.db, project, request.params.webhookId);
    return reply.redirect(`/dashboard/projects/${project.id}/webhooks`, 303);
  });
}
