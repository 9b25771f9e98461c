import type { ChatRequest, ModelReply, ModelScript } from '../../test/support/openai-server.ts';
import { askedQuestions, type AssistantQuestion } from './questions.ts';

/** Pages the scripted model reads of a search's results, best first. */
const pagesRead = 3;

const textOf = (content: unknown): string => (typeof content === 'string' ? content : JSON.stringify(content ?? ''));

/** Whether a page's Markdown holds every one of the answer's strings (any case). */
export function holdsAnswer(markdown: string, answer: string[]): boolean {
  const text = markdown.toLowerCase();
  return answer.length > 0 && answer.every((part) => text.includes(part.toLowerCase()));
}

const outcome = (resolution: 'answered' | 'unanswered' | 'clarifying_question', sources: string[]) => ({
  name: 'record_outcome',
  arguments: { resolution, sources },
});

/**
 * A scripted model that plays a careful reader of the docs, deciding only from what Quire's tools give
 * it: it searches with the question's words (a follow-up's with the thread's earlier question, which it
 * must find in the conversation Quire sends, else it asks back), reads the best pages the search
 * returned, and answers citing the pages it read that hold the expected answer; when none does, it says
 * the docs do not cover the question and records it `unanswered`. It knows the expected answer, not
 * where it is: the citations measure Quire's search and reading, not a script.
 */
export function scriptedAssistant(questions: AssistantQuestion[]): ModelScript {
  const asked = askedQuestions(questions);
  return (request: ChatRequest): ModelReply => {
    const lastUser = request.messages.map((message) => message.role).lastIndexOf('user');
    const current = textOf(request.messages[lastUser]?.content);
    const found = asked.find(({ question }) => current.endsWith(question.question));
    if (!found) return { text: 'The docs do not cover this question.', toolCalls: [outcome('unanswered', [])] };
    const { question, after } = found;
    const earlier = request.messages.slice(0, lastUser).filter((message) => message.role === 'user');
    if (after && !earlier.some((message) => textOf(message.content).includes(after.question))) {
      return { text: 'Which feature do you mean?', toolCalls: [outcome('clarifying_question', [])] };
    }
    const since = request.messages.slice(lastUser + 1);
    const calls = since.flatMap((message) => message.tool_calls ?? []);
    const called = calls.map((call) => call.function.name);
    const toolOf = new Map(calls.map((call) => [call.id, call.function.name]));
    const results = (tool: string) =>
      since.filter((message) => message.role === 'tool' && toolOf.get(message.tool_call_id ?? '') === tool).map((message) => textOf(message.content));
    // The answer was given with record_outcome: the step after its result ends the turn.
    if (called.includes('record_outcome')) return { text: '' };
    if (!called.includes('search_docs')) {
      return { text: '', toolCalls: [{ name: 'search_docs', arguments: { query: after ? `${after.question} ${question.question}` : question.question } }] };
    }
    if (!called.includes('read_page')) {
      const paths = [...new Set(results('search_docs').flatMap((result) => [...result.matchAll(/^path: (.+)$/gm)].map((match) => match[1].trim())))];
      if (paths.length === 0) return { text: 'The docs do not cover this question.', toolCalls: [outcome('unanswered', [])] };
      return { text: '', toolCalls: paths.slice(0, pagesRead).map((path) => ({ name: 'read_page', arguments: { path } })) };
    }
    const pages = results('read_page')
      .map((result) => ({ path: /^path: (.+)$/m.exec(result)?.[1].trim(), title: /^# (.+)$/m.exec(result)?.[1].trim(), markdown: result }))
      .filter((page) => page.path && holdsAnswer(page.markdown, question.answer));
    if (pages.length === 0) {
      return { text: 'The docs do not cover this question; try the community forum.', toolCalls: [outcome('unanswered', [])] };
    }
    const titles = pages.map((page) => page.title).join(', ');
    return {
      text: `Answer: ${question.answer.join(' … ')}, as ${titles} says.`,
      toolCalls: [
        outcome(
          'answered',
          pages.map((page) => page.path!),
        ),
      ],
    };
  };
}
