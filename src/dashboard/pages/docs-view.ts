import type { AppContext } from '../../http/context.ts';
import type { ProjectRow } from '../../storage/tables/accounts.ts';
import { html, time, type Html } from '../html.ts';
import { csrfField, notice, type Viewer } from '../layout.ts';

type DocsReader = AppContext['docs'];
type DocsOverview = Awaited<ReturnType<DocsReader['state']>>;
type PageSummary = Awaited<ReturnType<DocsReader['pages']>>['pages'][number];
type SearchHit = Awaited<ReturnType<DocsReader['search']>>[number];

/** Where the project's docs are read: the docs site (`siteUrl`) and the site surface on Quire. */
export interface DocsPlaces {
  siteUrl: string;
  surface: string;
}

/** The surface serves the root page's Markdown as `/index.md`, every other page's as `{route}.md`. */
const markdownPath = (route: string) => (route === '/' ? '/index.md' : `${route}.md`);

const action = (project: ProjectRow, name: string) => `/dashboard/projects/${project.id}/docs/${name}`;

export function indexStatus(viewer: Viewer, project: ProjectRow, state: DocsOverview): Html {
  const failed = state.error ? notice('error', html`The last build failed: ${state.error}`) : '';
  const pageErrors = state.pageErrors.length
    ? html`<details open><summary>${state.pageErrors.length} ${state.pageErrors.length === 1 ? 'page' : 'pages'} could not be read</summary>
<ul class="files" id="page-errors">${state.pageErrors.map((error) => html`<li><code>${error.path}</code>: ${error.message}</li>`)}</ul></details>`
    : '';
  return html`<section aria-labelledby="index-status"><h2 id="index-status">Index</h2>
<dl class="job">
<dt>Status</dt><dd><span class="badge ${state.status}" id="docs-status">${state.status}</span></dd>
<dt>Commit</dt><dd>${state.commit ? html`<code>${state.commit}</code>` : '–'}</dd>
<dt>Built</dt><dd>${time(state.builtAt)}</dd>
<dt>Pages</dt><dd>${state.pages}</dd>
<dt>Sections</dt><dd>${state.sections}</dd>
</dl>${failed}${pageErrors}
<form method="post" action="${action(project, 'refresh')}">${csrfField(viewer)}<button type="submit">Refresh</button></form>
<p class="hint">Builds the index again from the repository at its ref; pages keep being served from the last build meanwhile.</p></section>`;
}

/** Consecutive pages of one navigation group, in navigation order. */
function groupsOf(pages: PageSummary[]): { name: string; pages: PageSummary[] }[] {
  const groups: { name: string; pages: PageSummary[] }[] = [];
  for (const page of pages) {
    const last = groups.at(-1);
    if (last?.name === page.group) last.pages.push(page);
    else groups.push({ name: page.group, pages: [page] });
  }
  return groups;
}

export function pageList(places: DocsPlaces, pages: PageSummary[], paging: { previous: string | null; next: string | null }): Html {
  if (pages.length === 0) return html`<h2>Pages</h2><p>The index has no pages yet.</p>`;
  const row = (page: PageSummary) =>
    html`<tr><td>${page.title}${page.hidden ? html` <span class="hint">(hidden)</span>` : ''}</td><td><code>${page.route}</code></td>
<td><a href="${places.siteUrl}${page.route}">Page<span class="visually-hidden"> ${page.title}</span></a> · <a href="${places.surface}${markdownPath(page.route)}">Markdown<span class="visually-hidden"> of ${page.title}</span></a></td></tr>`;
  const groups = groupsOf(pages).map(
    (group) => html`<h3>${group.name}</h3>
<div class="scroll"><table class="docs-pages"><thead><tr><th scope="col">Title</th><th scope="col">Route</th><th scope="col">Links</th></tr></thead><tbody>${group.pages.map(row)}</tbody></table></div>`,
  );
  const links = [paging.previous && html`<a href="${paging.previous}">Previous pages</a>`, paging.next && html`<a href="${paging.next}">Next pages</a>`];
  return html`<h2>Pages</h2>${groups}${paging.previous || paging.next ? html`<p class="actions">${links}</p>` : ''}`;
}

