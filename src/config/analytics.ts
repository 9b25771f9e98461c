import { boolean, integer, setting, type Setting } from './parsers.ts';

/**
 * Visitor analytics: ingestion bodies and threads, read limits, retention, the browser tracker's
 * limits and Web Bot Auth.
 */
export const analyticsSettings = {
  ingestBodyLimitBytes: setting('QUIRE_INGEST_BODY_LIMIT_BYTES', 16_777_216, integer(1024), 'Largest analytics ingestion body, in bytes.'),
  parseThreads: setting<number | undefined>(
    'QUIRE_PARSE_THREADS',
    undefined,
    (raw, name) => (raw === '' ? undefined : integer(0, 64)(raw, name)),
    'Threads, per pool, that parse large analytics bodies (events API, drains) beside the event loop; `0` parses them on the event loop. Unset: one fewer than the cores, at least 1 and at most 4.',
  ),
  analyticsRateLimit: setting('QUIRE_ANALYTICS_RATE_LIMIT', 100, integer(1), 'Analytics read requests allowed per organization per window.'),
  analyticsRateWindowSeconds: setting(
    'QUIRE_ANALYTICS_RATE_WINDOW_SECONDS',
    3600,
    integer(1),
    'Length of the rolling window of QUIRE_ANALYTICS_RATE_LIMIT, in seconds.',
  ),
  sharedLinkRateLimit: setting(
    'QUIRE_SHARED_LINK_RATE_LIMIT',
    600,
    integer(1),
    'Analytics pages served per hour through a project’s shared links, all its links together; more get 429 (the live count is not counted).',
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
  gapOpenedVisitors: setting(
    'QUIRE_GAP_OPENED_VISITORS',
    10,
    integer(1),
    'Distinct visitors (people and AI agents) a docs gap must reach before the `gap.opened` webhook is sent for it, once.',
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
} satisfies Record<string, Setting<unknown>>;
