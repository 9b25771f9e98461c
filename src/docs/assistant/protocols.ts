import { UI_MESSAGE_STREAM_HEADERS, type UIMessageChunk } from 'ai';

/** A page the answer cites, as the stream names it. */
export interface StreamSource {
  id: string;
  url: string;
  title: string;
}

/** What the finish part says: the thread the turn belongs to and the tokens it used. */
export interface StreamFinish {
  threadId: string;
  finishReason: 'stop' | 'error';
  usage: { inputTokens: number; outputTokens: number };
}

/**
 * One wire format of an answer: its response headers and the text of each part. The assistant
 * writes the same parts, in the same order, whichever format the client asked for; a part a format
 * has no place for is the empty string.
 */
export interface AnswerProtocol {
  headers: Record<string, string>;
  start(messageId: string): string;
  textStart(id: string): string;
  textDelta(id: string, text: string): string;
  textEnd(id: string): string;
  source(source: StreamSource): string;
  error(message: string): string;
  finish(finish: StreamFinish): string;
  end(): string;
}

const event = (chunk: UIMessageChunk) => `data: ${JSON.stringify(chunk)}\n\n`;

/** The AI SDK 5+ UI message stream (`x-vercel-ai-ui-message-stream: v1`): server-sent events of JSON chunks, then `[DONE]`. */
export const uiMessageStream: AnswerProtocol = {
  headers: UI_MESSAGE_STREAM_HEADERS,
  start: (messageId) => event({ type: 'start', messageId }),
  textStart: (id) => event({ type: 'text-start', id }),
  textDelta: (id, text) => event({ type: 'text-delta', id, delta: text }),
  textEnd: (id) => event({ type: 'text-end', id }),
  source: (source) => event({ type: 'source-url', sourceId: source.id, url: source.url, title: source.title }),
  error: (message) => event({ type: 'error', errorText: message }),
  finish: (finish) => event({ type: 'finish', finishReason: finish.finishReason, messageMetadata: { threadId: finish.threadId } }),
  end: () => 'data: [DONE]\n\n',
};

const line = (code: string, value: unknown) => `${code}:${JSON.stringify(value)}\n`;

/**
 * The AI SDK 4 data stream (`x-vercel-ai-data-stream: v1`), which the installed `ai` no longer
 * writes: one part per line, `{code}:{JSON}`, with the codes of AI SDK 4's `@ai-sdk/ui-utils`:
 * `f` step start, `0` text, `h` source, `3` error, `e` step finish, `d` message finish (where the
 * thread id goes, beside `finishReason` and `usage`).
 */
export const dataStream: AnswerProtocol = {
  headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-cache', 'x-vercel-ai-data-stream': 'v1', 'x-accel-buffering': 'no' },
  start: (messageId) => line('f', { messageId }),
  textStart: () => '',
  textDelta: (_id, text) => line('0', text),
  textEnd: () => '',
  source: (source) => line('h', { sourceType: 'url', id: source.id, url: source.url, title: source.title }),
  error: (message) => line('3', message),
  finish: (finish) => {
    const usage = { promptTokens: finish.usage.inputTokens, completionTokens: finish.usage.outputTokens };
    return (
      line('e', { finishReason: finish.finishReason, usage, isContinued: false }) +
      line('d', { finishReason: finish.finishReason, usage, threadId: finish.threadId })
    );
  },
  end: () => '',
};
