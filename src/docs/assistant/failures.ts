import type { Config } from '../../config/config.ts';
import type { AppContext } from '../../http/context.ts';
import { LlmLoopError, type LoopErrorKind } from '../../llm/loop-error.ts';

/** Why a turn ended without an answer: a kind of the tool loop's failures, or `internal` for anything else. */
export type TurnFailure = LoopErrorKind | 'internal';

/** Every reason, so the metrics can show each one from the first scrape on. */
export const turnFailures: TurnFailure[] = ['step-limit', 'token-limit', 'time-limit', 'provider', 'aborted', 'internal'];

declare module '../../http/context.ts' {
  interface QuireEvents {
    /** An assistant turn ended without an answer (it is logged, and never stored for the exports); the metrics count them. */
    'assistant-turn-failed': [reason: TurnFailure];
  }
}

/** The sentence the stream's error part carries: the limit by its setting, else what to do. */
function explain(kind: TurnFailure, config: Config, error: unknown): string {
  const messages: Record<TurnFailure, string> = {
    'step-limit': `The answer reached the step limit (QUIRE_ASSISTANT_MAX_STEPS, ${config.assistantMaxSteps} model calls) before finishing; ask a narrower question.`,
    'token-limit': `The answer reached the output token limit (QUIRE_ASSISTANT_MAX_OUTPUT_TOKENS, ${config.assistantMaxOutputTokens}) before finishing; ask a narrower question.`,
    'time-limit': `The answer reached the time limit (QUIRE_ASSISTANT_MAX_SECONDS, ${config.assistantMaxSeconds} seconds) before finishing; try again.`,
    provider: `The model provider failed${error instanceof LlmLoopError && error.provider?.statusCode ? ` (HTTP ${error.provider.statusCode})` : ''}; try again in a moment.`,
    aborted: 'The answer was stopped.',
    internal: 'The answer failed because of an error on the server; try again.',
  };
  return messages[kind];
}

/** Logs and counts a failed turn and gives the sentence for the client. */
export function reportFailure(context: AppContext, projectId: string, error: unknown): string {
  const kind: TurnFailure = error instanceof LlmLoopError ? error.kind : 'internal';
  const level = kind === 'internal' ? 'error' : kind === 'aborted' ? 'info' : 'warn';
  context.logger[level]({ err: error, project: projectId, reason: kind }, 'an assistant turn ended without an answer');
  context.events.emit('assistant-turn-failed', kind);
  return explain(kind, context.config, error);
}
