/**
 * Quire in its own process for multi-process tests: API and/or worker (SERVICE_API, SERVICE_WORKER),
 * with a scripted runner that takes SERVICE_RUN_MS and writes its process id to the transcript.
 * Prints one JSON line `{url, pid}` when ready; SIGTERM stops it gracefully. A failed start prints
 * the reason to stderr and exits 1, as `quire serve` does.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../../src/config/config.ts';
import { startService } from '../../src/server/service.ts';
import { scriptedAgent } from './app.ts';

const runMs = Number(process.env.SERVICE_RUN_MS ?? 0);
// PORT, when given, is kept (tests of a port already in use); otherwise any free port.
const config = loadConfig(process.env, {
  ...(process.env.PORT === undefined ? { port: 0 } : {}),
  logLevel: process.env.LOG_LEVEL === undefined ? 'silent' : (process.env.LOG_LEVEL as 'info'),
});
try {
  const service = await startService({
    config,
    api: process.env.SERVICE_API !== '0',
    worker: process.env.SERVICE_WORKER !== '0',
    agent: scriptedAgent({
      async run(run) {
        await run.record('assistant', { pid: process.pid });
        if (runMs) await sleep(runMs, undefined, { signal: run.signal });
        return { prLink: null };
      },
    }),
  });
  process.stdout.write(`${JSON.stringify({ url: service.url, pid: process.pid })}\n`);
  process.on('SIGTERM', () => void service.stop().then(() => process.exit(0)));
} catch (error) {
  // As `quire serve` does (cli/main.ts): say why and set the exit code, then end once nothing is left running.
  process.stderr.write(`quire: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
