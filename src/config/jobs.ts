import { boolean, integer, longestTimerMs, longestTimerSeconds, setting, type Setting } from './parsers.ts';

/** Agent jobs: their rate limit, the workers that run them, their event streams and webhook deliveries. */
export const jobSettings = {
  jobRateLimit: setting('QUIRE_JOB_RATE_LIMIT', 100, integer(1), 'Agent job creates and follow-ups allowed per project per window.'),
  jobRateWindowSeconds: setting('QUIRE_JOB_RATE_WINDOW_SECONDS', 3600, integer(1), 'Length of the rolling window of QUIRE_JOB_RATE_LIMIT, in seconds.'),
  worker: setting('QUIRE_WORKER', true, boolean, 'Whether `quire serve` also runs a worker (same as `--no-worker` when false).'),
  workerConcurrency: setting('QUIRE_WORKER_CONCURRENCY', 2, integer(1, 256), 'Jobs one worker process runs at once.'),
  workerPollMs: setting(
    'QUIRE_WORKER_POLL_MS',
    1000,
    integer(10, longestTimerMs),
    'How often an idle worker looks for jobs created by other processes, in milliseconds.',
  ),
  jobLeaseSeconds: setting(
    'QUIRE_JOB_LEASE_SECONDS',
    60,
    integer(2, longestTimerSeconds),
    'How long a claimed job stays reserved without a heartbeat before another worker may take it.',
  ),
  mcpSessionIdleMinutes: setting(
    'QUIRE_MCP_SESSION_IDLE_MINUTES',
    60,
    integer(1, 10_080),
    'Minutes an admin MCP session (`/mcp`) may stay without a tool call before it ends: its workspace is removed, what was saved stays, edits not saved are discarded.',
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
    integer(0, longestTimerSeconds),
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
    integer(10, longestTimerMs),
    "How often a process looks for webhook deliveries queued by other processes, in milliseconds (its own wake it at once; on PostgreSQL other processes' notifications do too).",
  ),
} satisfies Record<string, Setting<unknown>>;
