import type { LanguageModel, ModelMessage } from 'ai';
import type { TokenUsage } from '../jobs/token-usage.ts';
import { JobFailure, type JobRun } from '../jobs/runner.ts';
import { cap } from '../llm/caps.ts';
import { LlmLoopError, type ProviderFailure } from '../llm/loop-error.ts';
import { runToolLoop, type LoopEntry, type LoopLimits } from '../llm/loop.ts';
import type { Redactor } from './redact.ts';
import type { AgentTools } from './tools/index.ts';

/** Size of one tool result or input in the transcript; the model itself gets up to the tools' own cap. */
const transcriptLimit = 4_000;

export interface LoopOptions {
  model: LanguageModel;
  tools: AgentTools;
  instructions: string;
  messages: ModelMessage[];
  /** QUIRE_AGENT_MAX_STEPS, QUIRE_AGENT_MAX_TOKENS, QUIRE_AGENT_MAX_RETRIES and the run's deadline (QUIRE_AGENT_MAX_SECONDS). */
  limits: LoopLimits;
  /** Aborted on shutdown, lost lease or the wall-time limit; the runner tells which. */
  signal: AbortSignal;
  record: JobRun['record'];
  redact: Redactor;
  /** What earlier loops of the same run used (repair rounds): the limits hold for the run as a whole. */
  spent?: { usage: TokenUsage; steps: number };
}

export interface JobLoopResult {
  /** The model's final answer: the change summary. */
  summary: string;
  /** Tokens of the run so far, earlier loops included. */
  usage: TokenUsage;
  /** Model calls of the run so far, earlier loops included. */
  steps: number;
  /** The conversation after this loop, to continue it with a repair request. */
  messages: ModelMessage[];
}

/**
 * Runs llm/'s tool loop for a job: every step goes to the job's transcript, redacted and capped, and
 * a loop that ends without an answer fails the job with a sentence naming the setting to change.
 */
export async function runJobLoop(options: LoopOptions): Promise<JobLoopResult> {
  const { record, redact } = options;
  try {
    const result = await runToolLoop({ ...options, onEntry: (entry) => recordEntry(entry, record, redact) });
    return { summary: result.text, usage: result.usage, steps: result.steps, messages: result.messages };
  } catch (error) {
    throw jobFailure(error, options.limits, redact);
  }
}

function recordEntry(entry: LoopEntry, record: JobRun['record'], redact: Redactor): Promise<void> {
  if (entry.type === 'text') return record('assistant', { text: redact(entry.text) });
  const input = cap(redact(JSON.stringify(entry.input ?? null)), transcriptLimit);
  return record('tool', {
    tool: entry.tool,
    input: safeJson(input),
    result: cap(redact(entry.output), transcriptLimit),
    ...(entry.error ? { error: true } : {}),
  });
}

/** The redacted input as JSON when it still parses (it does unless it was cut), else as text. */
function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The job's error for a loop that ended without an answer. An abort passes its reason through and a
 * passed deadline stays a loop error: the runner tells which stop it was (see runner.ts).
 */
function jobFailure(error: unknown, limits: LoopLimits, redact: Redactor): unknown {
  if (!(error instanceof LlmLoopError)) return error;
  const { usage } = error;
  const failures: Record<LlmLoopError['kind'], () => unknown> = {
    'step-limit': () =>
      new JobFailure(
        `The agent reached the step limit of ${limits.maxSteps} model calls (QUIRE_AGENT_MAX_STEPS) before finishing. Raise QUIRE_AGENT_MAX_STEPS or split the request into smaller follow-ups.`,
        { usage },
      ),
    'token-limit': () =>
      new JobFailure(
        `The agent used ${usage.inputTokens + usage.outputTokens} tokens, over the limit of ${limits.maxTokens} (QUIRE_AGENT_MAX_TOKENS), before finishing. Raise QUIRE_AGENT_MAX_TOKENS or send a narrower follow-up.`,
        { usage },
      ),
    provider: () => new JobFailure(redact(error.provider ? providerSentence(error.provider) : error.message), { usage }),
    'time-limit': () => error,
    aborted: () => error.cause,
  };
  return failures[error.kind]();
}

function providerSentence(provider: ProviderFailure): string {
  if (!provider.apiCall) return `The model call failed: ${provider.message}. Send a follow-up to retry, or choose another model.`;
  const attempts = provider.attempts ? ` after ${provider.attempts} attempts` : '';
  const status = provider.statusCode ? ` (HTTP ${provider.statusCode})` : '';
  return `The model provider failed${attempts}${status}: ${provider.message}. Check QUIRE_MODEL, the provider's key and endpoint, then send a follow-up to retry.`;
}
