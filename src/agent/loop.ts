import { APICallError, generateText, isStepCount, RetryError, type LanguageModel, type ModelMessage, type StepResult, type StopCondition } from 'ai';
import type { TokenUsage } from '../jobs/token-usage.ts';
import { JobFailure, type JobRun } from '../jobs/runner.ts';
import { cap, type Redactor } from './redact.ts';
import type { AgentTools } from './tools/index.ts';

/** Size of one tool result or input in the transcript; the model itself gets up to the tools' own cap. */
const transcriptLimit = 4_000;

export interface LoopLimits {
  /** QUIRE_AGENT_MAX_STEPS */
  maxSteps: number;
  /** QUIRE_AGENT_MAX_TOKENS, input plus output over the run. */
  maxTokens: number;
  /** QUIRE_AGENT_MAX_RETRIES */
  maxRetries: number;
}

export interface LoopOptions {
  model: LanguageModel;
  tools: AgentTools;
  instructions: string;
  messages: ModelMessage[];
  limits: LoopLimits;
  /** Aborted on shutdown, lost lease or the wall-time limit; the runner tells which. */
  signal: AbortSignal;
  record: JobRun['record'];
  redact: Redactor;
  /** What earlier loops of the same run used (repair rounds): the limits hold for the run as a whole. */
  spent?: { usage: TokenUsage; steps: number };
}

export interface LoopResult {
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
 * Runs the model with the tools until it answers without calling one. Reaching the step or
 * token limit while it still calls tools fails the job, since its work is unfinished.
 */
export async function runLoop(options: LoopOptions): Promise<LoopResult> {
  const { limits, record, redact } = options;
  const usage: TokenUsage = { ...(options.spent?.usage ?? { inputTokens: 0, outputTokens: 0 }) };
  const stepsBefore = options.spent?.steps ?? 0;
  const overBudget: StopCondition<AgentTools> = () => usage.inputTokens + usage.outputTokens > limits.maxTokens;
  const result = await generateText({
    model: options.model,
    tools: options.tools,
    instructions: options.instructions,
    messages: options.messages,
    stopWhen: [isStepCount(limits.maxSteps - stepsBefore), overBudget],
    maxRetries: limits.maxRetries,
    abortSignal: options.signal,
    // One tool at a time: a write followed by a read of the same file in one step must see the write.
    toolCallConcurrency: 1,
    onStepEnd: async (step) => {
      usage.inputTokens += step.usage.inputTokens ?? 0;
      usage.outputTokens += step.usage.outputTokens ?? 0;
      await recordStep(step, record, redact);
    },
  }).catch((error: unknown) => {
    throw modelFailure(error, options.signal, redact, usage);
  });
  if (result.finishReason === 'tool-calls') {
    if (usage.inputTokens + usage.outputTokens > limits.maxTokens) {
      throw new JobFailure(
        `The agent used ${usage.inputTokens + usage.outputTokens} tokens, over the limit of ${limits.maxTokens} (QUIRE_AGENT_MAX_TOKENS), before finishing. Raise QUIRE_AGENT_MAX_TOKENS or send a narrower follow-up.`,
        { usage },
      );
    }
    throw new JobFailure(
      `The agent reached the step limit of ${limits.maxSteps} model calls (QUIRE_AGENT_MAX_STEPS) before finishing. Raise QUIRE_AGENT_MAX_STEPS or split the request into smaller follow-ups.`,
      { usage },
    );
  }
  return { summary: result.text.trim(), usage, steps: stepsBefore + result.steps.length, messages: [...options.messages, ...result.response.messages] };
}

async function recordStep(step: StepResult<AgentTools>, record: JobRun['record'], redact: Redactor): Promise<void> {
  if (step.text.trim()) await record('assistant', { text: redact(step.text) });
  for (const part of step.content) {
    if (part.type !== 'tool-result' && part.type !== 'tool-error') continue;
    const input = cap(redact(JSON.stringify(part.input ?? null)), transcriptLimit);
    const output = part.type === 'tool-result' ? String(part.output) : `Error: ${errorMessage(part.error)}`;
    await record('tool', {
      tool: part.toolName,
      input: safeJson(input),
      result: cap(redact(output), transcriptLimit),
      ...(part.type === 'tool-error' ? { error: true } : {}),
    });
  }
}

/** The redacted input as JSON when it still parses (it does unless it was cut), else as text. */
function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Explains why the model call failed; aborts pass through for the runner to classify. */
function modelFailure(error: unknown, signal: AbortSignal, redact: Redactor, usage: TokenUsage): unknown {
  if (signal.aborted) return signal.reason;
  const last = RetryError.isInstance(error) ? error.lastError : error;
  const attempts = RetryError.isInstance(error) ? ` after ${error.errors.length} attempts` : '';
  if (APICallError.isInstance(last)) {
    const status = last.statusCode ? ` (HTTP ${last.statusCode})` : '';
    return new JobFailure(
      redact(
        `The model provider failed${attempts}${status}: ${last.message.replace(/\.$/, '')}. Check QUIRE_MODEL, the provider's key and endpoint, then send a follow-up to retry.`,
      ),
      { usage },
    );
  }
  if (error instanceof Error && error.name.startsWith('AI_')) {
    return new JobFailure(redact(`The model call failed: ${error.message.replace(/\.$/, '')}. Send a follow-up to retry, or choose another model.`), { usage });
  }
  return error;
}
