import type { ModelMessage } from 'ai';
import type { TranscriptMessage } from '../jobs/runner.ts';

/**
 * The earlier conversation of a job as model messages, rebuilt from its transcript for a follow-up.
 * Tool calls come back as short notes rather than full calls and results: the transcript holds
 * them capped and redacted, and the files themselves are on the job branch for the model to read
 * again, which is also what `edit_file` asks of it.
 */
export function conversationFrom(messages: TranscriptMessage[]): ModelMessage[] {
  const result: ModelMessage[] = [];
  let notes: string[] = [];
  const flush = () => {
    if (notes.length) result.push({ role: 'assistant', content: notes.join('\n') });
    notes = [];
  };
  for (const message of messages) {
    const content = message.content;
    if (message.role === 'user' && typeof content.text === 'string') {
      flush();
      result.push({ role: 'user', content: content.text });
    } else if (message.role === 'assistant' && typeof content.text === 'string') {
      notes.push(content.text);
    } else if (message.role === 'tool' && typeof content.tool === 'string') {
      notes.push(`(I called ${content.tool}${describeInput(content.input)}.)`);
    } else if (message.role === 'event' && content.type === 'job-completed') {
      notes.push(content.prLink ? `(My changes were pushed and proposed in ${String(content.prLink)}.)` : '(I changed no files.)');
    } else if (message.role === 'event' && content.type === 'checks' && content.passed === false && Array.isArray(content.problems)) {
      notes.push(`(Quire's checks of my change found: ${content.problems.map(describeProblem).join('; ')})`);
    } else if (message.role === 'event' && content.type === 'job-failed') {
      notes.push(`(The run stopped with an error: ${String(content.error)})`);
    }
  }
  flush();
  return result;
}

function describeProblem(problem: unknown): string {
  const { file, line, message } = (problem ?? {}) as { file?: unknown; line?: unknown; message?: unknown };
  return `${String(file)}${typeof line === 'number' ? `:${line}` : ''} ${String(message)}`;
}

function describeInput(input: unknown): string {
  if (!input || typeof input !== 'object') return '';
  const fields = input as Record<string, unknown>;
  const paths = [fields.path, fields.from, fields.to, fields.pattern].filter((value) => typeof value === 'string');
  return paths.length ? ` on ${paths.join(' → ')}` : '';
}
