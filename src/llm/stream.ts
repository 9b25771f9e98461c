import { experimental_streamTextLowMemory as streamTextOnce, type FinishReason, type ModelMessage, type StepResult, type streamText, type ToolSet } from 'ai';

/** What the loop reads of a finished run, the same whether the model was called streaming or not. */
export interface RunOutcome<Tools extends ToolSet> {
  text: string;
  finishReason: FinishReason;
  steps: StepResult<Tools>[];
  responseMessages: ModelMessage[];
}

/**
 * Runs the model streaming with the options `generateText` would take, handing each text delta to
 * `onTextDelta` as it arrives, and resolves with what `generateText` resolves with. A failure or an
 * abort rejects, as with `generateText`, instead of ending the stream quietly.
 *
 * The SDK's single-consumer form: the run is read once, here, so nothing is kept to replay it. The
 * replaying `streamText` copied every part of the stream into a second one (a tee) for getters this
 * never asks; in the assistant benchmark, web streams were the largest part of an answer's CPU on the
 * event loop. The steps, the final text and the conversation come from each step as it ends instead.
 */
export async function streamedText<Tools extends ToolSet>(
  options: Parameters<typeof streamText<Tools>>[0],
  onTextDelta: (text: string) => void,
): Promise<RunOutcome<Tools>> {
  const steps: StepResult<Tools>[] = [];
  const result = streamTextOnce<Tools>({
    ...options,
    // The error part below rethrows the failure for the loop to explain; the SDK's default handler would also print it.
    onError: () => {},
    onStepEnd: async (step) => {
      steps.push(step);
      await options.onStepEnd?.(step);
    },
  });
  for await (const part of result.stream) {
    if (part.type === 'text-delta') onTextDelta(part.text);
    else if (part.type === 'error') throw part.error;
    else if (part.type === 'abort') throw new Error(`The model stream was aborted${part.reason ? `: ${part.reason}` : ''}.`);
  }
  const finishReason = await result.finishReason;
  return { text: steps.at(-1)?.text ?? '', finishReason, steps, responseMessages: steps.flatMap((step) => step.response.messages) };
}
