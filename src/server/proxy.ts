/**
 * `quire proxy` as the CLI runs it: analytics' reverse proxy, given the docs site surface on the
 * project's index (docs/surface/proxied.ts), which it serves at the site's root while the project's
 * docs are public. Composed here because only the server wires one feature into another.
 */
import type { Logger } from 'pino';
import { createProxyServer, type ProxyOptions, type ProxyServer } from '../analytics/proxy/proxy-server.ts';
import { flushInteractions } from '../analytics/capture/record.ts';
import { createAnalyticsState, directoryOptions } from '../analytics/state.ts';
import type { Config } from '../config/config.ts';
import { proxiedSurface } from '../docs/surface/proxied.ts';
import type { Storage } from '../storage/dialect.ts';

export interface SiteProxyOptions extends Omit<ProxyOptions, 'surface'> {
  storage: Storage;
  config: Config;
  projectId: string;
  logger: Logger;
  /** How long the project's settings are kept before being read again (default 10,000 ms). */
  refreshMilliseconds?: number;
}

export async function createSiteProxy(options: SiteProxyOptions): Promise<ProxyServer> {
  const { storage, config, projectId, logger, refreshMilliseconds, ...proxy } = options;
  // The MCP tools' searches and feedback are few: they are stored from this thread, with the events API's checks.
  const analytics = createAnalyticsState(storage, directoryOptions(config), logger);
  const surface = proxiedSurface({ storage, config, projectId, analytics, refreshMilliseconds });
  const server = await createProxyServer({ ...proxy, logger, surface });
  // The searches and feedback still buffered are stored once no request can add more.
  const closeServer = server.close.bind(server);
  return Object.assign(server, { close: () => closeServer().then(() => flushInteractions(analytics)) });
}
