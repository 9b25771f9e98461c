import type { Command } from 'commander';
import { topCommand } from './commands.ts';
import pino from 'pino';
import { findProject } from '../accounts/projects.ts';
import { withStorage } from './database.ts';
import { CliError } from './output.ts';
import { onStopSignals } from './stop-signals.ts';

/** `HOST:PORT`, `[::1]:PORT` or `PORT`. */
function listenAddress(value: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(value) ?? /^()()(\d+)$/.exec(value);
  const port = Number(match?.[3]);
  if (!match || !Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--listen takes HOST:PORT, such as 0.0.0.0:8081; got "${value}".`);
  return { host: match[1] || match[2] || '127.0.0.1', port };
}

function upstreamUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.origin;
  } catch {
    // Answered below.
  }
  throw new CliError(`--upstream takes the docs site's origin, such as http://127.0.0.1:3000; got "${value}".`);
}

export function registerProxy(program: Command): void {
  topCommand(program, 'proxy')
    .requiredOption('--project <id>', 'project the views belong to')
    .requiredOption('--upstream <url>', 'origin of the docs site to forward to, e.g. http://127.0.0.1:3000')
    .option('--listen <host:port>', 'address to listen on', '127.0.0.1:8081')
    .option('--trust-proxy', 'take the client address from X-Forwarded-For (only when another proxy sits in front)')
    .option('--max-buffered <requests>', 'requests held in memory while the database is slow or down; beyond, they are dropped and counted', '100000')
    .action((flags: { project: string; upstream: string; listen: string; trustProxy?: boolean; maxBuffered: string }) =>
      withStorage(async (storage, config) => {
        const upstream = upstreamUrl(flags.upstream);
        const { host, port } = listenAddress(flags.listen);
        const maxBuffered = Number(flags.maxBuffered);
        if (!Number.isInteger(maxBuffered) || maxBuffered < 1)
          throw new CliError(`--max-buffered takes a whole number of requests; got "${flags.maxBuffered}".`);
        const project = await findProject(storage.db, flags.project);
        if (!project) throw new CliError(`No project has the id ${flags.project}; "quire projects list" shows them.`);
        // Loaded here: the proxy's HTTP client is a large module every other verb would load for nothing.
        const [{ ProxyRecorder }, { createSiteProxy }, { workerStore }] = await Promise.all([
          import('../analytics/proxy/recorder.ts'),
          import('../server/proxy.ts'),
          import('../analytics/proxy/worker-store.ts'),
        ]);
        const logger = pino({ level: config.logLevel }, pino.destination(2));
        // The data directory as resolved here: the writer thread must open the database this verb opened.
        const writer = workerStore({ projectId: project.id, env: { ...process.env, QUIRE_DATA_DIR: config.dataDir } }, logger);
        const recorder = new ProxyRecorder({ store: writer.store, logger, maxBuffered });
        await writer.prepare();
        const app = await createSiteProxy({
          storage,
          config,
          projectId: project.id,
          upstream,
          recorder,
          logger,
          trustProxy: flags.trustProxy,
          trustedProxies: config.trustedProxies,
        });
        await app.listen({ host, port });
        // Stop signals are handled before the ready line is out: a supervisor that signals as soon as it reads it
        // (before, the signal could land before the handler and end the proxy without its counters) stops it gracefully.
        const stopped = new Promise<void>((resolve) =>
          onStopSignals(
            () => resolve(),
            (signal) => logger.warn({ signal }, 'proxy already stopping: it stores the requests it holds for up to 5 s, then exits'),
          ),
        );
        logger.info({ listen: app.addresses(), upstream, project: project.id, skipAssets: project.skip_assets !== 0 }, 'proxy ready');
        await stopped;
        await app.close();
        const status = await recorder.close();
        // The counters are printed as soon as they are final, before the recording thread is closed.
        logger.info(status, `proxy stopped: ${status.stored} views stored, ${status.dropped} requests dropped`);
        process.stdout.write(`${JSON.stringify(status)}\n`);
        await writer.close();
      }),
    );
}
