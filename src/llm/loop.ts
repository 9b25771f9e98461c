import { generateText, isStepCount, type LanguageModel, type ModelMessage, type StepResult, type StopCondition, type ToolSet } from 'ai';
import { streamedText } from './stream.ts';
import { LlmLoopError, providerError, type TokenUsage } from './loop-error.ts';

export interface LoopLimits {
  /** Model calls over the run; a model still calling tools after this many ends the loop with `step-limit`. */
  maxSteps: number;
  /** Input plus output tokens over the run; going over while the model still calls tools ends it with `token-limit`. */
  maxTokens: number;
  /**
   * Output tokens over the run, when bounded: each model call may write at most this many, and a run
   * whose output goes over it, or whose answer is cut at it, ends with `token-limit`.
   */
  maxOutputTokens?: number;
  /** Retries of one failed model call, with the SDK's backoff. */
  maxRetries: number;
  /** When the loop must have ended (milliseconds since the epoch), else `time-limit`; no deadline when absent. */
  deadline?: number;
}

/** What one step did, as it ends: the model's text, then each tool call with its result, in order. */
export type LoopEntry = { type: 'text'; text: string } | { type: 'tool'; tool: string; input: unknown; output: string; error: boolean };

export interface LoopRun<Tools extends ToolSet> {
  model: LanguageModel;
  tools: Tools;
  instructions: string;
  messages: ModelMessage[];
  limits: LoopLimits;
  /** Stops the loop; it then fails with `aborted` and the signal's reason as `cause`. */
  signal?: AbortSignal;
  /** Awaited before the next step, so entries arrive complete and in order. */
  onEntry?(entry: LoopEntry): Promise<void> | void;
  /**
   * Each piece of the model's text as the provider streams it (the model is then called in streaming
   * mode); without it, each call's text arrives whole with `onEntry`.
   */
  onTextDelta?(text: string): void;
  /** The tokens of each model call, as it ends. */
  onUsage?(usage: TokenUsage): void;
  /** What earlier loops of the same run used (a follow-up round): the limits hold for the run as a whole. */
  spent?: { usage: TokenUsage; steps: number };
}

export interface LoopResult {
  /** The model's final answer, trimmed. */
  text: string;
  /** Tokens of the run so far, earlier loops included. */
  usage: TokenUsage;
  /** Model calls of the run so far, earlier loops included. */
  steps: number;
  /** The conversation after this loop, to continue it. */
  messages: ModelMessage[];
}

/**
 * Runs the model with the tools until it answers without calling one. Reaching the step or token
 * limit while it still calls tools is an `LlmLoopError`, since its work is unfinished; so are a
 * passed deadline, a failed model call and an abort. Other errors pass through as they are.
 */
export async function runToolLoop<Tools extends ToolSet>(run: LoopRun<Tools>): Promise<LoopResult> {
  const { limits } = run;
  const usage: TokenUsage = { ...(run.spent?.usage ?? { inputTokens: 0, outputTokens: 0 }) };
  const stepsBefore = run.spent?.steps ?? 0;
  const used = () => usage.inputTokens + usage.outputTokens;
  const timeLimit = limits.deadline === undefined ? undefined : AbortSignal.timeout(Math.max(0, limits.deadline - Date.now()));
  const signals = [run.signal, timeLimit].filter((signal) => signal !== undefined);
  const outputOver = () => usage.outputTokens > (limits.maxOutputTokens ?? Infinity);
  const overBudget: StopCondition<Tools> = () => used() > limits.maxTokens || outputOver();
  if (limits.deadline !== undefined && limits.deadline <= Date.now()) throw timeUp(usage);
  const options = {
    model: run.model,
    tools: run.tools,
    instructions: run.instructions,
    messages: run.messages,
    stopWhen: [isStepCount(limits.maxSteps - stepsBefore), overBudget],
    maxRetries: limits.maxRetries,
    maxOutputTokens: limits.maxOutputTokens,
    abortSignal: signals.length > 0 ? AbortSignal.any(signals) : undefined,
    // One tool at a time: a write followed by a read of the same file in one step must see the write.
    toolCallConcurrency: 1,
    onStepEnd: async (step: StepResult<Tools>) => {
      const stepUsage = { inputTokens: step.usage.inputTokens ?? 0, outputTokens: step.usage.outputTokens ?? 0 };
      usage.inputTokens += stepUsage.inputTokens;
      usage.outputTokens += stepUsage.outputTokens;
      run.onUsage?.(stepUsage);
      for (const entry of stepEntries(step)) await run.onEntry?.(entry);
    },
  };
  const call = run.onTextDelta ? streamedText(options, run.onTextDelta) : generateText(options);
  const result = await call.catch((error: unknown) => {
    throw loopFailure(error, run.signal, timeLimit, usage);
  });
  if (limits.maxOutputTokens !== undefined && (outputOver() || result.finishReason === 'length')) {
    throw new LlmLoopError(
      'token-limit',
      `The model wrote ${usage.outputTokens} output tokens, reaching the limit of ${limits.maxOutputTokens}, before finishing.`,
      {
        usage,
      },
    );
  }
  if (result.finishReason === 'tool-calls') {
    if (used() > limits.maxTokens) {
      throw new LlmLoopError('token-limit', `The model used ${used()} tokens, over the limit of ${limits.maxTokens}, before finishing.`, { usage });
    }
    throw new LlmLoopError('step-limit', `The model reached the step limit of ${limits.maxSteps} model calls before finishing.`, { usage });
  }
  return { text: result.text.trim(), usage, steps: stepsBefore + result.steps.length, messages: [...run.messages, ...result.responseMessages] };
}

function stepEntries<Tools extends ToolSet>(step: StepResult<Tools>): LoopEntry[] {
  const entries: LoopEntry[] = step.text.trim() ? [{ type: 'text', text: step.text }] : [];
  for (const part of step.content) {
    if (part.type !== 'tool-result' && part.type !== 'tool-error') continue;
    const error = part.type === 'tool-error';
    const output = part.type === 'tool-result' ? String(part.output) : `Error: ${errorMessage(part.error)}`;
    entries.push({ type: 'tool', tool: part.toolName, input: part.input, output, error });
  }
  return entries;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The caller's abort first (it says why), then the deadline, then what the model call said. */
function loopFailure(error: unknown, signal: AbortSignal | undefined, timeLimit: AbortSignal | undefined, usage: TokenUsage): unknown {
  if (signal?.aborted) return new LlmLoopError('aborted', 'The model loop was stopped.', { usage, cause: signal.reason });
  if (timeLimit?.aborted) return timeUp(usage);
  return providerError(error, usage) ?? error;
}

function timeUp(usage: TokenUsage): LlmLoopError {
  return new LlmLoopError('time-limit', 'The model did not finish before the deadline.', { usage });
}
