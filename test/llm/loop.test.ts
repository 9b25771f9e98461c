import { APICallError, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { JobFailure } from '../../src/jobs/runner.ts';
import { LlmLoopError } from '../../src/llm/loop-error.ts';
import { runToolLoop, type LoopEntry, type LoopLimits } from '../../src/llm/loop.ts';

type Reply = { tool: string; input: Record<string, unknown> } | { text: string };

/** A model that gives `replies` in turn (the last one again and again), each call costing `tokens` input and output tokens. */
function scriptedModel(replies: Reply[], tokens = 10) {
  let call = 0;
  return new MockLanguageModelV4({
    doGenerate: async () => {
      const reply = replies[Math.min(call, replies.length - 1)];
      call++;
      const usage = {
        inputTokens: { total: tokens, noCache: tokens, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: tokens, text: tokens, reasoning: undefined },
      };
      if ('text' in reply) return { content: [{ type: 'text', text: reply.text }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
      return {
        content: [{ type: 'tool-call', toolCallId: `call-${call}`, toolName: reply.tool, input: JSON.stringify(reply.input) }],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      };
    },
  });
}

const tools = {
  lookup: tool({
    description: 'Looks a word up.',
    inputSchema: z.object({ word: z.string() }),
    execute: async ({ word }) => `${word}: a small tool`,
  }),
};

const limits: LoopLimits = { maxSteps: 5, maxTokens: 10_000, maxRetries: 0 };
const lookup = { tool: 'lookup', input: { word: 'widget' } };

async function loopError(promise: Promise<unknown>): Promise<LlmLoopError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(LlmLoopError);
  expect(error).not.toBeInstanceOf(JobFailure);
  return error as LlmLoopError;
}

describe('the tool loop on its own', () => {
  it('runs the tools until the model answers, reporting each entry and each call’s tokens', async () => {
    const entries: LoopEntry[] = [];
    const usages: number[] = [];
    const result = await runToolLoop({
      model: scriptedModel([lookup, { text: '  Widgets are small tools.  ' }], 7),
      tools,
      instructions: 'Answer questions.',
      messages: [{ role: 'user', content: 'What is a widget?' }],
      limits,
      onEntry: (entry) => void entries.push(entry),
      onUsage: (usage) => void usages.push(usage.inputTokens + usage.outputTokens),
    });
    expect(result.text).toBe('Widgets are small tools.');
    expect(result.steps).toBe(2);
    expect(result.usage).toEqual({ inputTokens: 14, outputTokens: 14 });
    expect(usages).toEqual([14, 14]);
    expect(entries).toEqual([
      { type: 'tool', tool: 'lookup', input: { word: 'widget' }, output: 'widget: a small tool', error: false },
      { type: 'text', text: '  Widgets are small tools.  ' },
    ]);
    expect(result.messages[0]).toEqual({ role: 'user', content: 'What is a widget?' });
    // Every step's messages, so a continued conversation keeps the tool calls and their results.
    expect(result.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('fails with step-limit when the model still calls tools at the last step, earlier loops counted', async () => {
    const model = scriptedModel([lookup]);
    const error = await loopError(
      runToolLoop({ model, tools, instructions: '', messages: [{ role: 'user', content: 'Go' }], limits: { ...limits, maxSteps: 3 } }),
    );
    expect(error.kind).toBe('step-limit');
    expect(error.message).toContain('step limit of 3');
    expect(error.usage).toEqual({ inputTokens: 30, outputTokens: 30 });
    expect(model.doGenerateCalls).toHaveLength(3);

    const continued = scriptedModel([lookup]);
    const spent = { usage: { inputTokens: 5, outputTokens: 5 }, steps: 2 };
    const again = await loopError(
      runToolLoop({ model: continued, tools, instructions: '', messages: [{ role: 'user', content: 'Go' }], limits: { ...limits, maxSteps: 3 }, spent }),
    );
    expect(again.kind).toBe('step-limit');
    expect(continued.doGenerateCalls).toHaveLength(1);
    expect(again.usage).toEqual({ inputTokens: 15, outputTokens: 15 });
  });

  it('fails with token-limit once the calls used more tokens than allowed', async () => {
    const model = scriptedModel([lookup], 300);
    const error = await loopError(
      runToolLoop({ model, tools, instructions: '', messages: [{ role: 'user', content: 'Go' }], limits: { ...limits, maxTokens: 1_000 } }),
    );
    expect(error.kind).toBe('token-limit');
    expect(error.usage).toEqual({ inputTokens: 600, outputTokens: 600 });
    expect(model.doGenerateCalls).toHaveLength(2);
  });

  it('fails with time-limit when the deadline passes during a call, or has passed before it', async () => {
    const slow = new MockLanguageModelV4({
      doGenerate: ({ abortSignal }) =>
        new Promise((_resolve, reject) => abortSignal?.addEventListener('abort', () => reject(abortSignal.reason as Error), { once: true })),
    });
    const during = await loopError(
      runToolLoop({ model: slow, tools, instructions: '', messages: [{ role: 'user', content: 'Go' }], limits: { ...limits, deadline: Date.now() + 100 } }),
    );
    expect(during.kind).toBe('time-limit');

    const model = scriptedModel([{ text: 'never asked' }]);
    const before = await loopError(
      runToolLoop({ model, tools, instructions: '', messages: [{ role: 'user', content: 'Go' }], limits: { ...limits, deadline: Date.now() - 1 } }),
    );
    expect(before.kind).toBe('time-limit');
    expect(model.doGenerateCalls).toHaveLength(0);
  });

  it('fails with provider when the provider answers with an error, keeping its status and message', async () => {
    const failing = new MockLanguageModelV4({
      doGenerate: async () => {
        throw new APICallError({ message: 'Overloaded.', url: 'https://models.example.test/v1', requestBodyValues: {}, statusCode: 529, isRetryable: false });
      },
    });
    const error = await loopError(runToolLoop({ model: failing, tools, instructions: '', messages: [{ role: 'user', content: 'Go' }], limits }));
    expect(error.kind).toBe('provider');
    expect(error.provider).toMatchObject({ message: 'Overloaded', apiCall: true, statusCode: 529 });
    expect(error.message).toBe('The model provider failed (HTTP 529): Overloaded.');
  });

  it('fails with aborted, the signal’s reason as cause, when the caller stops it', async () => {
    const controller = new AbortController();
    const reason = new Error('shutting down');
    const waiting = new MockLanguageModelV4({
      doGenerate: ({ abortSignal }) => {
        setTimeout(() => controller.abort(reason), 10);
        return new Promise((_resolve, reject) => abortSignal?.addEventListener('abort', () => reject(abortSignal.reason as Error), { once: true }));
      },
    });
    const error = await loopError(
      runToolLoop({
        model: waiting,
        tools,
        instructions: '',
        messages: [{ role: 'user', content: 'Go' }],
        limits: { ...limits, deadline: Date.now() + 60_000 },
        signal: controller.signal,
      }),
    );
    expect(error.kind).toBe('aborted');
    expect(error.cause).toBe(reason);
  });
});
