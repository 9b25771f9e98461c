import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import type { Config } from '../config/config.ts';
import { parseModel, type ModelProvider } from '../config/model-name.ts';

type ModelConfig = Pick<Config, 'anthropicApiKey' | 'openaiApiKey' | 'openaiBaseUrl'>;

/** The variables an operator checks when a provider refuses the key or cannot be reached. */
export interface ProviderVariables {
  key: string;
  /** Null when the provider's address is fixed. */
  endpoint: string | null;
}

interface ProviderProfile {
  /** The configuration a provider cannot work without: its setting and the variable that sets it. */
  needs: { setting: keyof ModelConfig; variable: string }[];
  variables: ProviderVariables;
  create(config: ModelConfig, modelId: string): LanguageModel;
}

const providers: Record<ModelProvider, ProviderProfile> = {
  anthropic: {
    needs: [{ setting: 'anthropicApiKey', variable: 'ANTHROPIC_API_KEY' }],
    variables: { key: 'ANTHROPIC_API_KEY', endpoint: null },
    create: (config, modelId) => createAnthropic({ apiKey: config.anthropicApiKey }).languageModel(modelId),
  },
  openai: {
    needs: [{ setting: 'openaiApiKey', variable: 'OPENAI_API_KEY' }],
    variables: { key: 'OPENAI_API_KEY', endpoint: 'OPENAI_BASE_URL' },
    create: (config, modelId) => createOpenAI({ apiKey: config.openaiApiKey, baseURL: config.openaiBaseUrl }).languageModel(modelId),
  },
  'openai-compatible': {
    // Local servers (Ollama, vLLM, LM Studio) usually take no key, so only the URL is required.
    needs: [{ setting: 'openaiBaseUrl', variable: 'OPENAI_BASE_URL' }],
    variables: { key: 'OPENAI_API_KEY', endpoint: 'OPENAI_BASE_URL' },
    create: (config, modelId) =>
      createOpenAICompatible({ name: 'openai-compatible', baseURL: config.openaiBaseUrl!, apiKey: config.openaiApiKey }).chatModel(modelId),
  },
};

/** Why the model `value` cannot be used with this configuration (a sentence naming the variable to set), or null. */
export function checkModel(value: string, config: ModelConfig): string | null {
  const choice = parseModel(value);
  if ('problem' in choice) return choice.problem;
  const missing = providers[choice.provider].needs.find((need) => !config[need.setting]);
  return missing ? `The model ${value} needs ${missing.variable}; set it in the environment of the Quire server and its workers.` : null;
}

/** The SDK model for `value`; call `checkModel` first. */
export function languageModel(value: string, config: ModelConfig): LanguageModel {
  const choice = parseModel(value);
  if ('problem' in choice) throw new Error(choice.problem);
  return providers[choice.provider].create(config, choice.modelId);
}

/** The key and endpoint variables of the model `value`'s provider, or null for a value that names no provider. */
export function providerVariables(value: string): ProviderVariables | null {
  const choice = parseModel(value);
  return 'problem' in choice ? null : providers[choice.provider].variables;
}
