import type { FastifyInstance, FastifyRequest } from 'fastify';
import { canManage } from '../../accounts/people/people.ts';
import { createSharedLink, listSharedLinks, revokeSharedLink } from '../../analytics/query/shared-links.ts';
import type { AppContext } from '../../http/context.ts';
import type { ProjectRow } from '../../storage/tables/accounts.ts';
import { baseUrl, requireOwner, viewerOf, viewerProject } from '../auth.ts';
import { html, time, type Html } from '../html.ts';
import { csrfField, layout, notice, projectTabs, sendPage, type Viewer } from '../layout.ts';

type SharingRequest = FastifyRequest<{ Params: { projectId: string; linkId?: string } }>;

interface SharingState {
  /** The full address of a link just created: shown this once (only its hash is kept). */
  created?: string;
  revoked?: boolean;
}

/**
 * A project's shared links: read-only links to its analytics page for people without an account.
 * Owners create and revoke them (the API's `write` scope); members see that they exist.
 */
async function sharingPage(context: AppContext, viewer: Viewer, project: ProjectRow, state: SharingState): Promise<Html> {
  const base = `/dashboard/projects/${project.id}/analytics/shared-links`;
  const links = await listSharedLinks(context.storage.db, project.id);
  const owner = canManage(viewer.role);
  const rows = links.map(
    (link) =>
      html`<tr><td data-label="Link"><code>${link.id}</code></td><td data-label="Created">${time(link.createdAt)}</td><td>${
        owner
          ? html`<form method="post" action="${base}/${link.id}/revoke">${csrfField(viewer)}<button type="submit" class="danger" aria-label="Revoke ${link.id}">Revoke</button></form>`
          : ''
      }</td></tr>`,
  );
  const created = state.created
    ? html`<section id="new-link" aria-labelledby="new-link-title"><h2 id="new-link-title">Your new link</h2>
<p>Copy it now: it is shown only this once. Anyone who has it sees this project’s analytics page, and nothing else, until you revoke it.</p>
<div class="copyable"><pre><code>${state.created}</code></pre><button type="button" data-copy="${state.created}" aria-label="Copy the shared link">Copy</button></div>
<p><a href="${state.created}" target="_blank" rel="noopener noreferrer">Open it</a></p></section>`
    : '';
  const body = html`${projectTabs(project, 'analytics')}
<p><a href="/dashboard/projects/${project.id}/analytics">Back to the analytics page</a></p>
${state.revoked ? notice('success', 'The link was revoked; opening it now says it does not exist.') : ''}
${created}
<p>A shared link shows the analytics page of ${project.name} read-only (its numbers, ranges, filters and live count) to anyone who has it, without signing in. It reaches nothing else: no other project, no export, no settings.</p>
${
  owner
    ? html`<form method="post" action="${base}">${csrfField(viewer)}<button type="submit" class="primary">Create a shared link</button></form>`
    : html`<p>Owners of the organization create and revoke shared links; ask one for a link.</p>`
}
<h2>Working links</h2>
${rows.length ? html`<div class="scroll"><table id="shared-links" class="stacked"><thead><tr><th scope="col">Link</th><th scope="col">Created</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead><tbody>${rows}</tbody></table></div>` : html`<p id="no-links">No working shared links.</p>`}`;
  return layout({ title: `Shared links · ${project.name}`, viewer, section: 'projects', body });
}

export function sharingPages(scope: FastifyInstance, context: AppContext): void {
  const path = '/projects/:projectId/analytics/shared-links';
  scope.get(path, async (request: SharingRequest, reply) => {
    const project = await viewerProject(context, request, request.params.projectId);
    return sendPage(reply, await sharingPage(context, viewerOf(request), project, {}));
  });

  scope.post(path, async (request: SharingRequest, reply) => {
    const viewer = requireOwner(request, 'create shared links');
    const project = await viewerProject(context, request, request.params.projectId);
    const link = await createSharedLink(context.storage.db, project.id);
    const url = `${baseUrl(context, request).replace(/\/+$/, '')}/share/${link.token}`;
    return sendPage(reply, await sharingPage(context, viewer, project, { created: url }), 201);
  });

  scope.post(`${path}/:linkId/revoke`, async (request: SharingRequest, reply) => {
    const viewer = requireOwner(request, 'revoke shared links');
    const project = await viewerProject(context, request, request.params.projectId);
    // Revoking one already revoked (a second click, another tab) shows the list as it is, without a success notice.
    const revoked = await revokeSharedLink(context.storage.db, project.id, request.params.linkId ?? '');
    return sendPage(reply, await sharingPage(context, viewer, project, { revoked }));
  });
}
