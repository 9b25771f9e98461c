import type { LanguageModel, ModelMessage } from 'ai';
import type { TokenUsage } from '../../llm/loop-error.ts';
import { runToolLoop } from '../../llm/loop.ts';
import { pageUrl } from '../surface/site-files.ts';
import type { AnswerProtocol } from './protocols.ts';
import { Reading, type CitedPage, type Resolution } from './reading.ts';
import { assistantTools, type AssistantToolOptions } from './tools.ts';

export interface TurnRun {
  model: LanguageModel;
  instructions: string;
  messages: ModelMessage[];
  tools: AssistantToolOptions;
  limits: { maxSteps: number; maxOutputTokens: number; deadline: number };
  /** The docs site's address, for the sources' URLs. */
  siteUrl: string;
  threadId: string;
  protocol: AnswerProtocol;
  /** Writes a part to the client. */
  write(text: string): void;
  /** The client went away: the model call stops. */
  signal: AbortSignal;
  /** Stores the answer; awaited before the finish part is written, so a finished answer is a stored one. */
  store(answer: TurnAnswer): Promise<void>;
}

export interface TurnAnswer {
  text: string;
  resolution: Resolution;
  cited: (CitedPage & { url: string })[];
  category: string | null;
  usage: TokenUsage;
}

/** Input and output tokens over the run are bounded by the output bound alone: the input is the docs the model chose to read. */
const unboundedTokens = Number.MAX_SAFE_INTEGER;

/**
 * Runs the model over the docs tools and streams its answer: `start`, the text as it comes, a
 * source per cited page, then (once `store` has stored it) `finish` with the thread id. A failure (a
 * limit, the provider, an abort, the store) is thrown for the caller to report, after the parts
 * already written.
 */
export async function answerTurn(run: TurnRun): Promise<TurnAnswer> {
  const { protocol, write } = run;
  const reading = new Reading();
  const textId = 'text-1';
  const streamed: string[] = [];
  write(protocol.start(`msg-${run.threadId}-${Date.now()}`));
  const result = await runToolLoop({
    model: run.model,
    tools: assistantTools(run.tools, reading),
    instructions: run.instructions,
    messages: run.messages,
    limits: {
      maxSteps: run.limits.maxSteps,
      maxTokens: unboundedTokens,
      maxOutputTokens: run.limits.maxOutputTokens,
      maxRetries: 1,
      deadline: run.limits.deadline,
    },
    signal: run.signal,
    onTextDelta: (text) => {
      if (streamed.length === 0) write(protocol.textStart(textId));
      streamed.push(text);
      write(protocol.textDelta(textId, text));
    },
  }).finally(() => {
    if (streamed.length > 0) write(protocol.textEnd(textId));
  });
  const { resolution, cited, category } = reading.result();
  const sources = cited.map((page) => ({ ...page, url: pageUrl(run.siteUrl, page.route, page.anchor) }));
  sources.forEach((source, index) => write(protocol.source({ id: `source-${index + 1}`, url: source.url, title: source.title })));
  const answer = { text: streamed.join('').trim() || result.text, resolution, cited: sources, category, usage: result.usage };
  await run.store(answer);
  write(protocol.finish({ threadId: run.threadId, finishReason: 'stop', usage: result.usage }));
  write(protocol.end());
  return answer;
}
