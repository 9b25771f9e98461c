import type { FastifyInstance } from 'fastify';
import { siteUrlOf } from '../../accounts/projects.ts';
import type { AppContext } from '../../http/context.ts';
import { invalidRequest } from '../../http/errors.ts';
import { saveProjectSettings } from '../../projects/settings.ts';
import { baseUrl, field, formOf, viewerOf, viewerProject } from '../auth.ts';
import { html } from '../html.ts';
import { layout, notice, projectTabs, sendPage } from '../layout.ts';
import { indexStatus, pageList, publicSwitch, searchSection, surfaceAddresses, type DocsPlaces } from './docs-view.ts';

type DocsRequest = { Params: { projectId: string }; Querystring: { q?: string; offset?: string; done?: string } };

const pageSize = 100;
const searchLimit = 20;

/** What the page says after a post redirects back to it. */
const doneMessages: Record<string, string> = {
  refresh: 'A build of the docs index was requested.',
  public: 'The docs are now public.',
  private: 'The docs are now private.',
};

const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, '');

/**
 * A project's Docs tab: the index's state with a Refresh button, its pages in navigation order, a
 * search, the addresses agents read the docs at, and the public switch. The docs feature is reached
 * through `context.docs` only (server/context.ts creates it).
 */
export function docsPages(scope: FastifyInstance, context: AppContext): void {
  const dependencies = { db: context.storage.db, config: context.config, events: context.events };

  scope.get<DocsRequest>('/projects/:projectId/docs', async (request, reply) => {
    const viewer = viewerOf(request);
    const project = await viewerProject(context, request, request.params.projectId);
    const root = withoutTrailingSlash(baseUrl(context, request));
    const places: DocsPlaces = { siteUrl: withoutTrailingSlash(siteUrlOf(project, root)), surface: `${root}/sites/${project.id}` };
    const query = (request.query.q ?? '').trim().slice(0, 1000);
    const offset = Math.min(Number.MAX_SAFE_INTEGER, Math.max(0, Number.parseInt(request.query.offset ?? '0', 10) || 0));
    const [state, listed, hits] = await Promise.all([
      context.docs.state(project.id),
      context.docs.pages(project.id, { limit: pageSize, offset }),
      query ? context.docs.search(project.id, query, { limit: searchLimit }) : [],
    ]);
    const base = `/dashboard/projects/${project.id}/docs`;
    const at = (from: number) => `${base}?${new URLSearchParams({ ...(query ? { q: query } : {}), offset: String(from) }).toString()}`;
    const done = doneMessages[request.query.done ?? ''];
    const body = html`${projectTabs(project, 'docs')}${done ? notice('success', done) : ''}
${indexStatus(viewer, project, state)}
${searchSection(base, places, query, hits)}
${pageList(places, listed.pages, { previous: offset > 0 ? at(Math.max(0, offset - pageSize)) : null, next: listed.hasMore ? at(offset + pageSize) : null })}
${surfaceAddresses(project, places)}
${publicSwitch(viewer, project)}`;
    return sendPage(reply, layout({ title: `Docs · ${project.name}`, viewer, section: 'projects', body }));
  });

  // Owners and members alike, as for the project's other settings.
  scope.post<{ Params: { projectId: string } }>('/projects/:projectId/docs/refresh', async (request, reply) => {
    const project = await viewerProject(context, request, request.params.projectId);
    await context.docs.requestBuild(project.id);
    return reply.redirect(`/dashboard/projects/${project.id}/docs?done=refresh`, 303);
  });

  scope.post<{ Params: { projectId: string } }>('/projects/:projectId/docs/public', async (request, reply) => {
    const project = await viewerProject(context, request, request.params.projectId);
    const choice = field(formOf(request), 'docsPublic');
    if (choice !== 'on' && choice !== 'off') throw invalidRequest('Say whether the docs are public: docsPublic is on or off.');
    // Saved as the settings form saves it, so the same checks apply.
    const result = await saveProjectSettings(dependencies, project, { docsPublic: choice === 'on' });
    if (!result.ok) throw invalidRequest(result.problem.message);
    return reply.redirect(`/dashboard/projects/${project.id}/docs?done=${choice === 'on' ? 'public' : 'private'}`, 303);
  });
}