/** Some of the section's text around the first word searched for, Markdown marks left out. */
function snippet(markdown: string, query: string): string {
  const text = markdown
    .replace(/```[^\n]*|[#*`>]+|!?\[([^\]]*)\]\([^)]*\)/g, (_match, label: string | undefined) => label ?? ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const lower = text.toLowerCase();
  const found = Math.min(
    ...query
      .toLowerCase()
      .split(/\W+/)
      .filter(Boolean)
      .map((word) => lower.indexOf(word))
      .filter((at) => at >= 0),
    text.length,
  );
  const start = found === text.length || found < 60 ? 0 : found - 60;
  const cut = text.slice(start, start + 240);
  return `${start > 0 ? '…' : ''}${cut}${start + 240 < text.length ? '…' : ''}`;
}

export function searchSection(base: string, places: DocsPlaces, query: string, hits: SearchHit[]): Html {
  const result = (hit: SearchHit) => html`<li><a href="${places.siteUrl}${hit.route}${hit.anchor ? `#${hit.anchor}` : ''}">${hit.title}${
    hit.heading && hit.heading !== hit.title ? html` › ${hit.heading}` : ''
  }</a> <span class="hint">score ${hit.score.toFixed(2)}</span>
<p>${snippet(hit.markdown, query)}</p></li>`;
  const results = query
    ? hits.length
      ? html`<ol class="search-results" id="search-results">${hits.map(result)}</ol>`
      : html`<p id="search-results">No sections match “${query}”.</p>`
    : '';
  return html`<section aria-labelledby="docs-search"><h2 id="docs-search">Search</h2>
<form method="get" action="${base}" class="range" role="search">
<label>Search the docs <input type="search" name="q" value="${query}" maxlength="1000"></label>
<button type="submit">Search</button></form>${results}</section>`;
}

function copyable(label: string, value: string): Html {
  return html`<dt>${label}</dt><dd><div class="copyable"><pre><code>${value}</code></pre><button type="button" data-copy="${value}" aria-label="Copy the ${label}">Copy</button></div></dd>`;
}

/** The addresses agents read the docs at, with the lines that configure an MCP client. */
export function surfaceAddresses(project: ProjectRow, places: DocsPlaces): Html {
  const name = project.mcp_name ?? 'docs';
  const mcp = `${places.surface}/mcp`;
  const access =
    project.docs_public === 1
      ? html`<p>The docs are public: anyone may read these addresses.</p>`
      : notice(
          'warning',
          html`The docs are not public: an assistant or agent needs a key, sent as <code>Authorization: Bearer quire_dsc_…</code>. Generate an assistant key on the <a href="/dashboard/keys">API keys page</a>.`,
        );
  return html`<section aria-labelledby="docs-surface"><h2 id="docs-surface">For AI agents</h2>${access}
<dl class="surface">
${copyable('llms.txt URL', `${places.surface}/llms.txt`)}
${copyable('llms-full.txt URL', `${places.surface}/llms-full.txt`)}
${copyable('MCP URL', mcp)}
${copyable('Claude Code command', `claude mcp add --transport http ${name} ${mcp}`)}
${copyable('Cursor mcp.json', `{"mcpServers": {${JSON.stringify(name)}: {"url": ${JSON.stringify(mcp)}}}}`)}
</dl></section>`;
}

export function publicSwitch(viewer: Viewer, project: ProjectRow): Html {
  const isPublic = project.docs_public === 1;
  return html`<section aria-labelledby="docs-public"><h2 id="docs-public">Who may read the docs</h2>
<p id="docs-public-state">${isPublic ? 'Anyone: the docs are public.' : 'Only with an assistant or API key.'}</p>
<form method="post" action="${action(project, 'public')}">${csrfField(viewer)}<input type="hidden" name="docsPublic" value="${isPublic ? 'off' : 'on'}">
<button type="submit">${isPublic ? 'Make the docs private' : 'Make the docs public'}</button></form>
<p class="hint">Search, pages, llms.txt and the MCP server. The assistant always needs a key.</p></section>`;
}
