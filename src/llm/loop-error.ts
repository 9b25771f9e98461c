import { APICallError, RetryError } from 'ai';

/** Model tokens of a run. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

/**
 * Why a loop ended without an answer: a limit of `LoopLimits` reached while the model still called
 * tools (`step-limit`, `token-limit`), the deadline passed (`time-limit`), the model call failed
 * (`provider`), or the caller's signal stopped it (`aborted`, with the signal's reason as `cause`).
 */
export type LoopErrorKind = 'step-limit' | 'token-limit' | 'time-limit' | 'provider' | 'aborted';

/** What a failed model call said, for the caller to explain in its own words. */
export interface ProviderFailure {
  /** The provider's or the SDK's message, without a final period. */
  message: string;
  /** Whether the provider answered with an error or could not be reached; false when the SDK refused the call or the answer. */
  apiCall: boolean;
  /** HTTP status of the provider's answer, when there was one. */
  statusCode?: number;
  /** Calls made, when the SDK retried. */
  attempts?: number;
}

/**
 * What a provider failure points to: no answer at all (`unreachable`), the key refused (401, 403), a
 * model the provider does not know (404), its rate limit or quota (429), an error of its own (`provider`),
 * or an answer the SDK could not use (`answer`).
 */
export type ProviderFailureCause = 'unreachable' | 'key' | 'model' | 'quota' | 'provider' | 'answer';

export function providerFailureCause(provider: ProviderFailure): ProviderFailureCause {
  if (!provider.apiCall) return 'answer';
  const causes: Record<number, ProviderFailureCause> = { 401: 'key', 403: 'key', 404: 'model', 429: 'quota' };
  if (provider.statusCode === undefined) return 'unreachable';
  return causes[provider.statusCode] ?? 'provider';
}

export class LlmLoopError extends Error {
  override name = 'LlmLoopError';
  readonly kind: LoopErrorKind;
  /** Tokens used before the loop ended, earlier loops of the run (`spent`) included. */
  readonly usage: TokenUsage;
  readonly provider: ProviderFailure | undefined;

  constructor(kind: LoopErrorKind, message: string, details: { usage: TokenUsage; provider?: ProviderFailure; cause?: unknown }) {
    super(message, { cause: details.cause });
    this.kind = kind;
    this.usage = details.usage;
    this.provider = details.provider;
  }
}

/** The failure of a model call as a `provider` error, or null when `error` is none of the SDK's. */
export function providerError(error: unknown, usage: TokenUsage): LlmLoopError | null {
  const last = RetryError.isInstance(error) ? error.lastError : error;
  const attempts = RetryError.isInstance(error) ? error.errors.length : undefined;
  if (APICallError.isInstance(last)) {
    const provider = { message: trimPeriod(last.message), apiCall: true, statusCode: last.statusCode, attempts };
    const status = provider.statusCode ? ` (HTTP ${provider.statusCode})` : '';
    const after = attempts ? ` after ${attempts} attempts` : '';
    return new LlmLoopError('provider', `The model provider failed${after}${status}: ${provider.message}.`, { usage, provider, cause: error });
  }
  if (error instanceof Error && error.name.startsWith('AI_')) {
    const provider = { message: trimPeriod(error.message), apiCall: false };
    return new LlmLoopError('provider', `The model call failed: ${provider.message}.`, { usage, provider, cause: error });
  }
  return null;
}

function trimPeriod(text: string): string {
  return text.replace(/\.$/, '');
}
