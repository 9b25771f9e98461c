import { Type } from 'typebox';

/** The three exports' shapes, Mintlify's published ones (its analytics OpenAPI document), with Quire's descriptions. */
export const ConversationsQuery = Type.Object(
  {
    dateFrom: Type.Optional(
      Type.String({
        maxLength: 64,
        description: 'Inclusive start: `YYYY-MM-DD` (midnight UTC) or an ISO 8601 date-time with offset. Default: 7 days before `dateTo`.',
      }),
    ),
    dateTo: Type.Optional(Type.String({ maxLength: 64, description: 'Exclusive end, same formats. Default: now.' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'Turns per page, 1 to 1000.' })),
    cursor: Type.Optional(Type.String({ maxLength: 200, description: 'The `nextCursor` of the previous page.' })),
  },
  { additionalProperties: false },
);

export const RangeOnlyQuery = Type.Object(
  {
    dateFrom: Type.Optional(Type.String({ maxLength: 64, description: 'Inclusive start, as for the conversations.' })),
    dateTo: Type.Optional(Type.String({ maxLength: 64, description: 'Exclusive end, as for the conversations.' })),
  },
  { additionalProperties: false },
);

const nullableString = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

export const ConversationsResult = Type.Object({
  conversations: Type.Array(
    Type.Object({
      id: Type.String({ description: 'The thread id (`GET …/assistant/threads/{threadId}`).' }),
      timestamp: Type.String({ description: 'When the question was asked.' }),
      query: Type.String({ description: 'The reader’s question.' }),
      response: Type.String({ description: 'The answer; for a clarifying question, the question asked back.' }),
      responseType: Type.Union([Type.Literal('answer'), Type.Literal('clarifying_question')]),
      sources: Type.Array(
        Type.Object({ title: Type.String(), url: Type.String({ description: 'The site URL, the route and `#anchor` of the section used.' }) }),
      ),
      resolutionStatus: Type.Union([Type.Literal('answered'), Type.Literal('unanswered')], {
        description: '`unanswered` when the docs did not cover the question, else `answered`.',
      }),
      queryCategory: nullableString('The navigation group of the page the answer cited most; null without sources.'),
      pageUrl: nullableString('The site URL and the page the reader was on when asking; null when not sent.'),
    }),
  ),
  nextCursor: nullableString('Pass as `cursor` for the next page; null on the last page.'),
  hasMore: Type.Boolean({ description: 'True when turns exist beyond this page.' }),
});

export const ThreadParams = Type.Object({
  projectId: Type.String({ minLength: 1, maxLength: 64, description: 'Project id (`prj_…`).' }),
  threadId: Type.String({ minLength: 1, maxLength: 100, description: 'The thread id (`id` of a conversation).' }),
});

export const ThreadResult = Type.Object({
  threadId: Type.String(),
  createdAt: Type.String(),
  messages: Type.Array(
    Type.Object({
      id: Type.String({ description: 'The turn id and the role: `trn_…:user`, `trn_…:assistant`.' }),
      role: Type.Union([Type.Literal('user'), Type.Literal('assistant')]),
      content: Type.String(),
      createdAt: Type.String(),
    }),
  ),
});

export const CallerStatsResult = Type.Object({
  web: Type.Integer({ description: 'Questions from the embeddable assistant script (`X-Quire-Assistant: web`).' }),
  api: Type.Integer({ description: 'Questions from other clients, without the header.' }),
  other: Type.Integer({ description: 'Questions from integrations that name themselves in `X-Quire-Assistant`.' }),
  total: Type.Integer({ description: 'All answered, unanswered and clarifying turns in the range.' }),
});
