import { dimensionBreakdown, type BreakdownProperty, type DimensionPage } from '../../analytics/query/dimensions.ts';
import type { AppContext } from '../../http/context.ts';
import { html, type Html } from '../html.ts';

const tables: { property: BreakdownProperty; title: string; column: string }[] = [
  { property: 'country', title: 'Countries', column: 'Country' },
  { property: 'source', title: 'Sources', column: 'Source' },
  { property: 'entry_page', title: 'Entry pages', column: 'Page' },
  { property: 'device', title: 'Devices', column: 'Device' },
  { property: 'browser', title: 'Browsers', column: 'Browser' },
  { property: 'os', title: 'Operating systems', column: 'OS' },
];

function table(id: string, column: string, result: DimensionPage, entrances: boolean): Html {
  if (result.results.length === 0) return html`<p>No views in this range.</p>`;
  const rows = result.results.map(
    (row) =>
      html`<tr><td data-label="${column}">${row.value}</td><td class="number" data-label="Visitors">${row.visitors}</td><td class="number" data-label="${entrances ? 'Entrances' : 'Views'}">${row.views}</td></tr>`,
  );
  return html`<div class="scroll"><table id="${id}" class="stacked"><thead><tr><th scope="col">${column}</th><th scope="col" class="number">Visitors</th><th scope="col" class="number">${entrances ? 'Entrances' : 'Views'}</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

/** Countries, sources (direct included), entry pages, devices, browsers and OS: the top ten of each, human and AI views together. */
export async function dimensionSections(context: AppContext, projectId: string, from: number, to: number): Promise<Html> {
  const sections: Html[] = [];
  for (const { property, title, column } of tables) {
    const result = await dimensionBreakdown(context.analytics, projectId, { from, to, filters: [], property, viewClass: 'all', limit: 10, offset: 0 });
    sections.push(
      html`<section class="dimension"><h2>${title}</h2>${table(`by-${property.replace('_', '-')}`, column, result, property === 'entry_page')}</section>`,
    );
  }
  return html`<div class="dimensions">${sections}</div>`;
}
