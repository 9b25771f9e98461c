import { dimensionBreakdown, type BreakdownProperty, type DimensionPage, type Filter, type FilterProperty } from '../../analytics/query/dimensions.ts';
import type { AppContext } from '../../http/context.ts';
import { html, type Html } from '../html.ts';
import { filterCell, type AnalyticsView } from './analytics-view.ts';

const tables: { property: BreakdownProperty; title: string; column: string }[] = [
  { property: 'country', title: 'Countries', column: 'Country' },
  { property: 'source', title: 'Sources', column: 'Source' },
  { property: 'entry_page', title: 'Entry pages', column: 'Page' },
  { property: 'device', title: 'Devices', column: 'Device' },
  { property: 'browser', title: 'Browsers', column: 'Browser' },
  { property: 'os', title: 'Operating systems', column: 'OS' },
];

/** The filter a row's click adds: an entry page filters by its path (the API has no entry-page filter). */
const filterOf = (property: BreakdownProperty): FilterProperty => (property === 'entry_page' ? 'path' : property);

function table(view: AnalyticsView, property: BreakdownProperty, column: string, result: DimensionPage): Html {
  const entrances = property === 'entry_page';
  if (result.results.length === 0) return html`<p>No views in this range.</p>`;
  const rows = result.results.map(
    (row) =>
      html`<tr>${filterCell(view, filterOf(property), row.value, column)}<td class="number" data-label="Visitors">${row.visitors}</td><td class="number" data-label="${entrances ? 'Entrances' : 'Views'}">${row.views}</td></tr>`,
  );
  return html`<div class="scroll"><table id="by-${property.replace('_', '-')}" class="stacked"><thead><tr><th scope="col">${column}</th><th scope="col" class="number">Visitors</th><th scope="col" class="number">${entrances ? 'Entrances' : 'Views'}</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

/** Countries, sources (direct included), entry pages, devices, browsers and OS: the top ten of each, human and AI views together. */
export async function dimensionSections(
  context: AppContext,
  view: AnalyticsView,
  projectId: string,
  range: { from: number; to: number; filters: Filter[] },
): Promise<Html> {
  const sections: Html[] = [];
  for (const { property, title, column } of tables) {
    const result = await dimensionBreakdown(context.analytics, projectId, { ...range, property, viewClass: 'all', limit: 10, offset: 0 });
    sections.push(html`<section class="dimension"><h2>${title}</h2>${table(view, property, column, result)}</section>`);
  }
  return html`<div class="dimensions">${sections}</div>`;
}
