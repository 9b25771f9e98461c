import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** A tool's text answer. */
export function text(value: string): CallToolResult {
  return { content: [{ type: 'text', text: value }] };
}

/** A refusal: a sentence the agent can act on, marked `isError` so it is not taken for a result. */
export function refusal(sentence: string): CallToolResult {
  return { content: [{ type: 'text', text: sentence }], isError: true };
}

/** An object answer, as the contract asks: `structuredContent` and the same JSON as text. */
export function structured(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

/** An answer of Quire's own API as a tool result: its JSON object, or its error sentence as a refusal. */
export function apiResult(answer: { statusCode: number; body: string }): CallToolResult {
  const parsed = JSON.parse(answer.body) as Record<string, unknown>;
  if (answer.statusCode >= 400) return refusal(typeof parsed.error === 'string' ? parsed.error : `The request failed with HTTP ${answer.statusCode}.`);
  return structured(parsed);
}
