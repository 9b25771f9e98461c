import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeStreamedReply } from './openai-stream-reply.ts';

/** One chat-completions request as the server received it. */
export interface ChatRequest {
  model: string;
  messages: { role: string; content?: unknown; tool_calls?: { id: string; function: { name: string; arguments: string } }[]; tool_call_id?: string }[];
  tools?: { function: { name: string } }[];
  headers: IncomingMessage['headers'];
}

export interface ToolCallReply {
  name: string;
  /** An object is sent as JSON; a string is sent as is (to play a model that writes broken JSON). */
  arguments: Record<string, unknown> | string;
}

/** What the scripted model answers: text, tool calls, or an HTTP error with an OpenAI-style body. */
export type ModelReply = (
  | { text: string; toolCalls?: ToolCallReply[]; usage?: { input: number; output: number } }
  | { status: number; message: string; headers?: Record<string, string> }
) & {
  /** Answer this much later, to play a slow model. */
  delayMs?: number;
};

/**
 * Picks the reply from the request. `turn` counts the assistant messages since the newest user
 * message, so a script works without server state and several jobs can share one server.
 */
export type ModelScript = (request: ChatRequest, turn: number) => ModelReply;

/** A script that answers turn `n` with `replies[n]`, then ends with text. */
export function scriptedTurns(replies: ModelReply[], finalText = 'Done.'): ModelScript {
  return (_request, turn) => replies[turn] ?? { text: finalText };
}

export interface OpenAiServer {
  /** Base URL for OPENAI_BASE_URL (ends in `/v1`). */
  url: string;
  requests: ChatRequest[];
  /** Requests whose client went away before the answer was sent (an aborted model call). */
  abandoned: number;
  script: ModelScript;
  close(): Promise<void>;
}

/**
 * A local OpenAI-compatible chat-completions server on 127.0.0.1, port 0. A request with
 * `stream: true` is answered as OpenAI streams (see stream-reply.ts): text in pieces, then each tool
 * call's name and its arguments in fragments.
 */
export async function startOpenAiServer(script: ModelScript): Promise<OpenAiServer> {
  let calls = 0;
  const state: OpenAiServer = { url: '', requests: [], abandoned: 0, script, close: async () => {} };
  const server: Server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
      response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `No route ${request.url}` } }));
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Omit<ChatRequest, 'headers'> & { stream?: boolean };
    const chat: ChatRequest = { ...body, headers: request.headers };
    state.requests.push(chat);
    const lastUser = chat.messages.map((message) => message.role).lastIndexOf('user');
    const turn = chat.messages.slice(lastUser + 1).filter((message) => message.role === 'assistant').length;
    const reply = state.script(chat, turn);
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    if (response.destroyed || request.socket.destroyed) {
      state.abandoned += 1;
      return;
    }
    if ('status' in reply) {
      response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      response.end(JSON.stringify({ error: { message: reply.message, type: 'scripted_error' } }));
      return;
    }
    calls += 1;
    const toolCalls = (reply.toolCalls ?? []).map((call, index) => ({
      id: `call_${calls}_${index}`,
      type: 'function',
      function: { name: call.name, arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments) },
    }));
    const usage = reply.usage ?? { input: 100, output: 20 };
    if (body.stream) {
      writeStreamedReply(response, { id: `chatcmpl-${calls}`, model: chat.model, text: reply.text, toolCalls, usage });
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        id: `chatcmpl-${calls}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: chat.model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: reply.text || null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
            finish_reason: toolCalls.length ? 'tool_calls' : 'stop',
          },
        ],
        usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}
