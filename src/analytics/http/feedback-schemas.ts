import { Type } from 'typebox';
import { ProjectParams } from '../../http/schemas.ts';
import { RangeQuery } from './schemas.ts';
import { feedbackSources, feedbackStatuses } from '../feedback/kinds.ts';

const range = { dateFrom: RangeQuery.properties.dateFrom, dateTo: RangeQuery.properties.dateTo };
const list = (names: readonly string[], what: string) =>
  Type.Optional(Type.String({ maxLength: 200, description: `Only these ${what}, as a comma list of ${names.map((name) => `\`${name}\``).join(', ')}.` }));
const cursor = Type.Optional(Type.String({ maxLength: 1000, description: 'The `nextCursor` of the previous page; leave it out for the first page.' }));

export const FeedbackQuery = Type.Object(
  {
    ...range,
    source: list(feedbackSources, 'sources'),
    status: list(feedbackStatuses, 'statuses'),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50, description: 'Items per page, 1 to 100.' })),
    cursor,
  },
  { additionalProperties: false },
);

export const ByPageQuery = Type.Object(
  {
    ...range,
    source: list(feedbackSources, 'sources'),
    status: list(feedbackStatuses, 'statuses'),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 250, default: 10, description: 'Pages per answer, 1 to 250.' })),
    offset: Type.Optional(
      Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0, description: 'Pages to skip; the next page is `offset + limit`.' }),
    ),
  },
  { additionalProperties: false },
);

export const SearchesQuery = Type.Object(
  { ...range, limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50, description: 'Queries per page, 1 to 100.' })), cursor },
  { additionalProperties: false },
);

export const FeedbackParams = Type.Object({
  projectId: ProjectParams.properties.projectId,
  id: Type.String({ minLength: 1, maxLength: 64, description: 'Feedback id (`fbk_…`).' }),
});

export const StatusBody = Type.Object({ status: Type.Enum(feedbackStatuses, { description: 'The new triage status.' }) }, { additionalProperties: false });

const optionalText = (description: string) => Type.Optional(Type.String({ description }));
export const FeedbackItem = Type.Object({
  id: Type.String({ description: 'Feedback id (`fbk_…`).' }),
  path: Type.String({ description: 'Normalized page path.' }),
  comment: Type.String({ description: 'The reader’s comment as plain text (`""` when none); render it escaped.' }),
  createdAt: Type.String({ description: 'When the reader sent it (ISO 8601, UTC).' }),
  source: Type.Enum(feedbackSources),
  status: Type.Enum(feedbackStatuses),
  helpful: Type.Optional(Type.Boolean({ description: 'Thumbs up (true) or down (false); absent when the reader gave neither.' })),
  contact: optionalText('What the reader typed into a contact field; absent otherwise (never inferred).'),
  code: optionalText('The code snippet the feedback is about.'),
  filename: optionalText('The snippet’s file name, when the page shows one.'),
  lang: optionalText('The snippet’s language.'),
});

export const FeedbackResult = Type.Object({
  feedback: Type.Array(FeedbackItem),
  nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` for the next page; null on the last page.' }),
  hasMore: Type.Boolean(),
});

const count = (description: string) => Type.Integer({ minimum: 0, description });
export const ByPageResult = Type.Object({
  feedback: Type.Array(
    Type.Object({
      path: Type.String(),
      thumbsUp: count('Items with helpful = true.'),
      thumbsDown: count('Items with helpful = false.'),
      code: count('Items of source `code_snippet`.'),
      total: count('All items of the filter on this page.'),
    }),
  ),
  hasMore: Type.Boolean({ description: 'True when pages exist beyond `offset` + this answer.' }),
});

export const SearchesResult = Type.Object({
  searches: Type.Array(
    Type.Object({
      searchQuery: Type.String({ description: 'The normalized query (NFKC, lower case, spaces collapsed, at most 200 characters).' }),
      searches: count('Searches for it in the range.'),
      hits: count('Results shown by its latest search in the range.'),
      ctr: Type.Number({ minimum: 0, maximum: 1, description: 'Searches followed by a click, over searches (4 decimals).' }),
      topClickedPage: Type.Union([Type.String(), Type.Null()], { description: 'The page its searches clicked most; null when none was clicked.' }),
      lastSearchedAt: Type.String({ description: 'Its latest search in the range (ISO 8601, UTC).' }),
    }),
  ),
  totalSearches: count('All searches of the range.'),
  nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` for the next page; null on the last page.' }),
});
