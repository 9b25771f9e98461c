import type { Filter, FilterProperty } from '../../analytics/query/dimensions.ts';
import { html, type Html } from '../html.ts';

/**
 * What the analytics page shows, as its URL says it: the range (both days included), the filters
 * (`filter=property==value`, as in the API) and whether the previous period is drawn beside it. Every
 * link on the page is built from it, so a reload or a shared URL shows the same numbers.
 */
export interface AnalyticsView {
  base: string;
  from: string;
  to: string;
  filters: Filter[];
  compare: boolean;
}

const propertyNames: Record<FilterProperty, string> = {
  path: 'Page',
  country: 'Country',
  browser: 'Browser',
  os: 'OS',
  device: 'Device',
  source: 'Source',
  agent: 'AI agent',
  category: 'AI category',
};

/** The view's query string, with `changes` applied. */
export function viewQuery(view: AnalyticsView, changes: Partial<Omit<AnalyticsView, 'base'>> = {}): string {
  const next = { ...view, ...changes };
  const query = new URLSearchParams({ from: next.from, to: next.to });
  for (const filter of next.filters) query.append('filter', `${filter.property}==${filter.value}`);
  if (next.compare) query.set('compare', 'previous_period');
  return query.toString();
}

export const viewHref = (view: AnalyticsView, changes: Partial<Omit<AnalyticsView, 'base'>> = {}) => `${view.base}?${viewQuery(view, changes)}`;

/**
 * A table's first cell: the value as a link that adds its filter to everything on the page. A filter
 * on the same property is replaced (a page is not both /a and /b); one already active is plain text.
 */
export function filterCell(view: AnalyticsView, property: FilterProperty, value: string, label: string): Html {
  const active = view.filters.some((filter) => filter.property === property && filter.value === value);
  const content = active
    ? html`${value}`
    : html`<a href="${viewHref(view, { filters: [...view.filters.filter((filter) => filter.property !== property), { property, value }] })}" class="filter-link" title="Show only views where ${propertyNames[property].toLowerCase()} is ${value}">${value}</a>`;
  return html`<td data-label="${label}">${content}</td>`;
}

/** The active filters as chips, each with a link that removes it. */
export function filterChips(view: AnalyticsView): Html {
  if (view.filters.length === 0) return html``;
  const chips = view.filters.map((filter, index) => {
    const name = `${propertyNames[filter.property]} is ${filter.value}`;
    return html`<li class="chip">${name} <a href="${viewHref(view, { filters: view.filters.filter((_, other) => other !== index) })}" aria-label="Remove filter: ${name}" title="Remove this filter">×</a></li>`;
  });
  return html`<section class="active-filters" aria-label="Active filters"><p>Showing only views where:</p><ul class="chips">${chips}</ul><p><a href="${viewHref(view, { filters: [] })}">Clear all filters</a></p></section>`;
}
