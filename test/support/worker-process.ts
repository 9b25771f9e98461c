/**
 * A worker in its own process, for crash tests: it claims jobs and runs a runner that never
 * finishes, printing "claimed <job id>" when it starts one, until the test kills it.
 */
import pino from 'pino';
import { Worker } from '../../src/jobs/worker.ts';
import { loadConfig } from '../../src/config/config.ts';
import { openStorage } from '../../src/storage/open.ts';

const config = loadConfig();
const storage = await openStorage(config);
const worker = new Worker({
  storage,
  logger: pino({ level: 'silent' }),
  concurrency: 1,
  leaseMs: config.jobLeaseSeconds * 1000,
  pollMs: 50,
  runner: {
    run: (run) =>
      new Promise(() => {
        process.stdout.write(`claimed ${run.job.id}\n`);
      }),
  },
});
worker.start();
