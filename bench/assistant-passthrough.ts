/**
 * The reference the assistant is measured beside: a bare AI SDK server, `streamText` over the same model with
 * one search tool that returns a fixed text (no database, no index, no threads, no limits), answered with
 * `pipeUIMessageStreamToResponse`. Its own process, as Quire is. Prints one JSON line when ready.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { stepCountIs, streamText, tool } from 'ai';
import { z } from 'zod';

const model = createOpenAICompatible({ name: 'openai-compatible', baseURL: process.env.OPENAI_BASE_URL!, apiKey: 'bench' }).chatModel('bench-model');
const sections = '## Workflows\npath: workflows.mdx\n\nA Workflow Execution is durable: its Event History lets a Worker replay it after a crash.';

const server = createServer(async (request, response) => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { messages: { parts: { type: string; text?: string }[] }[] };
  const question = body.messages
    .at(-1)!
    .parts.map((part) => part.text ?? '')
    .join('');
  const result = streamText({
    model,
    system: 'Answer from the documentation only.',
    messages: [{ role: 'user', content: question }],
    tools: { search_docs: tool({ inputSchema: z.object({ query: z.string() }), execute: async () => sections }) },
    stopWhen: stepCountIs(8),
  });
  result.pipeUIMessageStreamToResponse(response);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
