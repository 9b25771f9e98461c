import { Type } from 'typebox';

const bound = (description: string) => Type.String({ maxLength: 64, description });

export const RangeQuery = Type.Object(
  {
    dateFrom: Type.Optional(bound('Inclusive start: `YYYY-MM-DD` (midnight UTC) or an ISO 8601 date-time with offset. Default: 7 days before `dateTo`.')),
    dateTo: Type.Optional(bound('Exclusive end, same formats. Default: now.')),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 250, default: 50, description: 'Paths per page, 1 to 250.' })),
    offset: Type.Optional(
      Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0, description: 'Paths to skip; the next page is `offset + limit`.' }),
    ),
  },
  { additionalProperties: false },
);

/** `/visitors` and `/views`: a range and page, filters and a comparison. */
export const ExportQuery = Type.Object(
  {
    ...RangeQuery.properties,
    filter: Type.Optional(
      Type.Union([Type.String({ maxLength: 600 }), Type.Array(Type.String({ maxLength: 600 }), { maxItems: 10 })], {
        description:
          '`property==value`, repeatable (all must hold, exact match); properties: `path`, `country`, `browser`, `os`, `device`, `source`, `agent`, `category`.',
      }),
    ),
    compare: Type.Optional(
      Type.Literal('previous_period', { description: 'Adds `previous.totals`: the same totals for the range of the same length just before.' }),
    ),
  },
  { additionalProperties: false },
);

const count = (description: string) => Type.Integer({ minimum: 0, description });
const Counts = {
  human: count('Unique human visitors (views on `/views`).'),
  ai: count('Unique AI visitors (views on `/views`).'),
  total: count('Unique visitors across human and AI, deduplicated by visitor (on `/views`, human + ai).'),
};
const Totals = Type.Object(Counts, { description: 'Site-wide counts over the range, distinct over the whole site (not sums of pages).' });
const PathCounts = Type.Object({ path: Type.String({ description: 'Normalized page path.' }), ...Counts });

const Previous = Type.Optional(
  Type.Object({ totals: Totals }, { description: 'With `compare=previous_period`: the totals of the range of the same length just before.' }),
);

export const VisitorsResult = Type.Object({
  totals: Totals,
  previous: Previous,
  visitors: Type.Array(PathCounts),
  hasMore: Type.Boolean({ description: 'True when paths exist beyond `offset` + this page.' }),
});
export const ViewsResult = Type.Object({
  totals: Totals,
  previous: Previous,
  views: Type.Array(PathCounts),
  hasMore: Type.Boolean({ description: 'True when paths exist beyond `offset` + this page.' }),
});

export const IngestBody = Type.Object(
  {
    events: Type.Array(Type.Unknown(), {
      description:
        'Events `{timestamp?, path, userAgent?, ip?, visitorId?, accept?, referrer?, status?, headers?, contentType?}`; each is checked on its own. `contentType` is the Content-Type of the response, where known (at most 256 characters). `headers` (at most 32 request header names to string values) lets a Web Bot Auth signature verify the view; headers are never stored.',
    }),
  },
  { additionalProperties: false },
);

export const IngestResult = Type.Object({
  accepted: Type.Integer({ description: 'Events stored (durable when this response is sent).' }),
  rejected: Type.Integer({ description: 'Events refused; see `errors`.' }),
  errors: Type.Array(
    Type.Object({ index: Type.Integer({ description: 'Position of the event (or NDJSON line) in the request, from 0.' }), message: Type.String() }),
  ),
});
