import { Type } from 'typebox';
import { agentCategories } from '../ingest/agents/load.ts';
import { referrerCategories } from '../ingest/referrers.ts';
import { ExportQuery, RangeQuery } from './schemas.ts';

const count = (description: string) => Type.Integer({ minimum: 0, description });

export const AgentsQuery = Type.Object(
  {
    ...RangeQuery.properties,
    category: Type.Optional(Type.Enum(agentCategories, { description: 'Only agents of this category (totals too).' })),
    filter: ExportQuery.properties.filter,
  },
  { additionalProperties: false },
);

export const ReferrersQuery = Type.Object({ ...RangeQuery.properties, filter: ExportQuery.properties.filter }, { additionalProperties: false });

export const SeriesQuery = Type.Object(
  {
    dateFrom: RangeQuery.properties.dateFrom,
    dateTo: RangeQuery.properties.dateTo,
    measure: Type.Optional(
      Type.Union([Type.Literal('visitors'), Type.Literal('views')], { default: 'visitors', description: 'Unique visitors within each day, or views.' }),
    ),
    filter: ExportQuery.properties.filter,
    compare: ExportQuery.properties.compare,
  },
  { additionalProperties: false },
);

const Totals = Type.Object(
  { visitors: count('Distinct visitors over the range and every row (not a sum of rows).'), views: count('Views over the range.') },
  { description: 'Over the whole range and every row, not only this page.' },
);
const hasMore = Type.Boolean({ description: 'True when rows exist beyond `offset` + this page.' });

export const AgentsResult = Type.Object({
  totals: Totals,
  agents: Type.Array(
    Type.Object({
      agent: Type.String({
        description: 'The agent’s name (its user-agent token), or the kind of client for Markdown fetches by clients that are not known agents.',
      }),
      operator: Type.Union([Type.String(), Type.Null()], { description: 'Who runs the agent; null when unknown.' }),
      category: Type.Enum(agentCategories),
      visitors: count('Distinct visitors (not spoofed).'),
      views: count('AI views, spoofed ones excluded.'),
      verifiedViews: count('Of `views`, those whose IP or signature proved the agent’s claim.'),
      spoofedViews: count('Views claiming this agent whose claim failed verification; counted nowhere else.'),
      mcpViews: count('Of `views`, pages that a docs MCP server (`/sites/{projectId}/mcp`) returned to the agent.'),
    }),
  ),
  hasMore,
});

export const ReferrersResult = Type.Object({
  totals: Totals,
  referrers: Type.Array(
    Type.Object({
      referrer: Type.String({ description: 'The referring site’s host, lower case, `www.` dropped.' }),
      category: Type.Enum(referrerCategories),
      visitors: count('Distinct human visitors it sent.'),
      views: count('Human views it sent.'),
    }),
  ),
  hasMore,
});

const Series = Type.Array(
  Type.Object({
    date: Type.String({ description: 'The UTC day, `YYYY-MM-DD`.' }),
    human: count('Human visitors (or views) that day.'),
    ai: count('AI visitors (or views) that day.'),
    total: count('Visitors seen as either, counted once (views: human + ai).'),
  }),
);

export const SeriesResult = Type.Object({
  measure: Type.Union([Type.Literal('visitors'), Type.Literal('views')]),
  interval: Type.Literal('day'),
  series: Series,
  previous: Type.Optional(
    Type.Object({ series: Series }, { description: 'With `compare=previous_period`: the series of the range of the same length just before.' }),
  ),
});
