import type { AgentRow, Breakdown, ReferrerRow } from '../../analytics/query/breakdowns.ts';
import { dayMs } from '../../analytics/model/days.ts';
import { html, type Html } from '../html.ts';
import { filterCell, viewHref, type AnalyticsView } from './analytics-view.ts';

const isoDay = (at: number) => new Date(at).toISOString().slice(0, 10);
const shown = 10;

/** Links to the usual ranges, each ending today (UTC); on the analytics page they keep its filters and comparison. */
export function rangePresets(target: string | AnalyticsView, today: number): Html {
  const href = (from: string, to: string) => (typeof target === 'string' ? `${target}?from=${from}&to=${to}` : viewHref(target, { from, to }));
  const monthStart = Date.UTC(new Date(today).getUTCFullYear(), new Date(today).getUTCMonth(), 1);
  const presets: [string, number][] = [
    ['Last 7 days', today - 6 * dayMs],
    ['Last 30 days', today - 29 * dayMs],
    ['Last 90 days', today - 89 * dayMs],
    ['This month', monthStart],
  ];
  return html`<nav class="presets" aria-label="Range presets">${presets.map(([label, from]) => html`<a href="${href(isoDay(from), isoDay(today))}">${label}</a> `)}</nav>`;
}

/** AI views by category (views summed over agents, visitors distinct per category) and the top agents. */
export function aiSections(view: AnalyticsView, agents: Breakdown<AgentRow>, categoryVisitors: Map<string, number>): Html {
  const categories = new Map<string, number>();
  for (const row of agents.rows) categories.set(row.category, (categories.get(row.category) ?? 0) + row.views);
  const categoryRows = [...categories]
    .filter(([, views]) => views > 0)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(
      ([category, views]) =>
        html`<tr>${filterCell(view, 'category', category, 'Category')}<td class="number" data-label="Visitors">${categoryVisitors.get(category) ?? 0}</td><td class="number" data-label="Views">${views}</td></tr>`,
    );
  const marks = (row: AgentRow) =>
    html`${row.verifiedViews > 0 ? html`<span class="badge verified" title="Views whose IP or signature proved the claim">✓ ${row.verifiedViews} verified</span>` : ''}${row.spoofedViews > 0 ? html` <span class="badge spoofed" title="Views claiming this agent that failed verification; counted nowhere else">⚠ ${row.spoofedViews} spoofed</span>` : ''}`;
  const agentRows = agents.rows
    .slice(0, shown)
    .map(
      (row) =>
        html`<tr>${filterCell(view, 'agent', row.agent, 'Agent')}<td data-label="Operator">${row.operator ?? '–'}</td><td data-label="Category">${row.category}</td><td class="number" data-label="Visitors">${row.visitors}</td><td class="number" data-label="Views">${row.views}</td><td data-label="Verification">${marks(row)}</td></tr>`,
    );
  return html`<h2>AI traffic by category</h2>
${categoryRows.length ? html`<div class="scroll"><table id="ai-categories" class="stacked"><thead><tr><th scope="col">Category</th><th scope="col" class="number">Visitors</th><th scope="col" class="number">Views</th></tr></thead><tbody>${categoryRows}</tbody></table></div>` : html`<p>No AI views in this range.</p>`}
<h2>Top AI agents</h2>
${agentRows.length ? html`<div class="scroll"><table id="top-agents" class="stacked"><thead><tr><th scope="col">Agent</th><th scope="col">Operator</th><th scope="col">Category</th><th scope="col" class="number">Visitors</th><th scope="col" class="number">Views</th><th scope="col">Verification</th></tr></thead><tbody>${agentRows}</tbody></table></div>` : html`<p>No AI agents in this range.</p>`}`;
}

/** Human views sent by other sites, AI assistants first in the summary. */
export function referralSections(view: AnalyticsView, referrers: Breakdown<ReferrerRow>): Html {
  const fromAssistants = referrers.rows.filter((row) => row.category === 'ai-assistant').reduce((sum, row) => sum + row.views, 0);
  const rows = referrers.rows
    .slice(0, shown)
    .map(
      (row) =>
        html`<tr>${filterCell(view, 'source', row.referrer, 'Site')}<td data-label="Category">${row.category}</td><td class="number" data-label="Visitors">${row.visitors}</td><td class="number" data-label="Views">${row.views}</td></tr>`,
    );
  return html`<h2>Referrals</h2>
<p>Views sent by AI assistants <strong id="ai-referrals">${fromAssistants}</strong> of <strong id="all-referrals">${referrers.totals.views}</strong> referred views.</p>
${rows.length ? html`<div class="scroll"><table id="top-referrers" class="stacked"><thead><tr><th scope="col">Site</th><th scope="col">Category</th><th scope="col" class="number">Visitors</th><th scope="col" class="number">Views</th></tr></thead><tbody>${rows}</tbody></table></div>` : ''}`;
}

/** What to do when a project has no views yet: the tracker snippet, or the events API from a shell. */
export function emptyState(serverUrl: string, projectId: string): Html {
  const snippet = `<script defer src="${serverUrl}/script.js" data-project="${projectId}"></script>`;
  const curl = `curl -X POST ${serverUrl}/v1/analytics/${projectId}/events \\
  -H "Authorization: Bearer $QUIRE_KEY" -H "Content-Type: application/json" \\
  -d '{"events": [{"path": "/guides/setup", "userAgent": "Mozilla/5.0", "visitorId": "reader-1"}]}'`;
  return html`<section id="empty-state" aria-labelledby="no-views"><h2 id="no-views">No views in this range yet</h2>
<p>Count your documentation's visitors with the tracker: paste this into the <code>&lt;head&gt;</code> of every page, and add the site's host name to the project's allowed tracker domains.</p>
<div class="copyable"><pre><code>${snippet}</code></pre><button type="button" data-copy="${snippet}" aria-label="Copy the tracker snippet">Copy</button></div>
<p>Or send views from your server or logs with a key that has the <code>ingest</code> scope:</p>
<div class="copyable"><pre><code>${curl}</code></pre><button type="button" data-copy="${curl}" aria-label="Copy the curl example">Copy</button></div></section>`;
}
