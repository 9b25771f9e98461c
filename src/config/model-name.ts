/**
 * How a model is named, in QUIRE_MODEL and on a project: `provider:model`. The providers are listed
 * here once; `llm/models.ts` says what each needs and how to call it.
 */
export const modelProviders = ['anthropic', 'openai', 'openai-compatible'] as const;
export type ModelProvider = (typeof modelProviders)[number];

/** A model named as `provider:model`. */
export interface ModelChoice {
  provider: ModelProvider;
  modelId: string;
}

const examples = '`anthropic:claude-sonnet-4-5`, `openai:gpt-5` or `openai-compatible:llama3.1`';

/** Reads `provider:model`; the problem says what a valid value looks like. */
export function parseModel(value: string): ModelChoice | { problem: string } {
  const separator = value.indexOf(':');
  const provider = value.slice(0, separator);
  const modelId = value.slice(separator + 1).trim();
  if (separator < 0 || !modelProviders.includes(provider as ModelProvider) || !modelId) {
    return { problem: `The model "${value}" is not of the form provider:model with provider one of ${modelProviders.join(', ')}; use ${examples}.` };
  }
  return { provider: provider as ModelProvider, modelId };
}
