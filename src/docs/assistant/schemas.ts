import { Type, type Static } from 'typebox';

/**
 * The assistant's message body, Mintlify's. As for the other discovery operations, fields it does
 * not name are ignored rather than refused (`useChat` adds `id`, `trigger`, `messageId`; Mintlify
 * documents `filter.tag` and `context[].elementId`). Every list and text is bounded, so a body says
 * what to shorten instead of costing the model budget.
 */
const text = (maxLength: number, description: string) => Type.String({ maxLength, description });

const Part = Type.Object({
  type: Type.String({ maxLength: 100, description: 'The part’s kind; only `text` parts are read.' }),
  text: Type.Optional(text(20_000, 'The text of a `text` part.')),
});

const Message = Type.Object({
  role: Type.Union([Type.Literal('user'), Type.Literal('assistant'), Type.Literal('system')]),
  parts: Type.Optional(Type.Array(Part, { maxItems: 50, description: 'AI SDK 5+ messages: the parts, of which `text` ones are read.' })),
  content: Type.Optional(text(20_000, 'AI SDK 4 messages: the text (`parts` is read when given).')),
});

export const MessageBody = Type.Object({
  fp: Type.String({ minLength: 1, maxLength: 200, description: 'The client’s fingerprint; stored only as a keyed hash.' }),
  messages: Type.Array(Message, { minItems: 1, maxItems: 100, description: 'The conversation; the last message is the reader’s question.' }),
  threadId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'The thread to continue (`X-Thread-Id` of its first answer).' })),
  threadKey: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'The thread’s key (`X-Thread-Key` of its first answer), needed with `threadId`.' }),
  ),
  retrievalPageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, default: 5, description: 'Sections each docs search gives the model.' })),
  filter: Type.Optional(
    Type.Object({
      version: Type.Optional(text(100, 'Accepted; the index has no versions yet, so it filters nothing.')),
      language: Type.Optional(text(100, 'Accepted; the index has no languages yet, so it filters nothing.')),
      groups: Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { maxItems: 100, description: 'Only pages in these navigation groups are searched.' })),
    }),
  ),
  context: Type.Optional(
    Type.Array(
      Type.Object({
        type: Type.Union([Type.Literal('code'), Type.Literal('textSelection')]),
        value: text(20_000, 'The code or the text the reader selected.'),
        path: Type.Optional(text(1000, 'The page or file it comes from.')),
      }),
      { maxItems: 10, description: 'What the reader points the question at.' },
    ),
  ),
  currentPath: Type.Optional(text(200, 'The path of the page the reader is on.')),
});

export type MessageBody = Static<typeof MessageBody>;
export type BodyMessage = MessageBody['messages'][number];
