import { boolean, hidden, integer, modelList, optionalText, optionalUrl, setting, text, type Setting } from './parsers.ts';

/** The job agent: its models and their keys, the limits of a run, its commits, and the docs checks of a change. */
export const agentSettings = {
  model: setting<string | undefined>(
    'QUIRE_MODEL',
    undefined,
    optionalText,
    'Default model of agent jobs as `provider:model` (`anthropic:…`, `openai:…`, `openai-compatible:…`); a project may override it.',
  ),
  allowedModels: setting<string[]>(
    'QUIRE_ALLOWED_MODELS',
    [],
    modelList,
    "Comma list of `provider:model` a job may choose with the create option `model`, besides its project's model (which is always allowed).",
  ),
  anthropicApiKey: setting<string | undefined>('ANTHROPIC_API_KEY', undefined, optionalText, 'API key of `anthropic:` models.', hidden),
  openaiApiKey: setting<string | undefined>(
    'OPENAI_API_KEY',
    undefined,
    optionalText,
    'API key of `openai:` models; sent to `openai-compatible:` servers too when set.',
    hidden,
  ),
  openaiBaseUrl: setting<string | undefined>(
    'OPENAI_BASE_URL',
    undefined,
    optionalUrl,
    'Chat-completions base URL of `openai-compatible:` models (Ollama `http://127.0.0.1:11434/v1`, vLLM, LM Studio); also overrides the `openai:` endpoint.',
  ),
  agentMaxSteps: setting('QUIRE_AGENT_MAX_STEPS', 60, integer(1, 10_000), 'Model calls one agent run may make; reaching it fails the job.'),
  agentMaxSeconds: setting(
    'QUIRE_AGENT_MAX_SECONDS',
    900,
    integer(1),
    'Wall time of one agent run (clone, model, push), in seconds; exceeding it fails the job.',
  ),
  agentMaxTokens: setting('QUIRE_AGENT_MAX_TOKENS', 2_000_000, integer(1), 'Input plus output tokens one agent run may use; exceeding it fails the job.'),
  agentMaxRetries: setting(
    'QUIRE_AGENT_MAX_RETRIES',
    3,
    integer(0, 20),
    'Retries of a model call the provider marks as retryable (rate limits, overload), with backoff that honours `Retry-After`.',
  ),
  agentMaxFileBytes: setting(
    'QUIRE_AGENT_MAX_FILE_BYTES',
    1_048_576,
    integer(1),
    'Largest file the agent may write (`write_file`, or the result of `edit_file`), in bytes; a larger one is refused and the model told the limit.',
  ),
  agentMaxChangeBytes: setting(
    'QUIRE_AGENT_MAX_CHANGE_BYTES',
    10_485_760,
    integer(1),
    'Largest change a job may push: bytes of the files it added or changed against the base branch, over all its runs. Writes past it are refused; a change over it at commit time fails the job and pushes nothing.',
  ),
  gitAuthorName: setting('QUIRE_GIT_AUTHOR_NAME', 'Quire', text, 'Author name of the commits agent jobs make.'),
  gitAuthorEmail: setting('QUIRE_GIT_AUTHOR_EMAIL', 'quire@localhost', text, 'Author email of the commits agent jobs make.'),
  pullRequestDraft: setting('QUIRE_PR_DRAFT', false, boolean, 'Open agent pull requests (merge requests) as drafts.'),
  checkRepairRounds: setting(
    'QUIRE_CHECK_REPAIR_ROUNDS',
    2,
    integer(0, 10),
    'Times the problems the docs checks find in a change go back to the model before committing; problems left after them open the pull request as a draft that lists them (0 only reports).',
  ),
  checkMaxSeconds: setting(
    'QUIRE_CHECK_MAX_SECONDS',
    30,
    integer(1, 3600),
    'Time one run of the docs checks may take; files not reached by then are listed as not checked in the pull request.',
  ),
  checkMaxFileBytes: setting(
    'QUIRE_CHECK_MAX_FILE_BYTES',
    1_048_576,
    integer(1024),
    'Largest page or configuration file the docs checks parse, in bytes; larger ones are listed as not checked.',
  ),
} satisfies Record<string, Setting<unknown>>;
