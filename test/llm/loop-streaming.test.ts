import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LlmLoopError } from '../../src/llm/loop-error.ts';
import { runToolLoop, type LoopEntry } from '../../src/llm/loop.ts';
import { scriptedTurns, startOpenAiServer, type OpenAiServer } from '../support/openai-server.ts';

const tools = {
  lookup: tool({
    description: 'Looks a word up.',
    inputSchema: z.object({ word: z.string() }),
    execute: async ({ word }) => `${word}: a small tool`,
  }),
};

describe('the tool loop with streamed text', () => {
  let server: OpenAiServer;
  beforeAll(async () => {
    server = await startOpenAiServer(scriptedTurns([]));
  });
  afterAll(() => server.close());

  const model = () => createOpenAICompatible({ name: 'openai-compatible', baseURL: server.url }).chatModel('test-model');
  const limits = { maxSteps: 4, maxTokens: 100_000, maxRetries: 0 };

  it('hands over the text in the pieces the provider streams, tool calls streamed in fragments still run', async () => {
    server.script = scriptedTurns(
      [{ text: 'Let me look. ', toolCalls: [{ name: 'lookup', arguments: { word: 'widget-with-a-long-name' } }] }],
      'Widgets are small tools, as the lookup says.',
    );
    const deltas: string[] = [];
    const entries: LoopEntry[] = [];
    const result = await runToolLoop({
      model: model(),
      tools,
      instructions: 'Answer.',
      messages: [{ role: 'user', content: 'What is a widget?' }],
      limits,
      onTextDelta: (text) => deltas.push(text),
      onEntry: (entry) => void entries.push(entry),
    });
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join('')).toBe('Let me look. Widgets are small tools, as the lookup says.');
    expect(result.text).toBe('Widgets are small tools, as the lookup says.');
    expect(entries).toContainEqual({
      type: 'tool',
      tool: 'lookup',
      input: { word: 'widget-with-a-long-name' },
      output: 'widget-with-a-long-name: a small tool',
      error: false,
    });
    expect(server.requests.at(-1)).toMatchObject({ stream: true });
  });

  it('fails with provider when the provider answers with an error, and with step-limit as without streaming', async () => {
    server.script = () => ({ status: 500, message: 'The model is down.' });
    const failed = await runToolLoop({
      model: model(),
      tools,
      instructions: '',
      messages: [{ role: 'user', content: 'Go' }],
      limits,
      onTextDelta: () => {},
    }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(LlmLoopError);
    expect((failed as LlmLoopError).kind).toBe('provider');

    server.script = () => ({ text: '', toolCalls: [{ name: 'lookup', arguments: { word: 'again' } }] });
    const looping = await runToolLoop({
      model: model(),
      tools,
      instructions: '',
      messages: [{ role: 'user', content: 'Go' }],
      limits,
      onTextDelta: () => {},
    }).catch((error: unknown) => error);
    expect((looping as LlmLoopError).kind).toBe('step-limit');
  });
});
