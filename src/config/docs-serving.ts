import { integer, setting, type Setting } from './parsers.ts';

/**
 * Docs served to agents and readers: the limits of the discovery operations and of the search MCP
 * server, and how many of the site surface's 404s are recorded.
 */
export const docsServingSettings = {
  discoveryRateLimit: setting(
    'QUIRE_DISCOVERY_RATE_LIMIT',
    10_000,
    integer(1),
    'Discovery search and page requests (`/discovery/v1/search`, `/discovery/v1/page`) allowed per organization per window; more get 429.',
  ),
  discoveryRateWindowSeconds: setting(
    'QUIRE_DISCOVERY_RATE_WINDOW_SECONDS',
    3600,
    integer(1),
    'Length of the rolling window of QUIRE_DISCOVERY_RATE_LIMIT, in seconds.',
  ),
  docsMcpRateLimitPerAddress: setting(
    'QUIRE_DOCS_MCP_RATE_LIMIT_PER_ADDRESS',
    5000,
    integer(1),
    'Calls to a project’s search MCP server (`/sites/{projectId}/mcp`) allowed per client address per window (an IPv6 /64 counts as one address); more get 429.',
  ),
  docsMcpRateLimitPerProject: setting(
    'QUIRE_DOCS_MCP_RATE_LIMIT_PER_PROJECT',
    10_000,
    integer(1),
    'Calls to one project’s search MCP server allowed per window from all addresses together; more get 429.',
  ),
  docsMcpRateWindowSeconds: setting(
    'QUIRE_DOCS_MCP_RATE_WINDOW_SECONDS',
    3600,
    integer(1),
    'Length of the rolling window of the QUIRE_DOCS_MCP_RATE_LIMIT_* limits, in seconds.',
  ),
  docsNotFoundRecordLimitPerAddress: setting(
    'QUIRE_DOCS_NOT_FOUND_RECORD_LIMIT_PER_ADDRESS',
    300,
    integer(1),
    'Site-surface requests (`/sites/{projectId}/…`) answered 404 that are recorded in one project’s analytics per client address per window (an IPv6 /64 counts as one address); more are still answered 404, but not recorded.',
  ),
  docsNotFoundRecordLimitPerProject: setting(
    'QUIRE_DOCS_NOT_FOUND_RECORD_LIMIT_PER_PROJECT',
    5000,
    integer(1),
    'Site-surface requests answered 404 that are recorded in one project’s analytics per window from all addresses together (many addresses cost little: an IPv6 /48 holds 65,536 /64s); more are still answered 404, but not recorded.',
  ),
  docsNotFoundRecordWindowSeconds: setting(
    'QUIRE_DOCS_NOT_FOUND_RECORD_WINDOW_SECONDS',
    3600,
    integer(1),
    'Length of the rolling window of the QUIRE_DOCS_NOT_FOUND_RECORD_LIMIT_* limits, in seconds.',
  ),
} satisfies Record<string, Setting<unknown>>;
