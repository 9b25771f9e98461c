import type { Config } from '../../config/config.ts';
import type { AppContext } from '../../http/context.ts';
import { LlmLoopError, providerFailureCause, type LoopErrorKind, type ProviderFailureCause } from '../../llm/loop-error.ts';
import { providerVariables } from '../../llm/models.ts';
import { assistantModel } from './model-choice.ts';
import type { ProjectRow } from '../../storage/tables/accounts.ts';

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

/**
 * Why the model provider failed, and the setting the site's operator should check. The assistant answers
 * anonymous readers, so the sentence names settings only: never the endpoint, the key, the model's id or
 * the provider's own words (those are in the server's log).
 */
function explainProvider(config: Config, project: ProjectRow, error: unknown): string {
  const provider = error instanceof LlmLoopError ? error.provider : undefined;
  const cause: ProviderFailureCause = provider ? providerFailureCause(provider) : 'provider';
  const status = provider?.statusCode ? ` (HTTP ${provider.statusCode})` : '';
  const { name, setting: modelSetting } = assistantModel(config, project);
  const variables = providerVariables(name ?? '');
  const endpoint = variables?.endpoint ? ` and ${variables.endpoint}` : '';
  const operator = "the site's operator should check";
  const sentences: Record<ProviderFailureCause, string> = {
    unreachable: `The model provider could not be reached; ${operator} ${variables?.endpoint ? `${variables.endpoint} and ` : ''}the server's network.`,
    key: `The model provider refused the server's key${status}; ${operator} ${variables?.key ?? 'the provider key'}.`,
    model: `The model provider does not know the model${status}; ${operator} ${modelSetting}${endpoint}.`,
    quota: `The model provider refused more requests for now${status}: a rate limit or quota; try again in a moment.`,
    provider: `The model provider failed${status}; try again in a moment (the site's operator finds its answer in the server's log).`,
    answer: `The model's answer could not be used; try again, or ${operator} ${modelSetting}.`,
  };
  return sentences[cause];
}

/** The sentence the stream's error part carries: the limit by its setting, else what to do. */
function explain(kind: TurnFailure, config: Config, project: ProjectRow, error: unknown): string {
  const messages: Record<Exclude<TurnFailure, 'provider'>, string> = {
    'step-limit': `The answer reached the step limit (QUIRE_ASSISTANT_MAX_STEPS, ${config.assistantMaxSteps} model calls) before finishing; ask a narrower question.`,
    'token-limit': `The answer reached the output token limit (QUIRE_ASSISTANT_MAX_OUTPUT_TOKENS, ${config.assistantMaxOutputTokens}) before finishing; ask a narrower question.`,
    'time-limit': `The answer reached the time limit (QUIRE_ASSISTANT_MAX_SECONDS, ${config.assistantMaxSeconds} seconds) before finishing; try again.`,
    aborted: 'The answer was stopped.',
    internal: 'The answer failed because of an error on the server; try again.',
  };
  return kind === 'provider' ? explainProvider(config, project, error) : messages[kind];
}

/** Logs and counts a failed turn and gives the sentence for the client. */
export function reportFailure(context: AppContext, project: ProjectRow, error: unknown): string {
  const kind: TurnFailure = error instanceof LlmLoopError ? error.kind : 'internal';
  const level = kind === 'internal' ? 'error' : kind === 'aborted' ? 'info' : 'warn';
  context.logger[level]({ err: error, project: project.id, reason: kind }, 'an assistant turn ended without an answer');
  context.events.emit('assistant-turn-failed', kind);
  return explain(kind, context.config, project, error);
}
