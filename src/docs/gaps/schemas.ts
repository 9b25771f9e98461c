import { Type } from 'typebox';
import { ProjectParams } from '../../http/schemas.ts';
import { gapStatuses } from './store.ts';

const dateBound = (what: string) =>
  Type.Optional(Type.String({ maxLength: 64, description: `${what}: a date (\`2026-11-21\`) or an ISO 8601 date-time with offset, as on \`/visitors\`.` }));
const range = { dateFrom: dateBound('Start, inclusive (default: 7 days before dateTo)'), dateTo: dateBound('End, exclusive (default: now)') };

export const GapsQuery = Type.Object(
  {
    ...range,
    status: Type.Optional(
      Type.String({
        maxLength: 100,
        description: `Only these statuses, as a comma list of ${gapStatuses.map((status) => `\`${status}\``).join(', ')}; default every gap but dismissed ones.`,
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Gaps per page, 1 to 100.' })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000, default: 0, description: 'Gaps to skip; the next page is `offset + limit`.' })),
  },
  { additionalProperties: false },
);

export const RangeOnlyQuery = Type.Object(range, { additionalProperties: false });

export const GapParams = Type.Object({
  projectId: ProjectParams.properties.projectId,
  gapId: Type.String({ minLength: 1, maxLength: 64, description: 'Gap id (`gap_…`).' }),
});

export const GapStatusBody = Type.Object(
  {
    status: Type.Union([Type.Literal('dismissed'), Type.Literal('open')], {
      description: '`dismissed` hides the gap until its evidence doubles; `open` shows it again.',
    }),
  },
  { additionalProperties: false },
);

const count = (description: string) => Type.Integer({ minimum: 0, description });
const Evidence = Type.Object({
  unanswered: count('Assistant questions answered `unanswered`.'),
  searches: count('Searches that found nothing (tracker, discovery and MCP searches).'),
  feedback: count('Feedback items marked not helpful.'),
  notFound: count('Requests answered 404 (logs, drains, the proxy, the docs surface).'),
});
const nullableDate = (description: string) => Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });

export const Gap = Type.Object({
  id: Type.String({ description: 'Stable gap id (`gap_…`).' }),
  title: Type.String({ description: 'What the gap is about, in words: its most frequent question or its page.' }),
  kind: Type.Union([Type.Literal('missing'), Type.Literal('unclear'), Type.Literal('broken')], {
    description: '`missing`: nothing answers it; `unclear`: a page exists but readers fail on it; `broken`: 404s.',
  }),
  status: Type.Enum(gapStatuses, {
    description: '`open`, `in_progress` (a job was created from it), `fixed` (its job’s change reached the ref) or `dismissed`.',
  }),
  evidence: Evidence,
  visitors: Type.Object({
    human: count('Distinct people among the senders.'),
    ai: count('Distinct AI agents among the senders.'),
    total: count('Distinct senders, each once whatever its class.'),
  }),
  examples: Type.Array(Type.String(), {
    maxItems: 5,
    description: 'Up to five texts readers sent (queries, questions, comments), most frequent first; paths for a `broken` gap. Render escaped.',
  }),
  paths: Type.Array(Type.String(), { description: 'Pages concerned, most evidence first.' }),
  firstSeenAt: nullableDate('Earliest evidence in the range.'),
  lastSeenAt: nullableDate('Latest evidence in the range.'),
  jobId: Type.Union([Type.String(), Type.Null()], { description: 'The agent job created from the gap.' }),
  prLink: Type.Union([Type.String(), Type.Null()], { description: 'That job’s pull request.' }),
  fixedAt: nullableDate('When an index build of the project’s ref first contained the job’s change.'),
  after: Type.Union([Evidence, Type.Null()], { description: 'The same evidence counted since `fixedAt`; null until fixed.' }),
});

export const GapList = Type.Object({ gaps: Type.Array(Gap), hasMore: Type.Boolean() });
