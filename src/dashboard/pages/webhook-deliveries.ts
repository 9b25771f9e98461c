import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../http/context.ts';
import { listDeliveries, redeliver, type DeliveryWithLog } from '../../jobs/webhooks/deliveries.ts';
import { findEndpoint } from '../../jobs/webhooks/endpoints.ts';
import type { ProjectRow } from '../../storage/tables/accounts.ts';
import type { WebhookEndpointRow } from '../../storage/tables/webhooks.ts';
import { viewerProject } from '../auth.ts';
import { html, time, type Html } from '../html.ts';
import { csrfField, layout, notice, projectTabs, type Viewer } from '../layout.ts';

const pageSize = 50;

function attemptList(entry: DeliveryWithLog): Html {
  if (entry.attempts.length === 0) return html`–`;
  const items = entry.attempts.map(
    (attempt) =>
      html`<li>#${attempt.attempt} ${time(attempt.started_at)}: <strong>${attempt.status_code === null ? 'no answer' : `HTTP ${attempt.status_code}`}</strong> in ${attempt.duration_ms} ms${attempt.error ? html` · ${attempt.error}` : ''}</li>`,
  );
  return html`<details><summary>${entry.attempts.length} attempt${entry.attempts.length === 1 ? '' : 's'}</summary><ol class="plain">${items}</ol></details>`;
}

function deliveryTable(viewer: Viewer, project: ProjectRow, endpoint: WebhookEndpointRow, deliveries: DeliveryWithLog[]): Html {
  if (deliveries.length === 0) return html`<p>No deliveries yet: they appear when the project's jobs change.</p>`;
  const base = `/dashboard/projects/${project.id}/webhooks/${endpoint.id}`;
  const rows = deliveries.map(({ delivery, attempts }) => {
    const button = html`<form method="post" action="${base}/deliveries/${delivery.id}/redeliver">${csrfField(viewer)}<button type="submit">Redeliver<span class="visually-hidden"> ${delivery.id}</span></button></form>`;
    return html`<tr><td>${time(delivery.created_at)}</td><td>${delivery.type}</td><td><span class="badge ${delivery.status}">${delivery.status}</span></td>
<td>${delivery.last_status_code ?? '–'}</td><td>${attemptList({ delivery, attempts })}</td><td>${delivery.next_attempt_at === null ? '–' : time(delivery.next_attempt_at)}</td><td>${button}</td></tr>`;
  });
  return html`<div class="scroll"><table><thead><tr><th scope="col">Event time</th><th scope="col">Type</th><th scope="col">Status</th><th scope="col">Last status code</th>
<th scope="col">Attempts (status, duration)</th><th scope="col">Next attempt</th><th scope="col">Action</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

/** An endpoint's page: its settings, why it is disabled, its actions and its delivery log. */
export async function endpointPage(
  context: AppContext,
  viewer: Viewer,
  project: ProjectRow,
  endpoint: WebhookEndpointRow,
  options: { top?: Html; redelivered?: string },
): Promise<Html> {
  const { deliveries } = await listDeliveries(context.storage.db, endpoint, { limit: pageSize });
  const base = `/dashboard/projects/${project.id}/webhooks/${endpoint.id}`;
  // Only a delivery that really is on the page is announced, so a crafted link cannot put words on it.
  const redelivered = deliveries.find((entry) => entry.delivery.id === options.redelivered);
  const disabled =
    endpoint.disabled_at === null
      ? ''
      : notice(
          'warning',
          html`Disabled ${time(endpoint.disabled_at)}: ${endpoint.disabled_reason}
<form method="post" action="${base}/enable">${csrfField(viewer)}<button type="submit" class="primary">Enable again</button></form>`,
        );
  const body = html`${projectTabs(project, 'webhooks')}${options.top ?? ''}${redelivered ? notice('success', `Delivery ${redelivered.delivery.id} is queued again.`) : ''}${disabled}
<p><a href="/dashboard/projects/${project.id}/webhooks">All endpoints</a></p>
<dl><dt>URL</dt><dd><code>${endpoint.url}</code></dd><dt>Events</dt><dd>${(JSON.parse(endpoint.events) as string[]).join(', ')}</dd>
<dt>Description</dt><dd>${endpoint.description ?? '–'}</dd><dt>Created</dt><dd>${time(endpoint.created_at)}</dd></dl>
<div class="actions"><form method="post" action="${base}/rotate-secret">${csrfField(viewer)}<button type="submit">Rotate secret</button></form>
<form method="post" action="${base}/delete">${csrfField(viewer)}<button type="submit" class="danger">Delete endpoint</button></form></div>
<section aria-labelledby="deliveries"><h2 id="deliveries">Deliveries</h2><p>The newest ${pageSize}, each with every attempt's status code and duration.</p>
${deliveryTable(viewer, project, endpoint, deliveries)}</section>`;
  return layout({ title: `Webhook · ${project.name}`, viewer, section: 'projects', body });
}

export function deliveryPages(scope: FastifyInstance, context: AppContext): void {
  scope.post<{ Params: { projectId: string; webhookId: string; deliveryId: string } }>(
    '/projects/:projectId/webhooks/:webhookId/deliveries/:deliveryId/redeliver',
    async (request, reply) => {
      const project = await viewerProject(context, request, request.params.projectId);
      const endpoint = await findEndpoint(context.storage.db, project, request.params.webhookId);
      const { delivery } = await redeliver(context.storage.db, endpoint, request.params.deliveryId);
      context.events.emit('webhooks-queued');
      return reply.redirect(`/dashboard/projects/${project.id}/webhooks/${endpoint.id}?redelivered=${encodeURIComponent(delivery.id)}`, 303);
    },
  );
}
