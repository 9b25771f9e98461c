import type { FastifyInstance } from 'fastify';
import { addConnection, listConnections, removeConnection } from '../../accounts/connections.ts';
import { listLocalGrants } from '../../accounts/local-grants.ts';
import { findOrganization } from '../../accounts/organizations.ts';
import { identifyConnection } from '../../code-hosts/connect.ts';
import { CodeHostError } from '../../code-hosts/types.ts';
import type { AppContext } from '../../http/context.ts';
import { ConfigError } from '../../config/parsers.ts';
import { ApiError } from '../../http/errors.ts';
import { field, formOf, requireOwner } from '../auth.ts';
import { html, time, type Html } from '../html.ts';
import { csrfField, layout, notice, sendPage, type Viewer } from '../layout.ts';

/** Kinds a person may connect here: tokens prove themselves. A GitHub App installation id does not, so the operator connects those (`quire connections add --kind github-app`). */
const tokenKinds = { 'github-token': 'GitHub token', gitlab: 'GitLab token' } as const;
type TokenKind = keyof typeof tokenKinds;

async function connectionsPage(context: AppContext, viewer: Viewer, message?: Html): Promise<Html> {
  const { db } = context.storage;
  const [rows, grants, organization] = await Promise.all([
    listConnections(db, viewer.orgId),
    listLocalGrants(db, viewer.orgId),
    findOrganization(db, viewer.orgId),
  ]);
  const body = rows.map(
    (row) => html`<tr><td>${row.kind}</td><td>${row.account}</td><td>${time(row.created_at)}</td>
<td><form method="post" action="/dashboard/connections/${row.id}/remove">${csrfField(viewer)}<button type="submit" class="danger">Disconnect<span class="visually-hidden"> ${row.account}</span></button></form></td></tr>`,
  );
  const table =
    rows.length === 0
      ? html`<p>No code-host credentials are connected.</p>`
      : html`<div class="scroll"><table><thead><tr><th scope="col">Kind</th><th scope="col">Account</th><th scope="col">Connected</th><th scope="col">Action</th></tr></thead><tbody>${body}</tbody></table></div>`;
  const options = (Object.entries(tokenKinds) as [TokenKind, string][]).map(([kind, label]) => html`<option value="${kind}">${label}</option>`);
  const local = grants.length === 0 ? 'none' : grants.map((grant) => grant.path).join(', ');
  const page = html`${message ?? ''}
<p>Projects of this organization may name only repositories these credentials reach. Tokens are stored encrypted and never shown again.</p>
<section aria-labelledby="connected"><h2 id="connected">Connected credentials</h2>${table}</section>
<section aria-labelledby="connect"><h2 id="connect">Connect a token</h2>
<form method="post" action="/dashboard/connections" class="stack">${csrfField(viewer)}
<label for="connection-kind">Kind</label><select id="connection-kind" name="kind">${options}</select>
<label for="connection-token">Token</label><input id="connection-token" name="token" type="password" required autocomplete="off" aria-describedby="connection-token-hint">
<p class="hint" id="connection-token-hint">GitHub: a fine-grained token with Contents and Pull requests read and write. GitLab: the api and write_repository scopes. GitHub App installations are connected by the operator.</p>
<button type="submit" class="primary">Connect</button></form></section>
<section aria-labelledby="operator"><h2 id="operator">Granted by the operator</h2>
<p>Local repositories under: ${local}. Server-wide credentials: ${organization?.server_credentials === 1 ? 'granted' : 'not granted'}.</p></section>`;
  return layout({ title: 'Connections', viewer, section: 'connections', body: page });
}

export function connectionPages(scope: FastifyInstance, context: AppContext): void {
  scope.get('/connections', async (request, reply) => sendPage(reply, await connectionsPage(context, requireOwner(request, 'manage code-host credentials'))));

  scope.post('/connections', async (request, reply) => {
    const viewer = requireOwner(request, 'manage code-host credentials');
    const form = formOf(request);
    const kind = field(form, 'kind');
    const token = field(form, 'token').trim();
    if (!(kind in tokenKinds) || token === '')
      return sendPage(reply, await connectionsPage(context, viewer, notice('error', 'Choose a kind and paste a token.')), 400);
    try {
      const account = await identifyConnection(context.config, { kind: kind as TokenKind, token });
      await addConnection(context.storage.db, context.config, viewer.orgId, { kind: kind as TokenKind, account, token });
      return sendPage(reply, await connectionsPage(context, viewer, notice('success', `Connected ${tokenKinds[kind as TokenKind]} of ${account}.`)));
    } catch (error) {
      if (!(error instanceof CodeHostError || error instanceof ConfigError)) throw error;
      return sendPage(reply, await connectionsPage(context, viewer, notice('error', error.message)), 400);
    }
  });

  scope.post<{ Params: { id: string } }>('/connections/:id/remove', async (request, reply) => {
    const viewer = requireOwner(request, 'manage code-host credentials');
    if (!(await removeConnection(context.storage.db, viewer.orgId, request.params.id)))
      throw new ApiError('not_found', `Connection ${request.params.id} was not found in your organization.`);
    return sendPage(reply, await connectionsPage(context, viewer, notice('success', 'Disconnected; its token is deleted.')));
  });
}
