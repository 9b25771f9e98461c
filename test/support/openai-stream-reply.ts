import type { ServerResponse } from 'node:http';

export interface StreamedReply {
  id: string;
  model: string;
  text: string;
  toolCalls: { id: string; type: string; function: { name: string; arguments: string } }[];
  usage: { input: number; output: number };
}

/** Splits `text` into pieces of about `size` characters, as a model's tokens arrive. */
function pieces(text: string, size: number): string[] {
  const parts: string[] = [];
  for (let start = 0; start < text.length; start += size) parts.push(text.slice(start, start + size));
  return parts;
}

/**
 * OpenAI's chat-completions streaming format: `chat.completion.chunk` events whose `delta` carries the
 * role, then the text in pieces, then each tool call (its index, id and name first, then its
 * arguments in fragments, as OpenAI sends them), then a chunk with `finish_reason`, a usage chunk
 * and `data: [DONE]`.
 */
export function writeStreamedReply(response: ServerResponse, reply: StreamedReply): void {
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) =>
    `data: ${JSON.stringify({ id: reply.id, object: 'chat.completion.chunk', created, model: reply.model, choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  response.write(chunk({ role: 'assistant', content: '' }));
  for (const piece of pieces(reply.text, 8)) response.write(chunk({ content: piece }));
  reply.toolCalls.forEach((call, index) => {
    response.write(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }));
    for (const fragment of pieces(call.function.arguments, 10)) response.write(chunk({ tool_calls: [{ index, function: { arguments: fragment } }] }));
  });
  response.write(chunk({}, reply.toolCalls.length ? 'tool_calls' : 'stop'));
  const usage = { prompt_tokens: reply.usage.input, completion_tokens: reply.usage.output, total_tokens: reply.usage.input + reply.usage.output };
  response.write(`data: ${JSON.stringify({ id: reply.id, object: 'chat.completion.chunk', created, model: reply.model, choices: [], usage })}\n\n`);
  response.end('data: [DONE]\n\n');
}
