import { streamText, type FinishReason, type ModelMessage, type StepResult, type ToolSet } from 'ai';

/** What the loop reads of a finished run, the same whether the model was called streaming or not. */
export interface RunOutcome<Tools extends ToolSet> {
  text: string;
  finishReason: FinishReason;
  steps: StepResult<Tools>[];
  responseMessages: ModelMessage[];
}

/**
 * Runs `streamText` with the options `generateText` would take, handing each text delta to
 * `onTextDelta` as it arrives, and resolves with what `generateText` resolves with. A failure or an
 * abort rejects, as with `generateText`, instead of ending the stream quietly.
 */
export async function streamedText<Tools extends ToolSet>(
  options: Parameters<typeof streamText<Tools>>[0],
  onTextDelta: (text: string) => void,
): Promise<RunOutcome<Tools>> {
  // The error part below rethrows the failure for the loop to explain; the SDK's default handler would also print it.
  const result = streamText<Tools>({ ...options, onError: () => {} });
  for await (const part of result.stream) {
    if (part.type === 'text-delta') onTextDelta(part.text);
    else if (part.type === 'error') throw part.error;
    else if (part.type === 'abort') throw new Error(`The model stream was aborted${part.reason ? `: ${part.reason}` : ''}.`);
  }
  const [text, finishReason, steps, responseMessages] = await Promise.all([result.text, result.finishReason, result.steps, result.responseMessages]);
  return { text, finishReason, steps, responseMessages };
}
