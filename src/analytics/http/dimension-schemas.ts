import { Type } from 'typebox';
import { invalidRequest } from '../../http/errors.ts';
import { isStorableText } from '../../lib/storable-text.ts';
import { breakdownProperties, filterProperties, type Filter, type FilterProperty } from '../query/dimensions.ts';
import { ExportQuery, RangeQuery } from './schemas.ts';

const count = (description: string) => Type.Integer({ minimum: 0, description });

/** `filter=property==value`, repeatable: each must hold. */
export const FilterParameter = ExportQuery.properties.filter;

/** Parses the `filter` parameters; a malformed one is a 400 that says what a filter looks like. */
export function parseFilters(raw: string | string[] | undefined): Filter[] {
  if (raw === undefined) return [];
  const list = Array.isArray(raw) ? raw : [raw];
  return list.map((text, index) => {
    const at = text.indexOf('==');
    const property = at < 0 ? '' : text.slice(0, at);
    const value = at < 0 ? '' : text.slice(at + 2);
    if (!(filterProperties as readonly string[]).includes(property) || value === '' || value.length > 500 || !isStorableText(value))
      throw invalidRequest(
        `filter "${text.slice(0, 80)}" is not property==value: give one of ${filterProperties.join(', ')}, then ==, then a value (e.g. filter=country==DE).`,
        [{ path: `/filter/${index}`, message: 'must be property==value with a known property and a value of 1 to 500 characters, without NUL' }],
      );
    return { property: property as FilterProperty, value };
  });
}

export const BreakdownQuery = Type.Object(
  {
    ...RangeQuery.properties,
    // Required; checked after the project, so another organization's project is "not found" before anything else.
    property: Type.Optional(Type.Enum(breakdownProperties, { description: 'What to break views down by (required).' })),
    class: Type.Optional(Type.Enum(['human', 'ai', 'all'] as const, { default: 'all', description: 'Human views, AI views, or both (default).' })),
    filter: FilterParameter,
  },
  { additionalProperties: false },
);

const Totals = Type.Object(
  { visitors: count('Distinct visitors over the range (not a sum of rows).'), views: count('Views over the range (for `entry_page`, entrances).') },
  { description: 'Over the whole range and every row, not only this page.' },
);

export const BreakdownResult = Type.Object({
  totals: Totals,
  results: Type.Array(
    Type.Object({
      value: Type.String({ description: 'The country (ISO 3166-1 alpha-2), browser, OS, device, source host or entry page.' }),
      visitors: count('Distinct visitors with this value.'),
      views: count('Views with this value; for `entry_page`, visits that began on the page.'),
    }),
  ),
  hasMore: Type.Boolean({ description: 'True when rows exist beyond `offset` + this page.' }),
});

const ClassCounts = Type.Object({ human: count('Human visitors.'), ai: count('AI visitors.'), total: count('Visitors seen as either, counted once.') });

export const RealtimeResult = Type.Object({
  visitors: ClassCounts,
  pages: Type.Array(Type.Object({ path: Type.String(), visitors: count('Distinct visitors of the page in the last five minutes.') }), {
    description: 'Up to 50 pages, by visitors descending then path.',
  }),
});
