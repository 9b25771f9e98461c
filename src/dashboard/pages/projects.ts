import type { FastifyInstance } from 'fastify';
import { listProjects, parseAssetExtensions, type ProjectSettings } from '../../accounts/projects.ts';
import type { ProjectRow } from '../../storage/tables/accounts.ts';
import type { AppContext } from '../../http/context.ts';
import { createCheckedProject, saveProjectSettings, type SettingsProblem } from '../../projects/settings.ts';
import { baseUrl, field, formOf, viewerOf, viewerProject } from '../auth.ts';
import { html, type Html } from '../html.ts';
import { csrfField, layout, notice, projectTabs, sendPage, type Viewer } from '../layout.ts';
import { readinessChecklist } from './readiness.ts';
import { displayRepository } from '../../lib/display-repository.ts';

interface FormValues {
  name: string;
  repository: string;
  ref: string;
  docsPath: string;
  model: string;
  assistantModel: string;
  trackerDomains: string;
  /** `on` (static assets are not views) or `off`; '' when the form did not say, which leaves the setting as it is. */
  skipAssets: string;
  assetExtensions: string;
  siteUrl: string;
  /** `on` (anonymous requests are answered) or `off`; '' leaves the setting as it is, as for skipAssets. */
  docsPublic: string;
  /** '' leaves the name as it is (a new project gets the default). */
  mcpName: string;
}

/** A select's `on`/`off`, or '' when the form did not send one. */
const onOffField = (form: URLSearchParams, name: string) => (['on', 'off'].includes(field(form, name)) ? field(form, name) : '');

function valuesOf(project: ProjectRow): FormValues {
  return {
    name: project.name,
    repository: project.repository === null ? '' : displayRepository(project.repository),
    ref: project.ref ?? '',
    docsPath: project.docs_path ?? '',
    model: project.model ?? '',
    assistantModel: project.assistant_model ?? '',
    trackerDomains: project.tracker_domains.split(',').filter(Boolean).join(', '),
    skipAssets: project.skip_assets === 0 ? 'off' : 'on',
    assetExtensions: project.asset_extensions.split(' ').filter(Boolean).join(', '),
    siteUrl: project.site_url ?? '',
    docsPublic: project.docs_public === 1 ? 'on' : 'off',
    mcpName: project.mcp_name ?? '',
  };
}

function readForm(form: URLSearchParams): FormValues {
  return {
    name: field(form, 'name'),
    repository: field(form, 'repository'),
    ref: field(form, 'ref'),
    docsPath: field(form, 'docsPath'),
    model: field(form, 'model'),
    assistantModel: field(form, 'assistantModel'),
    trackerDomains: field(form, 'trackerDomains'),
    skipAssets: onOffField(form, 'skipAssets'),
    assetExtensions: field(form, 'assetExtensions'),
    siteUrl: field(form, 'siteUrl'),
    docsPublic: onOffField(form, 'docsPublic'),
    mcpName: field(form, 'mcpName'),
  };
}

/** Empty fields clear a setting, as `""` does in the CLI. */
function settingsOf(values: FormValues): ProjectSettings & { name: string } {
  return {
    name: values.name,
    repository: values.repository || null,
    ref: values.ref || null,
    docsPath: values.docsPath || null,
    model: values.model || null,
    assistantModel: values.assistantModel || null,
    trackerDomains: values.trackerDomains.split(/[\s,]+/).filter(Boolean),
    skipAssets: values.skipAssets === '' ? undefined : values.skipAssets === 'on',
    assetExtensions: assetExtensionsOf(values.assetExtensions),
    siteUrl: values.siteUrl || null,
    docsPublic: values.docsPublic === '' ? undefined : values.docsPublic === 'on',
    mcpName: values.mcpName || undefined,
  };
}

/** The extension changes typed, or the text as typed when it is not one, for checkProjectSettings to say why. */
function assetExtensionsOf(text: string): string[] {
  const changes = parseAssetExtensions(text);
  return 'problem' in changes ? [text] : changes;
}

/** A problem with one field of the project form, shown beside that field. */
type FieldProblem = SettingsProblem;

/** An empty name is the form's own problem: the API and the CLI never send one. */
const emptyName: FieldProblem = { field: 'name', message: 'Give the project a name.' };

