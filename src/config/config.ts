/**
 * Every setting Quire reads, in one table: environment variable, default, parser and the sentence
 * that documents it. `loadConfig` reads the environment once at start-up and fails with a message
 * that says which variable to fix. `docs/configuration.md` lists the same table (a test keeps the
 * two in sync).
 */

import {
  addressList,
  boolean,
  ConfigError,
  integer,
  modelList,
  optionalText,
  optionalUrl,
  privateKey,
  secretKey,
  text,
  url,
  type Parser,
  type Setting,
} from './parsers.ts';

function setting<T>(env: string, defaultValue: T, parse: Parser<T>, description: string): Setting<T> {
  return { env, default: defaultValue, parse, description };
}

export const settings = {
  port: setting('PORT', 8080, integer(0, 65535), 'TCP port of the HTTP server.'),
  host: setting('HOST', '127.0.0.1', text, 'Interface the HTTP server listens on (`0.0.0.0` for all).'),
  publicUrl: setting<string | undefined>(
    'QUIRE_PUBLIC_URL',
    undefined,
    optionalUrl,
    'URL clients use to reach Quire; defaults to `http://HOST:PORT`. Used in links Quire prints and serves, and as the passkey origin (its host name is the WebAuthn relying-party id). Required when HOST is `0.0.0.0` or `::`.',
  ),
  dataDir: setting('QUIRE_DATA_DIR', './data', text, 'Directory of the embedded SQLite database, workspaces and repository mirrors.'),
  databaseUrl: setting<string | undefined>(
    'DATABASE_URL',
    undefined,
    optionalText,
    '`postgres://user:password@host:5432/db` switches every part of Quire to PostgreSQL; unset uses SQLite under QUIRE_DATA_DIR.',
  ),
  databasePoolSize: setting('QUIRE_DATABASE_POOL_SIZE', 10, integer(1, 1000), 'PostgreSQL connections per process.'),
  statementTimeoutMs: setting('QUIRE_DATABASE_STATEMENT_TIMEOUT_MS', 30_000, integer(0), 'PostgreSQL statement timeout in milliseconds (0 disables it).'),
  bodyLimitBytes: setting('QUIRE_BODY_LIMIT_BYTES', 1_048_576, integer(1024), 'Largest request body accepted by the API, in bytes; larger bodies get 413.'),
  ingestBodyLimitBytes: setting('QUIRE_INGEST_BODY_LIMIT_BYTES', 16_777_216, integer(1024), 'Largest analytics ingestion body, in bytes.'),
  parseThreads: setting<number | undefined>(
    'QUIRE_PARSE_THREADS',
    undefined,
    (raw, name) => (raw === '' ? undefined : integer(0, 64)(raw, name)),
    'Threads, per pool, that parse large analytics bodies (events API, drains) beside the event loop; `0` parses them on the event loop. Unset: one fewer than the cores, at least 1 and at most 4.',
  ),
  jobRateLimit: setting('QUIRE_JOB_RATE_LIMIT', 100, integer(1), 'Agent job creates and follow-ups allowed per project per window.'),
  jobRateWindowSeconds: setting('QUIRE_JOB_RATE_WINDOW_SECONDS', 3600, integer(1), 'Length of the rolling window of QUIRE_JOB_RATE_LIMIT, in seconds.'),
  analyticsRateLimit: setting('QUIRE_ANALYTICS_RATE_LIMIT', 100, integer(1), 'Analytics read requests allowed per organization per window.'),
  analyticsRateWindowSeconds: setting(
    'QUIRE_ANALYTICS_RATE_WINDOW_SECONDS',
    3600,
    integer(1),
    'Length of the rolling window of QUIRE_ANALYTICS_RATE_LIMIT, in seconds.',
  ),
  analyticsRetentionDays: setting(
    'QUIRE_ANALYTICS_RETENTION_DAYS',
    0,
    integer(0),
    'Days raw analytics events are kept (0 keeps them forever); daily visitor sets are kept regardless.',
  ),
  collectRateLimitPerAddress: setting(
    'QUIRE_COLLECT_RATE_LIMIT_PER_ADDRESS',
    120,
    integer(1),
    'Browser-tracker views accepted per minute from one client address (an IPv6 /64 counts as one address); more get 429.',
  ),
  collectRateLimitPerProject: setting(
    'QUIRE_COLLECT_RATE_LIMIT_PER_PROJECT',
    6000,
    integer(1),
    'Browser-tracker views accepted per minute for one project from all addresses together; more get 429.',
  ),
  feedbackRateLimitPerAddress: setting(
    'QUIRE_FEEDBACK_RATE_LIMIT_PER_ADDRESS',
    20,
    integer(1),
    'Browser-tracker feedback items accepted per minute from one client address (an IPv6 /64 counts as one address), on top of the view limits; more get 429.',
  ),
  webBotAuthTimeoutMs: setting(
    'QUIRE_WEB_BOT_AUTH_TIMEOUT_MS',
    3000,
    integer(100, 60_000),
    "How long ingestion waits for a Web Bot Auth key directory (named by an event's Signature-Agent header), in milliseconds; a directory that does not answer leaves the view unverified.",
  ),
  webBotAuthAllowPrivate: setting(
    'QUIRE_WEB_BOT_AUTH_ALLOW_PRIVATE',
    false,
    boolean,
    'Fetch Web Bot Auth key directories from loopback and private addresses and over plain http (tests and closed networks only: the host is chosen by whoever sends the event).',
  ),
  trustedProxies: setting<string[]>(
    'QUIRE_TRUSTED_PROXIES',
    [],
    addressList,
    'Comma-separated addresses or CIDR ranges of reverse proxies whose `X-Forwarded-For` gives the client address (for the browser tracker and API key IP allowlists).',
  ),
  accountCacheMs: setting(
    'QUIRE_ACCOUNT_CACHE_MS',
    2000,
    integer(0, 60_000),
    'How long a process reuses an API key or project it looked up; a key revoked or a project changed by another process takes at most this long to be seen (0 looks up every request).',
  ),
  worker: setting('QUIRE_WORKER', true, boolean, 'Whether `quire serve` also runs a worker (same as `--no-worker` when false).'),
  workerConcurrency: setting('QUIRE_WORKER_CONCURRENCY', 2, integer(1, 256), 'Jobs one worker process runs at once.'),
  workerPollMs: setting('QUIRE_WORKER_POLL_MS', 1000, integer(10), 'How often an idle worker looks for jobs created by other processes, in milliseconds.'),
  jobLeaseSeconds: setting(
    'QUIRE_JOB_LEASE_SECONDS',
    60,
    integer(2),
    'How long a claimed job stays reserved without a heartbeat before another worker may take it.',
  ),
  jobMaxAttempts: setting('QUIRE_JOB_MAX_ATTEMPTS', 3, integer(1, 100), 'Times a job interrupted by a crash is started before it is failed.'),
  jobCancelPollMs: setting(
    'QUIRE_JOB_CANCEL_POLL_MS',
    500,
    integer(50, 1000),
    'How often a worker checks that its running jobs were not cancelled by another process, in milliseconds (a cancel must stop a job within 2 s).',
  ),
  eventsPollMs: setting(
    'QUIRE_EVENTS_POLL_MS',
    250,
    integer(10, 10_000),
    "How often a job event stream with subscribers looks for events recorded by other processes, in milliseconds (this process wakes it at once; on PostgreSQL other processes' notifications do too, and the poll only catches a lost one).",
  ),
  eventsHeartbeatSeconds: setting(
    'QUIRE_EVENTS_HEARTBEAT_SECONDS',
    15,
    integer(1, 3600),
    'Interval of the comment lines that keep an idle job event stream open through proxies, in seconds.',
  ),
  shutdownGraceSeconds: setting(
    'QUIRE_SHUTDOWN_GRACE_SECONDS',
    30,
    integer(0),
    'On SIGTERM, how long running jobs may finish before they are released to other workers.',
  ),
  webhooksAllowPrivate: setting(
    'QUIRE_WEBHOOKS_ALLOW_PRIVATE',
    false,
    boolean,
    'Let webhook endpoints be on loopback, private, link-local and other non-public addresses (tests and closed networks only: an endpoint address is chosen by whoever holds a write key).',
  ),
  webhookTimeoutMs: setting(
    'QUIRE_WEBHOOK_TIMEOUT_MS',
    10_000,
    integer(100, 120_000),
    'How long one webhook delivery attempt waits for the endpoint to answer, in milliseconds; a slower answer counts as a failed attempt.',
  ),
  webhookRetryHours: setting(
    'QUIRE_WEBHOOK_RETRY_HOURS',
    24,
    integer(1, 720),
    'How long a webhook delivery is retried (exponential backoff with jitter) before it is marked failed, in hours.',
  ),
  webhookDisableAfterHours: setting(
    'QUIRE_WEBHOOK_DISABLE_AFTER_HOURS',
    72,
    integer(1, 8760),
    'A webhook endpoint whose every attempt failed for this many hours is disabled, with the reason shown; PATCH it with `{"enabled": true}` to turn it on again.',
  ),
  webhookLogDays: setting(
    'QUIRE_WEBHOOK_LOG_DAYS',
    30,
    integer(1, 3650),
    'Days a delivered or failed webhook delivery and its attempts stay in the delivery log.',
  ),
  webhookConcurrency: setting('QUIRE_WEBHOOK_CONCURRENCY', 100, integer(1, 1024), 'Webhook deliveries one process sends at once.'),
  webhookPollMs: setting(
    'QUIRE_WEBHOOK_POLL_MS',
    500,
    integer(10),
    "How often a process looks for webhook deliveries queued by other processes, in milliseconds (its own wake it at once; on PostgreSQL other processes' notifications do too).",
  ),
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
  anthropicApiKey: setting<string | undefined>('ANTHROPIC_API_KEY', undefined, optionalText, 'API key of `anthropic:` models.'),
  openaiApiKey: setting<string | undefined>(
    'OPENAI_API_KEY',
    undefined,
    optionalText,
    'API key of `openai:` models; sent to `openai-compatible:` servers too when set.',
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
  dashboardLinkMinutes: setting('QUIRE_DASHBOARD_LINK_MINUTES', 30, integer(1, 10_080), 'How long a dashboard sign-in link works (it works once), in minutes.'),
  dashboardSessionHours: setting(
    'QUIRE_DASHBOARD_SESSION_HOURS',
    168,
    integer(1, 8760),
    'How long a dashboard session lasts before signing in again, in hours.',
  ),
  dashboardIdleHours: setting(
    'QUIRE_DASHBOARD_IDLE_HOURS',
    12,
    integer(1, 8760),
    'A dashboard session not used for this many hours ends before QUIRE_DASHBOARD_SESSION_HOURS.',
  ),
  invitationHours: setting(
    'QUIRE_INVITATION_HOURS',
    72,
    integer(1, 8760),
    'How long an invitation link an owner creates on the People page works (it works once), in hours.',
  ),
  signInRateLimit: setting(
    'QUIRE_SIGN_IN_RATE_LIMIT',
    10,
    integer(1),
    'Password sign-in attempts allowed per client address and, separately, per account in each window; more get 429.',
  ),
  signInRateWindowSeconds: setting('QUIRE_SIGN_IN_RATE_WINDOW_SECONDS', 900, integer(1), 'Length of the window of QUIRE_SIGN_IN_RATE_LIMIT, in seconds.'),
  githubToken: setting<string | undefined>(
    'GITHUB_TOKEN',
    undefined,
    optionalText,
    'GitHub personal or fine-grained token for pushing job branches and opening pull requests (contents and pull requests: read and write).',
  ),
  githubAppId: setting<string | undefined>(
    'GITHUB_APP_ID',
    undefined,
    optionalText,
    'GitHub App id; with GITHUB_APP_PRIVATE_KEY, used instead of GITHUB_TOKEN (the installation is looked up per repository).',
  ),
  githubAppPrivateKey: setting<string | undefined>(
    'GITHUB_APP_PRIVATE_KEY',
    undefined,
    privateKey,
    'Private key of the GitHub App: the PEM text (`\\n` escapes allowed) or the path of the .pem file.',
  ),
  githubServerUrl: setting(
    'GITHUB_SERVER_URL',
    'https://github.com',
    url,
    'Web address of GitHub; repositories under it use the GitHub code host. Set it for GitHub Enterprise Server.',
  ),
  githubApiUrl: setting<string | undefined>(
    'GITHUB_API_URL',
    undefined,
    optionalUrl,
    'GitHub REST API base; defaults to https://api.github.com for github.com and to GITHUB_SERVER_URL/api/v3 otherwise.',
  ),
  gitlabUrl: setting<string | undefined>(
    'GITLAB_URL',
    undefined,
    optionalUrl,
    'Web address of a GitLab instance (https://gitlab.com or your own); repositories under it use the GitLab code host.',
  ),
  gitlabToken: setting<string | undefined>(
    'GITLAB_TOKEN',
    undefined,
    optionalText,
    'GitLab personal, group or project access token with the `api` and `write_repository` scopes.',
  ),
  secretKey: setting<Buffer | undefined>(
    'QUIRE_SECRET_KEY',
    undefined,
    secretKey,
    "Key that encrypts organizations' code-host tokens and log drain secrets at rest (AES-256-GCM): 32 random bytes in base64 (`openssl rand -base64 32`). Needed once a token is connected or a drain created.",
  ),
  secretKeyPrevious: setting<Buffer | undefined>(
    'QUIRE_SECRET_KEY_PREVIOUS',
    undefined,
    secretKey,
    'The key QUIRE_SECRET_KEY replaced, still accepted for decryption while `quire connections rotate-key` re-encrypts every token under the new one.',
  ),
  trustFirstOrganization: setting(
    'QUIRE_TRUST_FIRST_ORGANIZATION',
    false,
    boolean,
    'Lets the organization created at first start use any local repository and the server-wide GITHUB_* and GITLAB_TOKEN credentials, as a single-organization install wants. Other organizations get only what the operator grants (`quire orgs grant-local`, `quire orgs grant-server-credentials`).',
  ),
  metricsToken: setting<string | undefined>(
    'QUIRE_METRICS_TOKEN',
    undefined,
    optionalText,
    'Bearer token a scraper sends to read `GET /metrics` (Prometheus text format); unset, `/metrics` answers 404.',
  ),
  logLevel: setting('LOG_LEVEL', 'info', text, 'Log level: `fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`.'),
} satisfies Record<string, Setting<unknown>>;

type Settings = typeof settings;
export type Config = { [K in keyof Settings]: Settings[K]['default'] };

const wildcardHosts = new Set(['0.0.0.0', '::', '0:0:0:0:0:0:0:0']);

/** Reads every setting from `environment` (default `process.env`); `overrides` win over both. */
export function loadConfig(environment: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const config: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(settings) as [string, Setting<unknown>][]) {
    const raw = environment[entry.env];
    config[key] = raw === undefined ? entry.default : entry.parse(raw, entry.env);
  }
  const result = { ...(config as Config), ...overrides };
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(result.logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got "${result.logLevel}".`);
  }
  // Links built from a wildcard address (sign-in links, a local repository's prLink) would lead nowhere.
  if (result.publicUrl === undefined && wildcardHosts.has(result.host.replace(/^\[|\]$/g, ''))) {
    throw new ConfigError(
      `HOST is ${result.host}, which listens on every interface but is no address a browser can open: set QUIRE_PUBLIC_URL to the URL people and clients use to reach Quire (for example http://quire.example.internal:${result.port}), so the links Quire prints and saves work.`,
    );
  }
  return result;
}

export function publicUrl(config: Config): string {
  return config.publicUrl ?? `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
}
