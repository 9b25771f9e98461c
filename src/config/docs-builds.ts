import { integer, longestTimerSeconds, setting, type Setting } from './parsers.ts';

/** Docs index builds: how often sources are polled, how long a build is reserved, and the bounds a repository is read within. */
export const docsBuildSettings = {
  docsPollSeconds: setting(
    'QUIRE_DOCS_POLL_SECONDS',
    300,
    integer(5, 86_400),
    "How often a worker asks each project's repository for its ref's commit and builds the docs index when it moved, in seconds.",
  ),
  docsPollBatch: setting(
    'QUIRE_DOCS_POLL_BATCH',
    100,
    integer(1, 10_000),
    'Projects whose repository one poll asks about at most; the others wait for the next poll.',
  ),
  docsBuildLeaseSeconds: setting(
    'QUIRE_DOCS_BUILD_LEASE_SECONDS',
    60,
    integer(2, longestTimerSeconds),
    'How long a claimed docs build stays reserved without a heartbeat before another worker may take it.',
  ),
  docsBuildMaxAttempts: setting(
    'QUIRE_DOCS_BUILD_MAX_ATTEMPTS',
    3,
    integer(1, 100),
    'Times a docs build interrupted by a crash is started before it is failed.',
  ),
  docsMaxPageBytes: setting(
    'QUIRE_DOCS_MAX_PAGE_BYTES',
    1_048_576,
    integer(1024, 4_194_304),
    'Larger pages are left out of the docs index, with a page error saying so.',
  ),
  docsMaxPages: setting('QUIRE_DOCS_MAX_PAGES', 20_000, integer(1, 1_000_000), 'Pages one docs build indexes at most, in navigation order.'),
  docsPageTimeoutMs: setting(
    'QUIRE_DOCS_PAGE_TIMEOUT_MS',
    5000,
    integer(100, 600_000),
    'How long one page may take to parse during a docs build, in milliseconds; a slower page is indexed as plain text, with a page error.',
  ),
} satisfies Record<string, Setting<unknown>>;