function input(name: keyof FormValues, label: string, values: FormValues, hint: string, problem: FieldProblem | undefined, extra: Html | string = ''): Html {
  const invalid = problem?.field === name;
  return html`<label for="project-${name}">${label}</label>
<input id="project-${name}" name="${name}" value="${values[name]}" aria-describedby="${invalid ? `project-${name}-error ` : ''}project-${name}-hint"${invalid ? html` aria-invalid="true"` : ''}${extra}>
<p class="hint" id="project-${name}-hint">${hint}</p>${invalid ? html`<p class="field-error" id="project-${name}-error" role="alert">${problem.message}</p>` : ''}`;
}

function projectForm(viewer: Viewer, action: string, values: FormValues, submit: string, problem?: FieldProblem): Html {
  return html`<form method="post" action="${action}" class="stack">${csrfField(viewer)}
${input('name', 'Name', values, 'Shown on the dashboard.', problem, html` required maxlength="200"`)}
${input('repository', 'Repository', values, 'https:// URL of the documentation repository (or a file:// URL or absolute path of a local one).', problem)}
${input('ref', 'Ref', values, 'Branch agent jobs start from; empty uses the repository default branch.', problem)}
${input('docsPath', 'Docs path', values, 'Folder of the documentation inside the repository; empty means the whole repository.', problem)}
${input('model', 'Model', values, 'provider:model, for example anthropic:claude-sonnet-4-5; empty uses the server default (QUIRE_MODEL).', problem)}
${input('assistantModel', 'Assistant model', values, 'provider:model the docs assistant answers readers with; empty uses the model above.', problem)}
${input('trackerDomains', 'Allowed tracker domains', values, 'Host names the browser tracker may report from, separated by commas (docs.example.com, *.example.com).', problem)}
<label for="project-skipAssets">Static assets in logs, drains and the proxy</label>
<select id="project-skipAssets" name="skipAssets" aria-describedby="project-skipAssets-hint">
<option value="on"${values.skipAssets === 'off' ? '' : html` selected`}>Not counted as views</option>
<option value="off"${values.skipAssets === 'off' ? html` selected` : ''}>Counted as views</option>
</select>
<p class="hint" id="project-skipAssets-hint">Requests for images, scripts, styles and fonts. The events API and the browser tracker are not affected.</p>
${input('assetExtensions', 'Asset extension changes', values, 'Changes to the list of asset extensions, separated by commas: +pdf makes PDF downloads assets, -svg counts SVG files as pages.', problem)}
${input('siteUrl', 'Docs site URL', values, 'The public address of the docs site (https://docs.example.com), used in citations and links; empty uses the project’s pages on Quire.', problem)}
<label for="project-docsPublic">Who may read the docs through Quire</label>
<select id="project-docsPublic" name="docsPublic" aria-describedby="project-docsPublic-hint">
<option value="off"${values.docsPublic === 'on' ? '' : html` selected`}>Only with an assistant or API key</option>
<option value="on"${values.docsPublic === 'on' ? html` selected` : ''}>Anyone (public docs)</option>
</select>
<p class="hint" id="project-docsPublic-hint">Search, pages, llms.txt and the MCP server. The assistant always needs a key.</p>
${input('mcpName', 'MCP name', values, 'Names the MCP tools (search_{name}): lower-case letters, digits and underscores, unique in the organization; empty keeps the current one.', problem, html` maxlength="40"`)}
<button type="submit" class="primary">${submit}</button>
</form>`;
}

function trackerSnippet(base: string, project: ProjectRow): Html {
  const snippet = `<script defer src="${base}/script.js" data-project="${project.id}"></script>`;
  return html`<section aria-labelledby="tracker"><h2 id="tracker">Tracker snippet</h2>
<p>Paste this into the <code>&lt;head&gt;</code> of every page of your documentation site to count its visitors. Add the site's host name to the allowed tracker domains above.</p>
<div class="copyable"><pre><code>${snippet}</code></pre><button type="button" data-copy="${snippet}" aria-label="Copy the tracker snippet">Copy</button></div></section>`;
}

