import { parseJsonEventStream, readUIMessageStream, uiMessageChunkSchema, type UIMessage, type UIMessageChunk } from 'ai';
import type { ChatRequest, ModelReply, ModelScript } from '../../support/openai-server.ts';

/** The text of the newest user message the model was sent. */
export function lastQuestion(request: ChatRequest): string {
  const user = request.messages.filter((message) => message.role === 'user').at(-1);
  return typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content ?? '');
}

/**
 * The scripted model: what it does depends on a word in the question. `configure`: searches, reads
 * the setup page, answers citing it (and a page it never saw), then stops. `unknown`: searches and
 * says the docs do not cover it. `which`: asks back. `broken`: the provider fails. `rejected`: the provider
 * refuses the key. `missing`: the provider does not know the model. `forever`: searches at every step. `slow`:
 * answers after 5 seconds.
 */
export const assistantScript: ModelScript = (request, turn) => {
  const question = lastQuestion(request);
  const scripts: [string, ModelReply[]][] = [
    [
      'configure',
      [
        { text: '', toolCalls: [{ name: 'search_docs', arguments: { query: 'configure' } }] },
        { text: '', toolCalls: [{ name: 'read_page', arguments: { path: 'guides/setup.mdx' } }] },
        {
          text: 'Install the CLI, then configure webhooks, as the Setup page says.',
          toolCalls: [{ name: 'record_outcome', arguments: { resolution: 'answered', sources: ['guides/setup.mdx', 'made/up.mdx'] } }],
        },
      ],
    ],
    [
      'unknown',
      [
        { text: '', toolCalls: [{ name: 'search_docs', arguments: { query: 'billing' } }] },
        { text: 'The docs do not cover billing.', toolCalls: [{ name: 'record_outcome', arguments: { resolution: 'unanswered', sources: [] } }] },
      ],
    ],
    ['which', [{ text: 'Which plan do you mean?', toolCalls: [{ name: 'record_outcome', arguments: { resolution: 'clarifying_question', sources: [] } }] }]],
    ['broken', [{ status: 500, message: 'The model is down.' }]],
    ['rejected', [{ status: 401, message: 'Incorrect API key provided: sk-secret-0123' }]],
    ['missing', [{ status: 404, message: 'The model `test-model` does not exist at https://models.internal.example/v1' }]],
    ['slow', [{ text: 'Late.', delayMs: 5000 }]],
  ];
  if (question.includes('forever')) return { text: '', toolCalls: [{ name: 'search_docs', arguments: { query: 'webhooks' } }] };
  const replies = scripts.find(([word]) => question.includes(word))?.[1] ?? [];
  return replies[turn] ?? { text: '' };
};

/** The v2 stream's chunks, parsed and checked with the AI SDK's own chunk schema. */
export async function uiChunks(response: Response): Promise<UIMessageChunk[]> {
  const chunks: UIMessageChunk[] = [];
  const parsed = parseJsonEventStream({ stream: response.body!, schema: uiMessageChunkSchema });
  for await (const result of parsed) {
    if (!result.success) throw result.error;
    chunks.push(result.value as UIMessageChunk);
  }
  return chunks;
}

/** The assistant message the AI SDK's reader builds from the chunks, as `useChat` would. */
export async function uiMessage(chunks: UIMessageChunk[]): Promise<UIMessage> {
  let last: UIMessage | undefined;
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  for await (const message of readUIMessageStream({ stream })) last = message;
  return last!;
}

const dataStreamCodes = new Set(['0', '3', 'd', 'e', 'f', 'h']);

/**
 * A reader of the AI SDK 4 data stream: one `{code}:{JSON}` part per line. The codes are those of
 * AI SDK 4's `@ai-sdk/ui-utils` (`0` text, `3` error, `d` finish message, `e` finish step, `f` start
 * step, `h` source); a line of another shape fails the test.
 */
export async function dataStreamParts(response: Response): Promise<{ code: string; value: unknown }[]> {
  const text = await response.text();
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const match = /^([0-9a-z]):(.*)$/.exec(line);
      if (!match || !dataStreamCodes.has(match[1])) throw new Error(`not a data stream part: ${line}`);
      return { code: match[1], value: JSON.parse(match[2]) as unknown };
    });
}
