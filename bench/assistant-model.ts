/**
 * The assistant benchmark's model: a local OpenAI-compatible server that answers at once, streaming. Asked a
 * question, it calls search_docs with it; given the search's result, it answers in text (in pieces, as a
 * model streams) beginning with `Answer: `. Its own process, so its work is not the load generator's.
 * Prints one JSON line when ready.
 */
import { startOpenAiServer } from '../test/support/openai-server.ts';

const answerText =
  'Answer: a Workflow Execution is durable; each step is recorded in the Event History, so after a crash a Worker replays it and continues where it stopped, as the Workflows page says.';

const server = await startOpenAiServer((request, turn) => {
  if (turn > 0 || request.messages.at(-1)?.role === 'tool') return { text: answerText };
  const question = request.messages.filter((message) => message.role === 'user').at(-1)?.content;
  return { text: '', toolCalls: [{ name: 'search_docs', arguments: { query: typeof question === 'string' ? question.slice(-200) : 'workflow' } }] };
});
// Requests are not kept: the benchmark sends many thousands.
Object.defineProperty(server, 'requests', { get: () => [] });
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
process.on('SIGTERM', () => server.close().then(() => process.exit(0)));