async function listPage(context: AppContext, viewer: Viewer, values: FormValues, problem?: FieldProblem): Promise<Html> {
  const projects = await listProjects(context.storage.db, viewer.orgId);
  const rows = projects.map(
    (
      project,
    ) => html`<tr><td><a href="/dashboard/projects/${project.id}">${project.name}</a></td><td><code>${project.id}</code></td><td>${project.repository === null ? '–' : displayRepository(project.repository)}</td>
<td><a href="/dashboard/projects/${project.id}/docs">Docs<span class="visually-hidden"> of ${project.name}</span></a> · <a href="/dashboard/projects/${project.id}/jobs">Jobs<span class="visually-hidden"> of ${project.name}</span></a> · <a href="/dashboard/projects/${project.id}/analytics">Analytics<span class="visually-hidden"> of ${project.name}</span></a></td></tr>`,
  );
  const body = html`
<div class="scroll"><table><thead><tr><th scope="col">Name</th><th scope="col">Project id</th><th scope="col">Repository</th><th scope="col">Pages</th></tr></thead><tbody>${rows}</tbody></table></div>
<h2 id="create">Create a project</h2>${projectForm(viewer, '/dashboard/projects', values, 'Create project', problem)}`;
  return layout({ title: 'Projects', viewer, section: 'projects', body });
}

async function settingsPage(
  context: AppContext,
  viewer: Viewer,
  base: string,
  project: ProjectRow,
  values: FormValues,
  message?: Html,
  problem?: FieldProblem,
): Promise<Html> {
  const body = html`${projectTabs(project, 'settings')}${message ?? ''}
<p>Project id: <span class="copyable"><code>${project.id}</code> <button type="button" data-copy="${project.id}" aria-label="Copy the project id">Copy</button></span></p>
${await readinessChecklist(context, project)}
${projectForm(viewer, `/dashboard/projects/${project.id}`, values, 'Save changes', problem)}
${trackerSnippet(base, project)}`;
  return layout({ title: project.name, viewer, section: 'projects', body });
}

export function projectPages(scope: FastifyInstance, context: AppContext): void {
  const empty: FormValues = {
    name: '',
    repository: '',
    ref: '',
    docsPath: '',
    model: '',
    assistantModel: '',
    trackerDomains: '',
    skipAssets: 'on',
    assetExtensions: '',
    siteUrl: '',
    docsPublic: 'off',
    mcpName: '',
  };
  const dependencies = { db: context.storage.db, config: context.config, events: context.events };

  scope.get('/projects', async (request, reply) => sendPage(reply, await listPage(context, viewerOf(request), empty)));

  scope.post('/projects', async (request, reply) => {
    const viewer = viewerOf(request);
    const values = readForm(formOf(request));
    const settings = settingsOf(values);
    const result = settings.name === '' ? { ok: false as const, problem: emptyName } : await createCheckedProject(dependencies, viewer.orgId, settings);
    if (!result.ok) return sendPage(reply, await listPage(context, viewer, values, result.problem), 400);
    return reply.redirect(`/dashboard/projects/${result.project.id}?saved=created`, 303);
  });

  scope.get<{ Params: { projectId: string }; Querystring: { saved?: string } }>('/projects/:projectId', async (request, reply) => {
    const project = await viewerProject(context, request, request.params.projectId);
    const saved = request.query.saved === 'created' ? 'Project created.' : request.query.saved === 'updated' ? 'Changes saved.' : undefined;
    return sendPage(
      reply,
      await settingsPage(context, viewerOf(request), baseUrl(context, request), project, valuesOf(project), saved ? notice('success', saved) : undefined),
    );
  });

  scope.post<{ Params: { projectId: string } }>('/projects/:projectId', async (request, reply) => {
    const project = await viewerProject(context, request, request.params.projectId);
    const values = readForm(formOf(request));
    const settings = settingsOf(values);
    // An unchanged repository is checked again when a job runs, not on every edit of the name (projects/settings.ts).
    const result = settings.name === '' ? { ok: false as const, problem: emptyName } : await saveProjectSettings(dependencies, project, settings);
    if (!result.ok)
      return sendPage(reply, await settingsPage(context, viewerOf(request), baseUrl(context, request), project, values, undefined, result.problem), 400);
    return reply.redirect(`/dashboard/projects/${project.id}?saved=updated`, 303);
  });
}
