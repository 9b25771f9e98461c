import { addressList, hidden, hiddenCredentials, integer, optionalText, optionalUrl, setting, text, type Setting } from './parsers.ts';

/** The HTTP server: where it listens, what it accepts, whom it trusts, and what it logs. */
export const serverSettings = {
  port: setting('PORT', 8080, integer(0, 65535), 'TCP port of the HTTP server.'),
  host: setting('HOST', '127.0.0.1', text, 'Interface the HTTP server listens on (`0.0.0.0` for all).'),
  publicUrl: setting<string | undefined>(
    'QUIRE_PUBLIC_URL',
    undefined,
    optionalUrl,
    'URL clients use to reach Quire; defaults to `http://HOST:PORT`. Used in links Quire prints and serves, and as the passkey origin (its host name is the WebAuthn relying-party id). Required when HOST is `0.0.0.0` or `::`.',
    hiddenCredentials,
  ),
  bodyLimitBytes: setting('QUIRE_BODY_LIMIT_BYTES', 1_048_576, integer(1024), 'Largest request body accepted by the API, in bytes; larger bodies get 413.'),
  requestTimeoutSeconds: setting(
    'QUIRE_REQUEST_TIMEOUT_SECONDS',
    120,
    integer(1, 3600),
    'Seconds a client has to send a whole request, headers and body; then the connection is closed (a body sent a byte a minute would hold it for good). Answers, streams included, are not limited by it.',
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
  metricsToken: setting<string | undefined>(
    'QUIRE_METRICS_TOKEN',
    undefined,
    optionalText,
    'Bearer token a scraper sends to read `GET /metrics` (Prometheus text format); unset, `/metrics` answers 404.',
    hidden,
  ),
  envFile: setting<string | undefined>(
    'QUIRE_ENV_FILE',
    undefined,
    optionalText,
    'Settings file read at start by the server and every CLI verb (`KEY=value` lines); relative to the current directory. Unset: `.env` in the project root, when there is one. The environment wins over the file.',
  ),
  logLevel: setting('LOG_LEVEL', 'info', text, 'Log level: `fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`.'),
} satisfies Record<string, Setting<unknown>>;
